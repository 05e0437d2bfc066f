/**
 * kwok's own default pod stages driving pods on kwok-style nodes, through the real
 * kubectl: `k8ts server --kwok-nodes 2 --kwok-stages pod-ready.yaml --kwok-stages
 * pod-complete.yaml --kwok-stages pod-delete.yaml --kwok-stages node-heartbeat.yaml`
 * (kwok's published files, test/fixtures/kwok-stages). A Deployment's pods get
 * pod-ready's status (merged with the scheduler's PodScheduled condition), a Job's pod
 * completes, a deleted pod goes; the node Leases keep being renewed (the pool's cheap
 * renewal path): a new resourceVersion and a later renewTime.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { eventually, ROOT } from './harness.js';
import { expectLeaseRenewed, kwokCluster } from './kwok-scenario.js';

const STAGES = ['pod-ready.yaml', 'pod-complete.yaml', 'pod-delete.yaml', 'node-heartbeat.yaml'].flatMap((f) => ['--kwok-stages', join(ROOT, 'test/fixtures/kwok-stages', f)]);

describe('e2e: kwok Stage resources (--kwok-stages)', () => {
  const k = kwokCluster(['--kwok-nodes', '2', ...STAGES]);
  const ok = (args: string[]) => k.ok(args);

  it("a Deployment's pods get pod-ready's status: Running, IPs of their node, kwok's conditions merged with PodScheduled", async () => {
    ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    const rows = await eventually(() => {
      const out = ok([
        'get',
        'pods',
        '-l',
        'app=web',
        '-o',
        'jsonpath={range .items[*]}{.spec.nodeName} {.status.phase} {.status.podIP} {.status.hostIP} {.status.containerStatuses[0].ready} {range .status.conditions[*]}{.type}={.status},{end}{"\\n"}{end}',
      ]).trim();
      const lines = out ? out.split('\n') : [];
      return lines.length === 2 && lines.every((l) => l.includes(' Running ')) ? lines : undefined;
    }, 30_000);
    for (const r of rows) {
      const [node, , ip, hostIP, ready, conds] = r.split(' ');
      const i = Number(node!.replace('kwok-node-', ''));
      assert.match(ip!, new RegExp(`^10\\.42\\.${i}\\.\\d+$`), r);
      assert.equal(hostIP, `127.1.0.${i + 1}`);
      assert.equal(ready, 'true');
      assert.deepEqual(conds!.split(',').filter(Boolean).sort(), ['ContainersReady=True', 'Initialized=True', 'PodScheduled=True', 'Ready=True']);
    }
    assert.equal(ok(['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}']), '2');
  });

  it("a Job's pod completes through pod-complete; a deleted pod goes through pod-delete", async () => {
    ok(['create', 'job', 'once', '--image=busybox', '--', 'true']);
    await eventually(() => ok(['get', 'job', 'once', '-o', 'jsonpath={.status.conditions[?(@.type=="Complete")].status}']) === 'True', 30_000);
    const pod = ok(['get', 'pods', '-l', 'job-name=once', '-o', 'jsonpath={.items[0].status.phase} {.items[0].status.containerStatuses[0].state.terminated.reason}']);
    assert.equal(pod, 'Succeeded Completed');
    const name = ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}']);
    ok(['delete', 'pod', name, '--wait=true', '--timeout=30s']);
    assert.match(k.c.kubectl(['get', 'pod', name]).stderr, new RegExp(`pods "${name}" not found`));
  });

  it('node Leases are renewed: a new resourceVersion and a later renewTime', async () => {
    await expectLeaseRenewed(k, 'kwok-node-0');
    assert.equal(ok(['get', 'nodes', '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}']), 'True True');
  });
});
