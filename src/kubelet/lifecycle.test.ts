import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KObject } from '../api/resource.js';
import { R } from '../client/types.js';
import { parseCRILog } from '../cri/runtime-tests.js';
import { newHarness } from './testing/harness.js';

describe('kubelet pod lifecycle', () => {
  test('init containers run strictly in order before the app container', async () => {
    const h = await newHarness();
    try {
      await h.createPod({
        metadata: { name: 'init-demo' },
        spec: {
          initContainers: [
            { name: 'first', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 2'] },
            { name: 'second', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 1'] },
          ],
          containers: [{ name: 'app', image: 'nginx:1.25' }],
        },
      });
      await h.until(() => h.pod('init-demo')?.status?.initContainerStatuses?.[0]?.state?.running !== undefined);
      let st = h.pod('init-demo')!.status!;
      assert.equal(st.phase, 'Pending');
      assert.deepEqual(st.initContainerStatuses?.[1].state, { waiting: { reason: 'PodInitializing' } });
      assert.deepEqual(st.containerStatuses?.[0].state, { waiting: { reason: 'PodInitializing' } });
      const init = st.conditions?.find((c) => c.type === 'Initialized');
      assert.deepEqual([init?.status, init?.reason, init?.message], ['False', 'ContainersNotInitialized', 'containers with incomplete status: [first second]']);
      await h.until(() => h.pod('init-demo')?.status?.phase === 'Running');
      st = h.pod('init-demo')!.status!;
      assert.deepEqual(
        st.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.reason, s.state?.terminated?.exitCode, s.ready]),
        [
          ['first', 'Completed', 0, true],
          ['second', 'Completed', 0, true],
        ],
      );
      const started = h
        .events('init-demo')
        .filter((e) => e.reason === 'Started')
        .map((e) => e.message);
      assert.deepEqual(started, ['Started container first', 'Started container second', 'Started container app']);
      assert.equal(st.conditions?.find((c) => c.type === 'Initialized')?.status, 'True');
    } finally {
      await h.close();
    }
  });

  test('a sidecar (restartable init container) starts, then the app starts while it keeps running', async () => {
    const h = await newHarness();
    try {
      await h.createPod({
        metadata: { name: 'sidecar' },
        spec: {
          initContainers: [{ name: 'logshipper', image: 'alpine:3', restartPolicy: 'Always', command: ['sh', '-c', 'tail -F /opt/logs.txt'] }],
          containers: [{ name: 'myapp', image: 'alpine:3', command: ['sh', '-c', 'sleep 3600'] }],
        },
      });
      await h.until(() => h.pod('sidecar')?.status?.phase === 'Running');
      const st = h.pod('sidecar')!.status!;
      assert.equal(st.initContainerStatuses?.[0].started, true);
      assert.ok(st.initContainerStatuses?.[0].state?.running);
      assert.equal(st.initContainerStatuses?.[0].ready, true);
      assert.ok(st.containerStatuses?.[0].state?.running);
    } finally {
      await h.close();
    }
  });

  test('CrashLoopBackOff: 10 s then 20 s back-off, lastState, restartCount, BackOff event', async () => {
    const h = await newHarness();
    try {
      const pod = await h.createPod({ metadata: { name: 'crash' }, spec: { containers: [{ name: 'c', image: 'busybox:exit-1-after-1000ms' }] } });
      const uid = pod.metadata!.uid!;
      const cs = () => h.pod('crash')?.status?.containerStatuses?.[0];
      await h.until(() => cs()?.state?.waiting?.reason === 'CrashLoopBackOff', 15_000);
      let s = cs()!;
      assert.equal(s.restartCount, 1);
      assert.equal(s.state?.waiting?.message, `back-off 10s restarting failed container=c pod=crash_default(${uid})`);
      assert.equal(s.lastState?.terminated?.exitCode, 1);
      assert.equal(s.lastState?.terminated?.reason, 'Error');
      assert.equal(s.ready, false);
      assert.equal(h.pod('crash')!.status!.phase, 'Running');
      const bo = h.events('crash').find((e) => e.reason === 'BackOff');
      assert.equal(bo?.message, `Back-off restarting failed container c in pod crash_default(${uid})`);
      assert.equal(bo?.type, 'Warning');
      const t0 = h.clock.now();
      await h.until(() => cs()?.restartCount === 2, 15_000);
      const waited = h.clock.now() - t0;
      assert.ok(waited >= 8_000 && waited <= 11_000, `restarted after the 10 s back-off (${waited} ms)`);
      await h.until(() => cs()?.state?.waiting?.reason === 'CrashLoopBackOff', 5_000);
      s = cs()!;
      assert.equal(s.state?.waiting?.message, `back-off 20s restarting failed container=c pod=crash_default(${uid})`);
      // one container per attempt; garbage collection keeps the newest exited one (MaxPerPodContainer 1)
      const left = await h.runtime.listContainers();
      assert.deepEqual(
        left.map((c) => [c.state, c.annotations['io.kubernetes.container.restartCount']]),
        [['CONTAINER_EXITED', '2']],
      );
    } finally {
      await h.close();
    }
  });

  test('restartPolicy Never: an exiting container ends the pod Failed; OnFailure exit 0 → Succeeded', async () => {
    const h = await newHarness();
    try {
      await h.createPod({ metadata: { name: 'never' }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:exit-2-after-500ms' }] } });
      await h.createPod({ metadata: { name: 'ok' }, spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox:exit-0-after-500ms' }] } });
      await h.until(() => h.pod('never')?.status?.phase === 'Failed' && h.pod('ok')?.status?.phase === 'Succeeded');
      const n = h.pod('never')!.status!;
      assert.deepEqual([n.containerStatuses?.[0].state?.terminated?.exitCode, n.containerStatuses?.[0].restartCount], [2, 0]);
      const ready = n.conditions?.find((c) => c.type === 'Ready');
      assert.deepEqual([ready?.status, ready?.reason], ['False', 'PodFailed']);
      const ok = h.pod('ok')!.status!;
      assert.equal(ok.conditions?.find((c) => c.type === 'ContainersReady')?.reason, 'PodCompleted');
      await h.clock.advance(15_000);
      assert.equal(h.pod('never')!.status!.containerStatuses?.[0].restartCount, 0, 'never restarted');
      assert.equal((await h.runtime.listPodSandbox({ state: 'SANDBOX_READY' })).length, 0, 'sandboxes of finished pods are stopped');
    } finally {
      await h.close();
    }
  });

  test('image pull failure: ErrImagePull then ImagePullBackOff with upstream events; Never policy → ErrImageNeverPull', async () => {
    const h = await newHarness();
    try {
      await h.createPod({ metadata: { name: 'bad' }, spec: { containers: [{ name: 'c', image: 'nginx:fail-pull', imagePullPolicy: 'IfNotPresent' }] } });
      await h.createPod({ metadata: { name: 'never' }, spec: { containers: [{ name: 'c', image: 'nginx:absent', imagePullPolicy: 'Never' }] } });
      await h.createPod({ metadata: { name: 'invalid' }, spec: { containers: [{ name: 'c', image: 'Nginx:1', imagePullPolicy: 'IfNotPresent' }] } });
      const cs = (n: string) => h.pod(n)?.status?.containerStatuses?.[0];
      await h.until(() => cs('bad')?.state?.waiting?.reason === 'ErrImagePull');
      const desc =
        'failed to pull and unpack image "docker.io/library/nginx:fail-pull": failed to resolve reference "docker.io/library/nginx:fail-pull": docker.io/library/nginx:fail-pull: not found';
      assert.equal(cs('bad')!.state!.waiting!.message, `rpc error: code = NotFound desc = ${desc}`);
      await h.until(() => cs('bad')?.state?.waiting?.reason === 'ImagePullBackOff');
      assert.equal(cs('bad')!.state!.waiting!.message, 'Back-off pulling image "nginx:fail-pull"');
      const ev = h.events('bad').map((e) => [e.type, e.reason, e.message]);
      assert.deepEqual(ev.slice(0, 5), [
        ['Normal', 'Pulling', 'Pulling image "nginx:fail-pull"'],
        ['Warning', 'Failed', `Failed to pull image "nginx:fail-pull": rpc error: code = NotFound desc = ${desc}`],
        ['Warning', 'Failed', 'Error: ErrImagePull'],
        ['Normal', 'BackOff', 'Back-off pulling image "nginx:fail-pull"'],
        ['Warning', 'Failed', 'Error: ImagePullBackOff'],
      ]);
      assert.equal(cs('never')?.state?.waiting?.reason, 'ErrImageNeverPull');
      assert.equal(cs('never')?.state?.waiting?.message, 'Container image "nginx:absent" is not present with pull policy of Never');
      assert.equal(cs('invalid')?.state?.waiting?.reason, 'InvalidImageName');
      assert.equal(
        cs('invalid')?.state?.waiting?.message,
        'Failed to apply default image tag "Nginx:1": couldn\'t parse image name "Nginx:1": invalid reference format: repository name (library/Nginx) must be lowercase',
      );
      assert.equal(h.pod('bad')!.status!.phase, 'Pending');
      // the second pull attempt comes after the 10 s back-off
      const pulls = () => h.events('bad').find((e) => e.reason === 'Pulling')!.count;
      assert.equal(pulls(), 1);
      await h.clock.advance(10_500);
      assert.equal(pulls(), 2);
    } finally {
      await h.close();
    }
  });

  test('deletion: Killing event, graceful stop, sandbox removed, pod dirs removed, API object deleted with uid precondition', async () => {
    const h = await newHarness();
    try {
      const p = await h.createPod({
        metadata: { name: 'gone' },
        spec: { volumes: [{ name: 'scratch', emptyDir: {} }], containers: [{ name: 'nginx', image: 'nginx:1.25', volumeMounts: [{ name: 'scratch', mountPath: '/data' }] }] },
      });
      await h.until(() => h.pod('gone')?.status?.phase === 'Running');
      const podDir = join(h.dataDir, 'kubelet', 'pods', p.metadata!.uid!);
      assert.ok(existsSync(join(podDir, 'volumes', 'kubernetes.io~empty-dir', 'scratch')));
      await h.client.delete(R.pods, 'default', 'gone');
      await h.until(() => !h.pod('gone'));
      const del = h.client.calls.filter((c) => c.verb === 'delete' && c.resource === 'pods');
      assert.deepEqual(del.at(-1)?.body, { gracePeriodSeconds: 0, preconditions: { uid: p.metadata!.uid } });
      assert.deepEqual(
        h
          .events('gone')
          .filter((e) => e.reason === 'Killing')
          .map((e) => [e.message, e.fieldPath]),
        [['Stopping container nginx', 'spec.containers{nginx}']],
      );
      assert.deepEqual(await h.runtime.listPodSandbox(), []);
      assert.deepEqual(await h.runtime.listContainers(), []);
      assert.equal(existsSync(podDir), false);
    } finally {
      await h.close();
    }
  });

  test('adoption: a restarted kubelet finds running containers by CRI labels and creates nothing twice', async () => {
    const h = await newHarness();
    try {
      await h.createPod({ metadata: { name: 'keep' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } });
      await h.until(() => h.pod('keep')?.status?.phase === 'Running');
      const before = (await h.runtime.listContainers()).map((c) => c.id);
      await h.kubelet.stop();
      await h.start();
      await h.clock.advance(5_000);
      assert.deepEqual(
        (await h.runtime.listContainers()).map((c) => c.id),
        before,
      );
      assert.equal((await h.runtime.listPodSandbox()).length, 1);
      assert.equal(h.events('keep').filter((e) => e.reason === 'Created')[0].count, 1);
      const st = h.pod('keep')!.status!;
      assert.equal(st.phase, 'Running');
      assert.equal(st.containerStatuses?.[0].restartCount, 0);
    } finally {
      await h.close();
    }
  });

  test('pods removed from the API behind the kubelet get their sandboxes cleaned up', async () => {
    const h = await newHarness();
    try {
      await h.createPod({ metadata: { name: 'forced' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } });
      await h.until(() => h.pod('forced')?.status?.phase === 'Running');
      await h.client.delete(R.pods, 'default', 'forced', { gracePeriodSeconds: 0 });
      await h.until(() => h.runtime && true, 100);
      await h.clock.advance(5_000);
      assert.deepEqual(await h.runtime.listPodSandbox(), []);
      assert.deepEqual(await h.runtime.listContainers(), []);
    } finally {
      await h.close();
    }
  });

  test('configMap volume: FailedMount while missing (pod stays ContainerCreating), files once it exists', async () => {
    const h = await newHarness();
    try {
      await h.createPod({
        metadata: { name: 'cm' },
        spec: {
          restartPolicy: 'Never',
          volumes: [{ name: 'config-volume', configMap: { name: 'special-config' } }],
          containers: [
            { name: 'test-container', image: 'busybox', command: ['/bin/sh', '-c', 'ls /etc/config/'], volumeMounts: [{ name: 'config-volume', mountPath: '/etc/config' }] },
          ],
        },
      });
      await h.clock.advance(3_000);
      const fm = h.events('cm').find((e) => e.reason === 'FailedMount');
      assert.equal(fm?.type, 'Warning');
      assert.equal(fm?.message, 'MountVolume.SetUp failed for volume "config-volume" : configmap "special-config" not found');
      const st = h.pod('cm')!.status!;
      assert.equal(st.phase, 'Pending');
      assert.deepEqual(st.containerStatuses?.[0].state, { waiting: { reason: 'ContainerCreating' } });
      await h.client.create(R.configmaps, 'default', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'special-config' },
        data: { SPECIAL_LEVEL: 'very', SPECIAL_TYPE: 'charm' },
      } as KObject);
      await h.until(() => h.pod('cm')?.status?.phase === 'Succeeded', 200_000, 500);
      const cs = h.pod('cm')!.status!.containerStatuses![0];
      const uid = h.pod('cm')!.metadata!.uid!;
      const dir = join(h.dataDir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~configmap', 'config-volume');
      assert.equal(readFileSync(join(dir, 'SPECIAL_LEVEL'), 'utf8'), 'very');
      const logs = parseCRILog(readFileSync(join(h.dataDir, 'kubelet', 'logs', `default_cm_${uid}`, 'test-container', '0.log'), 'utf8'));
      assert.deepEqual(
        logs.map((l) => l.msg),
        ['SPECIAL_LEVEL', 'SPECIAL_TYPE'],
      );
      assert.equal(cs.state?.terminated?.reason, 'Completed');
    } finally {
      await h.close();
    }
  });
});
