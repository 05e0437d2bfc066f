/**
 * Static pods: the kubelet of `k8ts server --pod-manifest-path <dir>` (or `staticPodPath` in
 * `--kubelet-config`) runs the pods of the files in <dir> and shows them in the API as
 * mirror pods `<name>-<node>`; the real kubectl sees, deletes and tries to edit them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually, startCluster, type Cluster } from './harness.js';

const manifest = (image: string) => `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {tier: static}
spec:
  containers:
  - name: web
    image: ${image}
`;

const NAME = 'web-e2e-node';

interface PodJSON {
  metadata: { uid: string; annotations?: Record<string, string>; ownerReferences?: unknown[]; deletionTimestamp?: string };
  spec: { nodeName: string; containers: { image: string }[] };
  status: { phase?: string; containerStatuses?: { image: string; ready: boolean; restartCount: number }[] };
}

function getPod(c: Cluster, name = NAME, ns = 'default'): PodJSON | undefined {
  const r = c.kubectl(['get', 'pod', name, '-n', ns, '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as PodJSON) : undefined;
}

describe('static pods from --pod-manifest-path', { timeout: 180_000 }, () => {
  let c: Cluster;
  let top: string;
  let manifests: string;

  before(async () => {
    top = mkdtempSync(join(tmpdir(), 'k8ts-e2e-static-'));
    manifests = join(top, 'manifests');
    mkdirSync(manifests);
    writeFileSync(join(manifests, 'web.yaml'), manifest('nginx:1.14.2'));
    c = await startCluster({ args: ['--pod-manifest-path', manifests] });
  });
  after(async () => {
    await c?.stop();
    rmSync(top, { recursive: true, force: true });
  });

  it('runs the pod and shows its mirror pod with the config annotations and a Node owner', async () => {
    const p = await eventually(() => {
      const x = getPod(c);
      return x?.status.phase === 'Running' ? x : undefined;
    }, 30_000);
    const a = p.metadata.annotations!;
    assert.match(a['kubernetes.io/config.hash']!, /^[0-9a-f]{32}$/);
    assert.equal(a['kubernetes.io/config.mirror'], a['kubernetes.io/config.hash']);
    assert.equal(a['kubernetes.io/config.source'], 'file');
    assert.ok(a['kubernetes.io/config.seen']);
    const nodeUID = c.kubectl(['get', 'node', 'e2e-node', '-o', 'jsonpath={.metadata.uid}']).stdout;
    assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'e2e-node', uid: nodeUID, controller: true }]);
    assert.equal(p.spec.nodeName, 'e2e-node');
    const wide = c.kubectl(['get', 'pods', '-l', 'tier=static', '--no-headers']);
    assert.match(wide.stdout, new RegExp(`^${NAME}\\s+1/1\\s+Running\\s+0\\s`));
  });

  it('a deleted mirror pod is created again while the pod keeps running', async () => {
    const before = getPod(c)!;
    const r = c.kubectl(['delete', 'pod', NAME, '--timeout=30s']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `pod "${NAME}" deleted`);
    const again = await eventually(() => {
      const x = getPod(c);
      return x && x.metadata.uid !== before.metadata.uid && x.status.phase === 'Running' ? x : undefined;
    }, 30_000);
    assert.equal(again.metadata.annotations!['kubernetes.io/config.mirror'], before.metadata.annotations!['kubernetes.io/config.mirror']);
    assert.equal(again.status.containerStatuses?.[0]?.restartCount, 0, 'the container was not restarted');
  });

  it('an edited mirror pod is not trusted: its mirror annotation is immutable and spec edits do not reach what runs', async () => {
    const forged = c.kubectl(['annotate', 'pod', NAME, 'kubernetes.io/config.mirror=forged', '--overwrite']);
    assert.notEqual(forged.code, 0);
    assert.match(forged.stderr, /metadata\.annotations\[kubernetes\.io\/config\.mirror\]: Forbidden: may not remove or update mirror pod annotation/);
    const set = c.kubectl(['set', 'image', `pod/${NAME}`, 'web=evil:1']);
    assert.equal(set.code, 0, set.stderr);
    // the kubelet keeps running the file's pod; its next status still reports the file's image
    const uid = getPod(c)!.metadata.uid;
    c.kubectl(['annotate', 'pod', NAME, 'probe=1']);
    await eventually(() => getPod(c)?.metadata.uid === uid, 10_000);
    const p = getPod(c)!;
    assert.equal(p.spec.containers[0]!.image, 'evil:1');
    assert.match(p.status.containerStatuses?.[0]?.image ?? '', /(^|\/)nginx:1\.14\.2$/);
  });

  it('editing the file replaces the pod; removing the file removes it', async () => {
    const old = getPod(c)!;
    writeFileSync(join(manifests, 'web.yaml'), manifest('nginx:1.27'));
    const p = await eventually(() => {
      const x = getPod(c);
      return x && x.metadata.annotations?.['kubernetes.io/config.mirror'] !== old.metadata.annotations?.['kubernetes.io/config.mirror'] && x.status.phase === 'Running'
        ? x
        : undefined;
    }, 30_000);
    assert.equal(p.spec.containers[0]!.image, 'nginx:1.27');
    assert.equal(p.metadata.annotations!['kubernetes.io/config.hash'], p.metadata.annotations!['kubernetes.io/config.mirror']);
    unlinkSync(join(manifests, 'web.yaml'));
    await eventually(() => c.kubectl(['get', 'pod', NAME]).stderr.includes(`pods "${NAME}" not found`), 30_000);
  });
});

describe('static pods from staticPodPath in --kubelet-config', { timeout: 120_000 }, () => {
  let c: Cluster;
  let top: string;
  before(async () => {
    top = mkdtempSync(join(tmpdir(), 'k8ts-e2e-kcfg-'));
    mkdirSync(join(top, 'pods'));
    writeFileSync(join(top, 'pods', 'web.yaml'), manifest('nginx:1.14.2'));
    writeFileSync(join(top, 'kubelet.yaml'), 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: pods\nfileCheckFrequency: 1s\n');
    c = await startCluster({ args: ['--kubelet-config', join(top, 'kubelet.yaml')] });
  });
  after(async () => {
    await c?.stop();
    rmSync(top, { recursive: true, force: true });
  });

  it('runs the pods of the configured directory', async () => {
    await eventually(() => getPod(c)?.status.phase === 'Running', 30_000);
  });
});
