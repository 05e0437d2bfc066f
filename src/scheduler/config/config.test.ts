import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Framework } from '../framework/runtime.js';
import { newInTreeRegistry } from '../plugins/registry.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { ConfigError, parseConfig, parseGoDuration } from './config.js';

const HEAD = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';
const fw = (profile: ReturnType<typeof parseConfig>['profiles'][number]) =>
  new Framework({ registry: newInTreeRegistry(), profile, client: new FakeClient(), eventRecorder: { event: () => undefined } });

describe('KubeSchedulerConfiguration', () => {
  it('defaults as upstream', () => {
    const c = parseConfig(HEAD);
    assert.equal(c.parallelism, 16);
    assert.equal(c.percentageOfNodesToScore, 0);
    assert.equal(c.podInitialBackoffSeconds, 1);
    assert.equal(c.podMaxBackoffSeconds, 10);
    assert.deepEqual(c.leaderElection, {
      leaderElect: true,
      leaseDurationMs: 15000,
      renewDeadlineMs: 10000,
      retryPeriodMs: 2000,
      resourceLock: 'leases',
      resourceName: 'kube-scheduler',
      resourceNamespace: 'kube-system',
    });
    assert.deepEqual(
      c.profiles.map((p) => p.schedulerName),
      ['default-scheduler'],
    );
    const f = fw(c.profiles[0]!);
    assert.equal(f.plugins.score.length, 7);
  });

  it('profiles, plugin enable/disable, weights, pluginConfig args and percentages', () => {
    const c = parseConfig(
      HEAD +
        `percentageOfNodesToScore: 30
podMaxBackoffSeconds: 20
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packing
  percentageOfNodesToScore: 70
  plugins:
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
      enabled:
      - name: NodeResourcesFit
        weight: 5
    preFilter:
      disabled:
      - name: '*'
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 1
`,
    );
    assert.equal(c.percentageOfNodesToScore, 30);
    assert.equal(c.podMaxBackoffSeconds, 20);
    assert.deepEqual(
      c.profiles.map((p) => p.schedulerName),
      ['default-scheduler', 'bin-packing'],
    );
    const f = fw(c.profiles[1]!);
    assert.equal(f.percentageOfNodesToScore, 70);
    assert.equal(f.plugins.preFilter.length, 0);
    assert.ok(!f.plugins.score.some((p) => p.name === 'NodeResourcesBalancedAllocation'));
    const i = f.plugins.score.findIndex((p) => p.name === 'NodeResourcesFit');
    assert.equal(f.plugins.scoreWeights[i], 5);
    const args = c.profiles[1]!.pluginConfig!.find((x) => x.name === 'NodeResourcesFit')!.args as { scoringStrategy: { type: string } };
    assert.equal(args.scoringStrategy.type, 'MostAllocated');
  });

  it('rejects invalid configurations with upstream field errors', () => {
    const bad = (body: string) => {
      try {
        parseConfig(HEAD + body);
      } catch (e) {
        assert.ok(e instanceof ConfigError);
        return e.message;
      }
      return assert.fail('expected an error');
    };
    assert.equal(bad('percentageOfNodesToScore: 150\n'), 'percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]');
    assert.equal(
      bad('podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n'),
      'podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds',
    );
    assert.equal(bad('profiles:\n- schedulerName: a\n- schedulerName: a\n'), 'profiles[1].schedulerName: Duplicate value: "a"');
    assert.equal(bad('profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: X\n  - name: X\n'), 'profiles[0].pluginConfig[1]: Duplicate value: "X"');
    assert.match(bad('parallelism: 0\npercentageOfNodesToScore: -1\n'), /^\[parallelism: Invalid value: 0: should be an integer value greater than zero, percentageOfNodesToScore/);
    assert.throws(
      () => parseConfig('apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n'),
      /no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io\/v1beta3"/,
    );
  });

  it('plugin args are validated when the framework is built', () => {
    const c = parseConfig(HEAD + 'profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 150\n');
    assert.throws(() => fw(c.profiles[0]!), /initializing plugin "DefaultPreemption": minCandidateNodesPercentage: Invalid value: 150: not in valid range \[0, 100\]/);
  });

  it('parses Go durations', () => {
    assert.equal(parseGoDuration('15s'), 15000);
    assert.equal(parseGoDuration('1m30s'), 90000);
    assert.equal(parseGoDuration('250ms'), 250);
    assert.ok(Number.isNaN(parseGoDuration('15')));
  });
});
