import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EphemeralContainer, Pod } from 'kubernetes-types/core/v1.js';
import { R } from '../client/types.js';
import type { ContainerConfig } from '../cri/api.js';
import type { RuntimeContainerStatus, RuntimePodStatus } from './container/runtime.js';
import { computePodActions, type ProbeVerdicts } from './kuberuntime/pod-actions.js';
import { withTargetPidNamespace } from './kuberuntime/runtime-manager.js';
import { newHarness, type Harness } from './testing/harness.js';

const noProbes: ProbeVerdicts = { livenessFailed: () => false, startupFailed: () => false, started: () => true };

function rstatus(name: string, state: RuntimeContainerStatus['state'], sandboxId = 'sb1'): RuntimeContainerStatus {
  return {
    id: `id-${name}`,
    containerID: `sim://id-${name}`,
    name,
    sandboxId,
    state,
    createdAt: 1,
    startedAt: 1,
    finishedAt: state === 'exited' ? 2 : 0,
    exitCode: 0,
    reason: '',
    message: '',
    image: 'busybox',
    imageRef: 'sha256:x',
    restartCount: 0,
    hash: '',
  };
}

function podStatus(ready: boolean, containers: RuntimeContainerStatus[]): RuntimePodStatus {
  return { uid: 'u1', name: 'p', namespace: 'default', sandboxes: [{ id: 'sb1', ready, attempt: 0, createdAt: 1, ips: ['10.0.0.2'] }], containers, ips: ['10.0.0.2'] };
}

const debugPod = (extra: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }], ...extra },
});

describe('computePodActions: ephemeral containers', () => {
  test('start in a ready sandbox, even before init containers are done', () => {
    const pod = debugPod({ initContainers: [{ name: 'init', image: 'busybox' }] });
    const a = computePodActions(pod, podStatus(true, [rstatus('init', 'running')]), noProbes);
    assert.deepEqual(
      a.ephemeralToStart.map((c) => c.name),
      ['dbg'],
    );
    assert.deepEqual(a.initToStart, []);
  });

  test('never while the sandbox is (re)created', () => {
    const a = computePodActions(debugPod(), podStatus(false, [rstatus('app', 'exited')]), noProbes);
    assert.equal(a.createSandbox, true);
    assert.deepEqual(a.ephemeralToStart, []);
  });

  test('never restarted: one with any runtime status (even exited) is done', () => {
    const a = computePodActions(debugPod(), podStatus(true, [rstatus('dbg', 'exited'), rstatus('app', 'running')]), noProbes);
    assert.deepEqual(a.ephemeralToStart, []);
    assert.deepEqual(a.containersToStart, []);
    assert.equal(a.killPod, false);
  });

  test('withTargetPidNamespace sets pid TARGET and the target ID, keeping the pod namespaces', () => {
    const cfg = { linux: { securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } } } as ContainerConfig;
    withTargetPidNamespace(cfg, 'abc123');
    assert.deepEqual(cfg.linux?.securityContext?.namespaceOptions, { network: 'POD', pid: 'TARGET', ipc: 'POD', targetId: 'abc123' });
  });
});

/** Adds ephemeral containers the way pods/ephemeralcontainers does (a spec change). */
async function addEphemeral(h: Harness, name: string, ecs: EphemeralContainer[]): Promise<void> {
  const full = ecs.map((e) => ({ terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent', ...e }));
  await h.client.patch(R.pods, 'default', name, 'merge', { spec: { ephemeralContainers: full } });
}

describe('kubelet: ephemeral containers (kubectl debug)', () => {
  test('a debug container runs once in the running pod: events, status, no restart, no effect on phase', async () => {
    const h = await newHarness();
    try {
      await h.createPod({ metadata: { name: 'web' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } });
      await h.until(() => h.pod('web')?.status?.phase === 'Running');
      await addEphemeral(h, 'web', [{ name: 'debugger', image: 'busybox:1.36', command: ['sh', '-c', 'echo hello-from-debug'] }]);
      await h.until(() => !!h.pod('web')?.status?.ephemeralContainerStatuses?.[0]?.state?.terminated);
      const st = h.pod('web')!.status!;
      const ec = st.ephemeralContainerStatuses![0];
      assert.equal(ec.name, 'debugger');
      assert.equal(ec.ready, false);
      assert.equal(ec.restartCount, 0);
      assert.equal(ec.image, 'busybox:1.36');
      assert.match(ec.imageID, /./);
      assert.match(ec.containerID ?? '', /^sim:\/\//);
      assert.equal(ec.started, undefined, 'never probed');
      assert.deepEqual([ec.state?.terminated?.reason, ec.state?.terminated?.exitCode], ['Completed', 0]);
      assert.equal(st.phase, 'Running');
      assert.equal(st.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
      assert.deepEqual(
        st.containerStatuses?.map((c) => c.name),
        ['nginx'],
      );
      const evs = h.events('web').filter((e) => e.fieldPath === 'spec.ephemeralContainers{debugger}');
      assert.deepEqual(
        evs.map((e) => e.reason),
        ['Pulling', 'Pulled', 'Created', 'Started'],
      );
      assert.equal(evs[0].message, 'Pulling image "busybox:1.36"');
      assert.equal(evs[2].message, 'Created container debugger');
      // 20 s of fake time later (resyncs, PLEG relists) it was never started again
      await assert.rejects(
        h.until(() => false, 20_000, 500),
        /condition not reached/,
      );
      assert.equal((await h.runtime.listContainers({ labelSelector: { 'io.kubernetes.container.name': 'debugger' } })).length, 1);
      assert.equal(h.events('web').filter((e) => e.fieldPath === 'spec.ephemeralContainers{debugger}' && e.reason === 'Started')[0].count, 1);
      assert.equal(h.pod('web')!.status!.ephemeralContainerStatuses![0].restartCount, 0);
    } finally {
      await h.close();
    }
  });

  test('--target joins the target PID namespace; stdin/tty reach the runtime; killing the pod kills it', async () => {
    const h = await newHarness();
    const configs: ContainerConfig[] = [];
    const create = h.runtime.createContainer.bind(h.runtime);
    h.runtime.createContainer = (sb, cfg, sbc) => {
      configs.push(cfg);
      return create(sb, cfg, sbc);
    };
    try {
      await h.createPod({ metadata: { name: 'web' }, spec: { terminationGracePeriodSeconds: 5, containers: [{ name: 'app', image: 'nginx:1.25' }] } });
      await h.until(() => h.pod('web')?.status?.phase === 'Running');
      const appID = h.pod('web')!.status!.containerStatuses![0].containerID!.replace(/^sim:\/\//, '');
      await addEphemeral(h, 'web', [{ name: 'dbg', image: 'busybox:1.36', command: ['sh'], stdin: true, tty: true, targetContainerName: 'app' }]);
      await h.until(() => !!h.pod('web')?.status?.ephemeralContainerStatuses?.[0]?.state?.running);
      const cfg = configs.find((c) => c.metadata.name === 'dbg')!;
      assert.deepEqual([cfg.stdin, cfg.tty], [true, true]);
      const ns = cfg.linux?.securityContext?.namespaceOptions as Record<string, string>;
      assert.deepEqual([ns.pid, ns.targetId], ['TARGET', appID]);
      assert.equal(configs.find((c) => c.metadata.name === 'app')?.linux?.securityContext?.namespaceOptions?.pid, 'CONTAINER');

      await h.client.delete(R.pods, 'default', 'web');
      await h.until(() => !h.pod('web'), 30_000);
      const killing = h
        .events('web')
        .filter((e) => e.reason === 'Killing')
        .map((e) => e.fieldPath);
      assert.deepEqual(killing.sort(), ['spec.containers{app}', 'spec.ephemeralContainers{dbg}']);
      assert.deepEqual(await h.runtime.listContainers(), []);
    } finally {
      await h.close();
    }
  });
});
