import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { R } from '../client/types.js';
import { NODE, newHarness, type Harness } from './testing/harness.js';

const manifest = (image: string) => `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: web
    image: ${image}
`;

const NAME = `web-${NODE}`;

async function sandboxes(h: Harness): Promise<string[]> {
  return (await h.runtime.listPodSandbox()).filter((s) => s.state === 'SANDBOX_READY').map((s) => s.metadata.uid);
}

async function untilAsync(h: Harness, cond: () => Promise<boolean> | boolean, maxMs = 30_000): Promise<void> {
  for (let t = 0; t <= maxMs; t += 100) {
    if (await cond()) return;
    await h.clock.advance(100);
  }
  assert.fail(`condition not reached within ${maxMs} ms of fake time`);
}

describe('static pods (--pod-manifest-path)', () => {
  test('run from the file with a mirror pod; a deleted mirror pod comes back; an edit replaces the pod; removing the file removes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-static-'));
    const file = join(dir, 'web.yaml');
    writeFileSync(file, manifest('nginx:1.14.2'));
    writeFileSync(join(dir, '.hidden.yaml'), manifest('ignored:1'));
    const h = await newHarness({ staticPodPath: dir });
    try {
      const kp = () => h.kubelet.kubelet.knownPods().filter((p) => p.metadata?.name === NAME);
      assert.equal(kp().length, 1, 'the static pod is known at start (from the file, not the API)');
      const staticUID = kp()[0]!.metadata!.uid!;
      assert.match(staticUID, /^[0-9a-f]{32}$/, 'the UID is an md5 hash');
      await untilAsync(h, async () => (await sandboxes(h)).includes(staticUID));

      await h.until(() => h.pod(NAME)?.status?.phase === 'Running');
      const mirror = h.pod(NAME)!;
      const node = h.client.peek<Node & KObject>(R.nodes, '', NODE)!;
      const a = mirror.metadata!.annotations!;
      assert.equal(a['kubernetes.io/config.mirror'], staticUID);
      assert.equal(a['kubernetes.io/config.hash'], staticUID);
      assert.equal(a['kubernetes.io/config.source'], 'file');
      assert.match(a['kubernetes.io/config.seen']!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
      assert.notEqual(mirror.metadata!.uid, staticUID, 'the API gives the mirror pod its own UID');
      assert.deepEqual(mirror.metadata!.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: node.metadata!.uid, controller: true }]);
      assert.equal(mirror.spec!.nodeName, NODE);
      assert.deepEqual(mirror.spec!.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
      assert.equal(mirror.metadata!.labels!.app, 'web');
      assert.equal(h.pod('web-hidden'), undefined);

      // a deleted mirror pod is deleted at once by the kubelet and created again; the pod itself keeps running
      const firstMirrorUID = mirror.metadata!.uid;
      const containerIds = (await h.runtime.listContainers()).map((c) => c.id);
      await h.client.delete(R.pods, 'default', NAME);
      await h.until(() => !!h.pod(NAME) && h.pod(NAME)!.metadata!.uid !== firstMirrorUID && !h.pod(NAME)!.metadata!.deletionTimestamp);
      await h.until(() => h.pod(NAME)?.status?.phase === 'Running', 10_000);
      assert.deepEqual(
        (await h.runtime.listContainers()).map((c) => c.id),
        containerIds,
        'the containers were not restarted',
      );

      // editing the file: a new hash, the old pod stopped, a new one started, the mirror pod replaced
      writeFileSync(file, manifest('nginx:1.15'));
      await untilAsync(h, async () => {
        const s = await sandboxes(h);
        return !s.includes(staticUID) && s.length === 1;
      });
      const newUID = (await sandboxes(h))[0]!;
      assert.notEqual(newUID, staticUID);
      await h.until(() => h.pod(NAME)?.metadata?.annotations?.['kubernetes.io/config.mirror'] === newUID && h.pod(NAME)?.status?.phase === 'Running');
      assert.equal(h.pod(NAME)!.spec!.containers[0]!.image, 'nginx:1.15');

      // removing the file: the pod stops and the mirror pod goes
      unlinkSync(file);
      await untilAsync(h, async () => (await sandboxes(h)).length === 0 && !h.pod(NAME));
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a file replaced by another of the same pod name: the new pod starts once the old one has stopped, the mirror pod is replaced', async () => {
    // the container ignores SIGTERM, so the old pod takes its kill grace period (fake time: the default 30 s) to stop
    const stubborn = (tag: string) => `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {version: v${tag}}
spec:
  containers:
  - name: web
    image: busybox
    command: [sh, -c, "trap '' TERM; sleep 3600"]
`;
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-static-'));
    writeFileSync(join(dir, 'web.yaml'), stubborn('1'));
    const h = await newHarness({ staticPodPath: dir, start: false });
    const calls: string[] = [];
    const run = h.runtime.runPodSandbox.bind(h.runtime);
    const stop = h.runtime.stopPodSandbox.bind(h.runtime);
    h.runtime.runPodSandbox = (config, handler) => (calls.push(`run ${config.metadata.uid}`), run(config, handler));
    h.runtime.stopPodSandbox = async (id) => {
      const uid = (await h.runtime.listPodSandbox()).find((s) => s.id === id)?.metadata.uid;
      calls.push(`stop ${uid}`);
      return stop(id);
    };
    await h.start();
    try {
      const oldUID = h.kubelet.kubelet.knownPods()[0]!.metadata!.uid!;
      await h.until(() => h.pod(NAME)?.status?.phase === 'Running');
      const oldMirror = h.pod(NAME)!.metadata!.uid;
      // another file with the same pod name takes the place of the first (rename over it)
      writeFileSync(join(dir, '.web.yaml.new'), stubborn('2'));
      renameSync(join(dir, '.web.yaml.new'), join(dir, 'web.yaml'));
      await untilAsync(
        h,
        async () => {
          const s = await sandboxes(h);
          return s.length === 1 && s[0] !== oldUID;
        },
        60_000,
      );
      const newUID = (await sandboxes(h))[0]!;
      assert.ok(calls.includes(`stop ${oldUID}`), calls.join('; '));
      assert.ok(calls.indexOf(`run ${newUID}`) > calls.lastIndexOf(`stop ${oldUID}`), `the new pod started after the old one stopped: ${calls.join('; ')}`);
      await h.until(() => h.pod(NAME)?.metadata?.annotations?.['kubernetes.io/config.mirror'] === newUID && h.pod(NAME)?.status?.phase === 'Running');
      assert.notEqual(h.pod(NAME)!.metadata!.uid, oldMirror, 'a new mirror pod');
      assert.equal(h.pod(NAME)!.metadata!.labels!.version, 'v2');
      assert.deepEqual(
        h.kubelet.kubelet.knownPods().map((p) => p.metadata!.uid),
        [newUID],
      );
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a removed file's pod is stopped with its own terminationGracePeriodSeconds", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-static-'));
    const file = join(dir, 'web.yaml');
    // the container ignores SIGTERM: stopping it takes the whole grace period (fake time)
    writeFileSync(
      file,
      `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  terminationGracePeriodSeconds: 7
  containers:
  - name: web
    image: busybox
    command: [sh, -c, "trap '' TERM; sleep 3600"]
`,
    );
    const h = await newHarness({ staticPodPath: dir, start: false });
    const stops: { timeout: number; tookMs: number }[] = [];
    const stop = h.runtime.stopContainer.bind(h.runtime);
    h.runtime.stopContainer = async (id, timeout) => {
      const t0 = h.clock.now();
      await stop(id, timeout);
      stops.push({ timeout, tookMs: h.clock.now() - t0 });
    };
    await h.start();
    try {
      await h.until(() => h.pod(NAME)?.status?.phase === 'Running');
      unlinkSync(file);
      await untilAsync(h, async () => (await sandboxes(h)).length === 0 && !h.pod(NAME));
      const web = stops.filter((s) => s.timeout > 0);
      assert.equal(web.length, 1, JSON.stringify(stops));
      assert.equal(web[0]!.timeout, 7, "the pod's own grace period, not a fixed one");
      assert.ok(web[0]!.tookMs >= 7000, `the container got its 7 s: ${web[0]!.tookMs} ms`);
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a mirror pod whose static pod is gone is deleted; mirror pods are never run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-static-'));
    const h = await newHarness({ staticPodPath: dir });
    try {
      const node = h.client.peek<Node & KObject>(R.nodes, '', NODE)!;
      const orphan: Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `old-${NODE}`,
          namespace: 'default',
          annotations: { 'kubernetes.io/config.mirror': 'abc', 'kubernetes.io/config.hash': 'abc', 'kubernetes.io/config.source': 'file' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: node.metadata!.uid!, controller: true }],
        },
        spec: { nodeName: NODE, containers: [{ name: 'c', image: 'busybox' }] },
      };
      await h.client.create(R.pods, 'default', orphan as KObject);
      await h.until(() => !h.pod(`old-${NODE}`));
      assert.deepEqual(await sandboxes(h), [], 'nothing was started for it');
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
