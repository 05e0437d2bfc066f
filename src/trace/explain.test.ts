/**
 * explainStuck for the states the e2e tests cannot bring about cheaply on the simulated
 * runtime: a sandbox that cannot be created, scheduling gates, a Running pod that is not
 * Ready, and the finished and healthy pods it leaves alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import { explainStuck } from './explain.js';

const base = (spec: Pod['spec'], status: Pod['status']): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', uid: 'u1', creationTimestamp: '2026-12-01T10:00:00Z' },
  spec,
  status,
});
const ev = (reason: string, message: string, type = 'Warning', at = '2026-12-01T10:00:05Z'): Event => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: `p.${reason}` },
  involvedObject: { kind: 'Pod', name: 'p', namespace: 'default', uid: 'u1' },
  reason,
  message,
  type,
  count: 3,
  firstTimestamp: '2026-12-01T10:00:01Z',
  lastTimestamp: at,
});

describe('explainStuck', () => {
  it('a pod whose sandbox cannot be created: step 15 with the FailedCreatePodSandBox event', () => {
    const msg =
      'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "abc": plugin type="bridge" failed (add): failed to allocate for range 0: no IP addresses available in range set';
    const pod = base(
      { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] },
      { phase: 'Pending', containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] },
    );
    const x = explainStuck(pod, undefined, [ev('Scheduled', 'Successfully assigned default/p to n1', 'Normal'), ev('FailedCreatePodSandBox', msg)]);
    assert.equal(x?.step, 15);
    assert.equal(x?.reason, 'FailedCreatePodSandBox');
    assert.equal(x?.message, msg);
    assert.equal(x?.since, '2026-12-01T10:00:01Z');
    assert.deepEqual(x?.event, { type: 'Warning', reason: 'FailedCreatePodSandBox', message: msg, count: 3, lastTimestamp: '2026-12-01T10:00:05Z' });
  });

  it('a FailedMount takes precedence over a sandbox failure (volumes come first)', () => {
    const pod = base({ nodeName: 'n1', containers: [{ name: 'c' }] }, { phase: 'Pending' });
    const x = explainStuck(pod, undefined, [ev('FailedCreatePodSandBox', 'x'), ev('FailedMount', 'MountVolume.SetUp failed for volume "cfg" : configmap "missing" not found')]);
    assert.equal(x?.step, 14);
    assert.equal(x?.reason, 'FailedMount');
  });

  it('a gated pod: step 9 with the SchedulingGated condition and the gates', () => {
    const pod = base(
      { containers: [{ name: 'c' }], schedulingGates: [{ name: 'example.com/foo' }, { name: 'example.com/bar' }] },
      {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'SchedulingGated',
            message: 'Scheduling is blocked due to non-empty scheduling gates',
            lastTransitionTime: '2026-12-01T10:00:00Z',
          },
        ],
      },
    );
    const x = explainStuck(pod, undefined, []);
    assert.equal(x?.step, 9);
    assert.equal(x?.message, 'Scheduling is blocked due to non-empty scheduling gates');
    assert.equal(x?.hint, 'spec.schedulingGates: example.com/foo, example.com/bar');
  });

  it('a Running pod whose readiness probe fails: step 19 with the Ready condition and the Unhealthy event', () => {
    const pod = base(
      { nodeName: 'n1', containers: [{ name: 'c' }] },
      {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [c]', lastTransitionTime: '2026-12-01T10:00:02Z' }],
        containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { running: { startedAt: '2026-12-01T10:00:01Z' } } }],
      },
    );
    const x = explainStuck(pod, undefined, [ev('Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503')]);
    assert.equal(x?.step, 19);
    assert.equal(x?.reason, 'ContainersNotReady');
    assert.equal(x?.message, 'containers with unready status: [c]');
    assert.equal(x?.event?.message, 'Readiness probe failed: HTTP probe failed with statuscode: 503');
  });

  it('nothing to explain for a Running and Ready pod, nor for a finished one', () => {
    const ready = base({ nodeName: 'n1', containers: [{ name: 'c' }] }, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
    assert.equal(explainStuck(ready, undefined, []), undefined);
    assert.equal(explainStuck(base({ nodeName: 'n1', containers: [{ name: 'c' }] }, { phase: 'Succeeded' }), undefined, [ev('BackOff', 'x')]), undefined);
  });
});
