import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { KObject } from '../api/resource.js';
import { R } from '../client/types.js';
import { BehaviorAnnotation } from '../cri/sim/behavior.js';
import { NODE, newHarness } from './testing/harness.js';

describe('kubelet on the simulated runtime', () => {
  test('registers the node with labels, capacity, conditions, nodeInfo and a lease', async () => {
    const h = await newHarness();
    try {
      const node = h.client.peek<Node & KObject>(R.nodes, '', NODE)!;
      assert.equal(node.metadata?.labels?.['kubernetes.io/hostname'], NODE);
      assert.equal(node.metadata?.labels?.['kubernetes.io/os'], 'linux');
      assert.equal(node.metadata?.labels?.['k8ts.io/runtime'], 'sim');
      assert.equal(node.spec?.podCIDR, '10.244.1.0/24');
      assert.deepEqual(node.spec?.podCIDRs, ['10.244.1.0/24']);
      assert.equal(node.status?.capacity?.cpu, '4');
      assert.equal(node.status?.capacity?.memory, '8388608Ki');
      assert.equal(node.status?.allocatable?.memory, '8286208Ki');
      assert.equal(node.status?.capacity?.pods, '110');
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
      assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['True', 'KubeletReady', 'kubelet is posting ready status']);
      const mem = node.status?.conditions?.find((c) => c.type === 'MemoryPressure');
      assert.deepEqual([mem?.status, mem?.reason, mem?.message], ['False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available']);
      assert.equal(node.status?.nodeInfo?.kubeletVersion, 'v1.32.0+k8ts');
      assert.equal(node.status?.nodeInfo?.containerRuntimeVersion, 'sim://0.1.0');
      assert.deepEqual(node.status?.addresses, [
        { type: 'InternalIP', address: '192.0.2.10' },
        { type: 'Hostname', address: NODE },
      ]);
      const lease = h.client.peek<Lease & KObject>(R.leases, 'kube-node-lease', NODE)!;
      assert.equal(lease.spec?.holderIdentity, NODE);
      assert.equal(lease.spec?.leaseDurationSeconds, 40);
      const firstRenew = lease.spec?.renewTime;
      await h.clock.advance(10_000);
      assert.notEqual(h.client.peek<Lease & KObject>(R.leases, 'kube-node-lease', NODE)!.spec?.renewTime, firstRenew, 'renewed after 10 s');
      const reasons = h.events(NODE).map((e) => e.reason);
      assert.deepEqual(reasons, ['Starting', 'NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeAllocatableEnforced', 'NodeReady']);
      assert.equal(h.events(NODE).find((e) => e.reason === 'NodeReady')?.message, `Node ${NODE} status is now: NodeReady`);
      // status is not rewritten when nothing changed
      const writes = () => h.client.calls.filter((c) => c.resource === 'nodes' && c.verb === 'patch').length;
      const before = writes();
      await h.clock.advance(30_000);
      assert.equal(writes(), before, 'no node status writes while unchanged');
    } finally {
      await h.close();
    }
  });

  test('a pod goes Pending → Running with upstream status and events', async () => {
    const h = await newHarness();
    try {
      await h.createPod({
        metadata: { name: 'nginx', annotations: { [BehaviorAnnotation]: JSON.stringify({ pull: { delayMs: 1203 } }) } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', imagePullPolicy: 'IfNotPresent', ports: [{ containerPort: 80 }] }] },
      });
      await h.clock.advance(100);
      const pending = h.pod('nginx')!;
      assert.equal(pending.status?.phase, 'Pending');
      assert.deepEqual(pending.status?.containerStatuses?.[0].state, { waiting: { reason: 'ContainerCreating' } });
      await h.until(() => h.pod('nginx')?.status?.phase === 'Running');
      const st = h.pod('nginx')!.status!;
      assert.deepEqual(
        st.conditions?.map((c) => [c.type, c.status]),
        [
          ['PodReadyToStartContainers', 'True'],
          ['Initialized', 'True'],
          ['Ready', 'True'],
          ['ContainersReady', 'True'],
          ['PodScheduled', 'True'],
        ],
      );
      assert.equal(st.conditions?.find((c) => c.type === 'PodScheduled')?.lastTransitionTime, '2025-01-01T00:00:00Z', 'kept');
      const cs = st.containerStatuses![0];
      assert.equal(cs.ready, true);
      assert.equal(cs.started, true);
      assert.equal(cs.restartCount, 0);
      assert.equal(cs.image, 'nginx:1.14.2');
      assert.match(cs.imageID!, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
      assert.match(cs.containerID!, /^sim:\/\/[0-9a-f]{64}$/);
      assert.ok(cs.state?.running?.startedAt);
      assert.equal(st.podIP, '10.244.1.2');
      assert.deepEqual(st.podIPs, [{ ip: '10.244.1.2' }]);
      assert.equal(st.hostIP, '192.0.2.10');
      assert.equal(st.qosClass, 'BestEffort');
      assert.ok(st.startTime);
      const ev = h.events('nginx');
      const size = (await h.runtime.imageStatus({ image: 'nginx:1.14.2' }))!.size;
      assert.deepEqual(
        ev.map((e) => [e.type, e.reason, e.message, e.fieldPath]),
        [
          ['Normal', 'Pulling', 'Pulling image "nginx:1.14.2"', 'spec.containers{nginx}'],
          ['Normal', 'Pulled', `Successfully pulled image "nginx:1.14.2" in 1.203s (1.203s including waiting). Image size: ${size} bytes.`, 'spec.containers{nginx}'],
          ['Normal', 'Created', 'Created container nginx', 'spec.containers{nginx}'],
          ['Normal', 'Started', 'Started container nginx', 'spec.containers{nginx}'],
        ],
      );
      // the sandbox carries the CRI labels, hostname, log directory and port mappings
      const [sb] = await h.runtime.listPodSandbox();
      assert.equal(sb.labels['io.kubernetes.pod.name'], 'nginx');
      assert.equal(sb.labels['io.kubernetes.pod.namespace'], 'default');
      const uid = h.pod('nginx')!.metadata!.uid!;
      assert.equal(sb.labels['io.kubernetes.pod.uid'], uid);
      assert.ok(existsSync(join(h.dataDir, 'kubelet', 'logs', `default_nginx_${uid}`, 'nginx', '0.log')));
      // steady state: no more writes
      const patches = () => h.client.calls.filter((c) => c.resource === 'pods' && c.verb === 'patch').length;
      const n = patches();
      await h.clock.advance(5000);
      assert.equal(patches(), n, 'no status writes when nothing changed');
      assert.equal((await h.runtime.listContainers()).length, 1, 'no duplicate containers');
    } finally {
      await h.close();
    }
  });
});
