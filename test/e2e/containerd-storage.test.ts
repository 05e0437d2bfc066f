/**
 * Persistent volumes on real containers: the real `k8ts server` with a kubelet on a
 * private containerd (test/support/containerd.ts), whose node agent runs the
 * `k8ts csi-hostpath` driver process publishing with bind mounts. A file one pod
 * writes into its claim is read by the next pod using the claim, which is grown while
 * that pod runs (the kubelet's NodeExpandVolume, as on the simulated runtime); deleting
 * the claim unmounts and deletes the volume.
 *
 * Needs root, containerd, runc, CNI plugins, docker-registry, umoci (scripts/install-deps.sh).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publishTestImages } from '../support/images.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestContainerd, type TestContainerd } from '../support/containerd.js';
import { unmountUnder } from '../support/tmp.js';
import { eventually, startCluster, type Cluster } from './harness.js';

const pod = (name: string, cmd: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: busybox:1.36
    command: [sh, -c, '${cmd}']
    volumeMounts:
    - {name: data, mountPath: /data}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: shared}
`;

/** Mount points at or below `dir` (this process shares the host's mount namespace). */
function mountsUnder(dir: string): string[] {
  return fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((m) => m === dir || m.startsWith(`${dir}/`));
}

describe('e2e: a claim carries data from one pod to the next on containerd', { timeout: 300_000 }, () => {
  let registry: TestRegistry | undefined;
  let ctrd: TestContainerd | undefined;
  let c: Cluster | undefined;
  let cfgDir: string | undefined;
  const kubectl = (...args: string[]): string => {
    const r = c!.kubectl(args, { timeoutMs: 150_000 });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const apply = (yaml: string): void => {
    const r = c!.kubectl(['apply', '-f', '-'], { input: yaml });
    assert.equal(r.code, 0, r.stderr);
  };
  const phase = (name: string): string => JSON.parse(kubectl('get', 'pod', name, '-o', 'json')).status?.phase ?? '';

  before(async () => {
    registry = await startRegistry();
    await publishTestImages(registry.host);
    ctrd = await startTestContainerd({ mirror: registry.host });
    // --disable-kube-proxy: this cluster's node is the host itself; its iptables and routes are not the test's to change
    // syncFrequency 3s: the kubelet checks mounted claims for expansion on each pod sync (1 min by default)
    cfgDir = fs.mkdtempSync(join(tmpdir(), 'k8ts-e2e-kcfg-'));
    const cfg = join(cfgDir, 'kubelet-config.yaml');
    fs.writeFileSync(cfg, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsyncFrequency: 3s\n');
    c = await startCluster({
      args: ['--runtime', 'remote', '--container-runtime-endpoint', ctrd.endpoint, '--cgroup-root', ctrd.cgroupParent, '--disable-kube-proxy', '--kubelet-config', cfg],
    });
  });

  after(async () => {
    try {
      c?.kubectl(['delete', 'pod', '--all', '--wait=false']);
      if (c) unmountUnder(c.dir);
      await c?.stop();
    } finally {
      await ctrd?.stop();
      await registry?.stop();
      if (cfgDir) fs.rmSync(cfgDir, { recursive: true, force: true });
    }
  });

  it('the writer’s file is read by the reader; the volume is a bind mount and goes with the claim', async () => {
    apply(`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: shared
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 64Mi}
`);
    apply(pod('writer', 'echo written-by-writer > /data/msg && sleep 3600'));
    await eventually(() => phase('writer') === 'Running' || undefined, 120_000);
    const pvc = JSON.parse(kubectl('get', 'pvc', 'shared', '-o', 'json'));
    assert.equal(pvc.status.phase, 'Bound');
    const pv = JSON.parse(kubectl('get', 'pv', pvc.spec.volumeName, '-o', 'json'));
    const volDir = join(c!.dir, 'storage', pv.spec.csi.volumeHandle);
    await eventually(() => (fs.existsSync(join(volDir, 'msg')) ? true : undefined), 30_000);
    assert.equal(fs.readFileSync(join(volDir, 'msg'), 'utf8'), 'written-by-writer\n');
    const uid = JSON.parse(kubectl('get', 'pod', 'writer', '-o', 'json')).metadata.uid as string;
    const target = join(c!.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', pvc.spec.volumeName, 'mount');
    assert.ok(mountsUnder(target).includes(target), `${target} is a mount point`);

    kubectl('delete', 'pod', 'writer');
    assert.deepEqual(mountsUnder(join(c!.dir, 'kubelet', 'pods', uid)), [], 'unpublished');
    apply(pod('reader', 'cat /data/msg; sleep 3600'));
    await eventually(() => phase('reader') === 'Running' || undefined, 120_000);
    const out = await eventually(() => c!.kubectl(['logs', 'reader']).stdout || undefined, 30_000);
    assert.equal(out, 'written-by-writer\n');
    assert.equal(kubectl('exec', 'reader', '--', 'cat', '/data/msg'), 'written-by-writer\n');

    // grown while the reader runs: the kubelet's NodeExpandVolume on the bind-mounted volume
    kubectl('patch', 'pvc', 'shared', '-p', '{"spec":{"resources":{"requests":{"storage":"96Mi"}}}}');
    await eventually(() => JSON.parse(kubectl('get', 'pvc', 'shared', '-o', 'json')).status?.capacity?.storage === '96Mi' || undefined, 90_000);
    const evs = JSON.parse(kubectl('get', 'events', '--field-selector', 'involvedObject.kind=Pod,involvedObject.name=reader', '-o', 'json')).items as {
      reason: string;
      message: string;
    }[];
    assert.ok(
      evs.some((e) => e.reason === 'FileSystemResizeSuccessful' && e.message === `MountVolume.NodeExpandVolume succeeded for volume "${pvc.spec.volumeName}" e2e-node`),
      JSON.stringify(evs.map((e) => e.reason)),
    );
    assert.equal(kubectl('exec', 'reader', '--', 'cat', '/data/msg'), 'written-by-writer\n', 'still mounted');

    kubectl('delete', 'pod', 'reader');
    kubectl('delete', 'pvc', 'shared');
    await eventually(() => (c!.kubectl(['get', 'pv', pvc.spec.volumeName]).code !== 0 ? true : undefined), 30_000);
    assert.equal(fs.existsSync(volDir), false);
    assert.deepEqual(mountsUnder(join(c!.dir, 'kubelet')), []);
  });
});
