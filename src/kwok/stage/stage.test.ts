import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compileJq, JqSyntaxError } from './jq.js';
import { parseTemplate, TemplateError } from './gotemplate.js';
import { podTemplateFuncs } from './pod-stages.js';
import { compileStage, loadStages, selectStage, StageError, type StageObject } from './stage.js';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/kwok-stages');
const fixture = (f: string) => readFileSync(join(FIXTURES, f), 'utf8');
const podFast = ['pod-ready.yaml', 'pod-complete.yaml', 'pod-delete.yaml'].flatMap((f) => loadStages(fixture(f), f));

const pod = (over: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'default', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: {
    nodeName: 'kwok-node-0',
    readinessGates: [{ conditionType: 'example.com/gate' }],
    initContainers: [
      { name: 'init', image: 'busybox' },
      { name: 'sidecar', image: 'envoy', restartPolicy: 'Always' },
    ],
    containers: [{ name: 'web', image: 'nginx' }],
  },
  status: { phase: 'Pending' },
  ...over,
});

describe('kwok stages: jq selector keys', () => {
  const obj = {
    status: {
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'X', status: 'False' },
      ],
    },
    metadata: { ownerReferences: [{ kind: 'Job' }] },
  };
  it('paths, iteration, pipes and select as kwok default stages use them', () => {
    assert.deepEqual(compileJq('.status.conditions.[] | select( .type == "Ready" ) | .status').eval(obj), ['True']);
    assert.deepEqual(compileJq('.metadata.ownerReferences.[].kind').eval(obj), ['Job']);
    assert.deepEqual(compileJq('.metadata.deletionTimestamp').eval(obj), [null]);
    assert.deepEqual(compileJq('.spec.containers.[].name').eval(obj), []);
    assert.deepEqual(compileJq('.status.conditions[] | select(.status != "True") | .type').eval(obj), ['X']);
    assert.deepEqual(compileJq('.metadata["ownerReferences"].[].kind').eval(obj), ['Job']);
  });
  it('refuses what it does not know, with the position', () => {
    assert.throws(
      () => compileJq('.a | length'),
      (e: unknown) => e instanceof JqSyntaxError && /expected a path starting with \. at position 5/.test((e as Error).message),
    );
  });
});

describe('kwok stages: Go templates', () => {
  const run = (t: string, data: unknown, funcs = {}) => parseTemplate('t', t).execute(data, funcs);
  it('variables, $, range with index, if/else if/else, with/else, trim markers, pipelines', () => {
    assert.equal(run('{{ $x := .a }}{{ range $i, $e := .l }}{{ $i }}={{ $e }}{{ $.a }};{{ end }}{{ $x }}', { a: 'A', l: ['p', 'q'] }), '0=pA;1=qA;A');
    assert.equal(run('{{ if eq .n 1 }}one{{ else if eq .n 2 }}two{{ else }}many{{ end }}', { n: 2 }), 'two');
    assert.equal(run('{{ with .m }}{{ .k }}{{ else }}none{{ end }}|{{ with .z }}x{{ else }}none{{ end }}', { m: { k: 'v' } }), 'v|none');
    assert.equal(run('a  {{- .x -}}  b', { x: 1 }), 'a1b');
    assert.equal(run('{{ .x | printf "%s-%d" "p" }}', { x: 7 }), 'p-7');
    assert.equal(run('{{ or .missing "dflt" }} {{ .missing }} {{ index .l 1 }} {{ len .l }}', { l: ['a', 'b'] }), 'dflt <no value> b 2');
    assert.equal(run('{{ range .none }}x{{ else }}empty{{ end }}', {}), 'empty');
  });
  it('errors as Go words them', () => {
    assert.throws(
      () => run('{{ Nope }}', {}),
      (e: unknown) => e instanceof TemplateError && (e as Error).message === 'template: t: function "Nope" not defined',
    );
    assert.throws(() => parseTemplate('t', '{{ if .a }}x'), /template: t: unexpected EOF/);
    assert.throws(() => parseTemplate('t', '{{ end }}'), /template: t: unexpected \{\{end\}\}/);
    assert.throws(() => parseTemplate('t', '{{ .a '), /template: t: unclosed action/);
  });
});

describe("kwok stages: kwok's pod-fast stages (test/fixtures/kwok-stages)", () => {
  const now = new Date('2026-01-01T00:00:05Z');
  const funcs = (p: ReturnType<typeof pod>) => podTemplateFuncs(p as never, { nodeIP: (n) => (n === 'kwok-node-0' ? '127.1.0.1' : undefined), podIP: () => '10.42.0.2' }, now);
  it('picks pod-ready for a bound pod without an IP, pod-complete for a Running Job pod, pod-delete once deleted', () => {
    assert.deepEqual(
      podFast.map((s) => [s.name, s.ref]),
      [
        ['pod-ready', 'v1/Pod'],
        ['pod-complete', 'v1/Pod'],
        ['pod-delete', 'v1/Pod'],
      ],
    );
    assert.equal(selectStage(podFast, pod())?.name, 'pod-ready');
    const running = pod({ status: { phase: 'Running', podIP: '10.42.0.2' } });
    assert.equal(selectStage(podFast, running), undefined);
    const job = { ...running, metadata: { ...running.metadata, ownerReferences: [{ kind: 'Job', name: 'j', uid: 'j1', apiVersion: 'batch/v1' }] } };
    assert.equal(selectStage(podFast, job)?.name, 'pod-complete');
    const deleting = { ...job, metadata: { ...job.metadata, deletionTimestamp: '2026-01-01T00:00:09Z' } };
    assert.equal(selectStage(podFast, deleting)?.name, 'pod-delete');
    assert.deepEqual(podFast[2]!.spec.next, { finalizers: { empty: true }, delete: true });
  });
  it("pod-ready renders kwok's Running status: conditions with the readiness gate, containers running, init completed, the sidecar running", () => {
    const p = pod();
    const status = parse(podFast[0]!.status!.execute(p, funcs(p)));
    const t = '2026-01-01T00:00:05Z';
    assert.deepEqual(status, {
      conditions: [
        { lastTransitionTime: t, status: 'True', type: 'Initialized' },
        { lastTransitionTime: t, status: 'True', type: 'Ready' },
        { lastTransitionTime: t, status: 'True', type: 'ContainersReady' },
        { lastTransitionTime: t, status: 'True', type: 'example.com/gate' },
      ],
      containerStatuses: [{ image: 'nginx', name: 'web', ready: true, restartCount: 0, state: { running: { startedAt: t } } }],
      initContainerStatuses: [
        { image: 'busybox', name: 'init', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, finishedAt: t, reason: 'Completed', startedAt: t } } },
        { image: 'envoy', name: 'sidecar', ready: true, restartCount: 0, started: true, state: { running: { startedAt: t } } },
      ],
      hostIP: '127.1.0.1',
      podIP: '10.42.0.2',
      phase: 'Running',
      startTime: t,
    });
    const host = pod({ spec: { ...pod().spec, hostNetwork: true } });
    assert.equal(parse(podFast[0]!.status!.execute(host, funcs(host))).podIP, '127.1.0.1');
  });
  it('pod-complete renders every container terminated Completed and phase Succeeded', () => {
    const p = pod({ status: { phase: 'Running', containerStatuses: [{ name: 'web' }] } });
    const status = parse(podFast[1]!.status!.execute(p, funcs(p)));
    assert.equal(status.phase, 'Succeeded');
    assert.deepEqual(status.containerStatuses[0].state.terminated, { exitCode: 0, finishedAt: '2026-01-01T00:00:05Z', reason: 'Completed', startedAt: '2026-01-01T00:00:05Z' });
  });
  it("node-heartbeat's delay: 20 s plus jitter up to 25 s", () => {
    const [hb] = loadStages(fixture('node-heartbeat.yaml'), 'node-heartbeat.yaml');
    assert.equal(hb!.ref, 'v1/Node');
    assert.equal(
      hb!.delayMs({}, 0, () => 0),
      20_000,
    );
    assert.equal(
      hb!.delayMs({}, 0, () => 0.999_999),
      24_999,
    );
    const node = { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
    assert.ok(hb!.matches(node));
    assert.ok(!hb!.matches({ status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } }));
  });
  it('matchLabels, matchAnnotations, durationFrom, weights', () => {
    const s = (name: string, weight: number) =>
      compileStage({
        apiVersion: 'kwok.x-k8s.io/v1alpha1',
        kind: 'Stage',
        metadata: { name },
        spec: {
          resourceRef: { apiGroup: 'v1', kind: 'Pod' },
          selector: { matchLabels: { app: 'a' }, matchAnnotations: { slow: 'yes' } },
          weight,
          delay: { durationFrom: { expressionFrom: '.metadata.deletionTimestamp' } },
          next: { delete: true },
        },
      });
    const a = s('a', 1);
    const b = s('b', 3);
    const obj = { metadata: { labels: { app: 'a' }, annotations: { slow: 'yes' }, deletionTimestamp: '2026-01-01T00:00:30Z' } };
    assert.ok(a.matches(obj));
    assert.ok(!a.matches({ metadata: { labels: { app: 'a' } } }));
    assert.equal(a.delayMs(obj, Date.parse('2026-01-01T00:00:10Z')), 20_000);
    assert.equal(selectStage([a, b], obj, () => 0.1)?.name, 'a');
    assert.equal(selectStage([a, b], obj, () => 0.5)?.name, 'b');
  });
  it('refuses invalid stages naming the field', () => {
    const base: StageObject = { apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'Stage', metadata: { name: 'x' }, spec: { resourceRef: { kind: 'Pod' }, next: {} } };
    assert.throws(
      () => compileStage({ ...base, spec: { ...base.spec, selector: { matchExpressions: [{ key: '.a', operator: 'Bogus' as never }] } } }),
      (e: unknown) =>
        e instanceof StageError &&
        (e as Error).message === 'Stage "x": spec.selector.matchExpressions[0].operator: Unsupported value: "Bogus": supported values: "DoesNotExist", "Exists", "In", "NotIn"',
    );
    assert.throws(
      () => compileStage({ ...base, spec: { ...base.spec, next: { statusTemplate: '{{ if }}' } } }),
      /Stage "x": spec.next.statusTemplate: template: x: missing value for command/,
    );
    assert.throws(
      () => loadStages('apiVersion: kwok.x-k8s.io/v1\nkind: Stage\nmetadata: {name: y}\n', 'f.yaml'),
      /f.yaml: Stage y: apiVersion must be kwok.x-k8s.io\/v1alpha1, not kwok.x-k8s.io\/v1/,
    );
  });
});
