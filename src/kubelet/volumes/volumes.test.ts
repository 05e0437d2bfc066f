import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseQuantity } from '../../apimachinery/quantity.js';
import { makeTempDir } from '../../../test/support/tmp.js';
import { FakeClock } from '../../util/fake-clock.js';
import { setUpHostPath } from './host-path.js';
import { isMountPoint } from './mounts.js';
import { setVolumeOwnership } from './ownership.js';
import type { CSIVolumePlugin, SetUpInfo } from './csi/mounter.js';
import { emptyDirMemorySize, VolumeManager, VolumeError } from './volume-manager.js';

const isRoot = process.getuid?.() === 0;
const noDeps = {
  getConfigMap: async () => undefined,
  getSecret: async () => undefined,
  runtimeValues: { nodeName: 'n', hostIPs: [], podIPs: [] },
  alloc: { memory: parseQuantity('1Gi') },
};

test('hostPath types: OrCreate creates, the others check with upstream’s messages', async () => {
  const d = makeTempDir();
  try {
    const dir = join(d.path, 'a', 'b');
    assert.equal(setUpHostPath({ path: dir, type: 'DirectoryOrCreate' }), dir);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o755);
    const file = join(d.path, 'f.txt');
    setUpHostPath({ path: file, type: 'FileOrCreate' });
    assert.ok(fs.statSync(file).isFile());
    assert.throws(() => setUpHostPath({ path: join(d.path, 'nope', 'f'), type: 'FileOrCreate' }), /no such file or directory/);
    assert.throws(() => setUpHostPath({ path: file, type: 'Directory' }), new RegExp(`^Error: hostPath type check failed: ${file} is not a directory$`));
    assert.throws(() => setUpHostPath({ path: dir, type: 'File' }), /is not a file/);
    assert.throws(() => setUpHostPath({ path: join(d.path, 'missing'), type: 'Directory' }), /is not a directory/);
    assert.throws(() => setUpHostPath({ path: file, type: 'Socket' }), /is not a socket file/);
    assert.throws(() => setUpHostPath({ path: file, type: 'CharDevice' }), /is not a character device/);
    assert.equal(setUpHostPath({ path: '/dev/null', type: 'CharDevice' }), '/dev/null');
    assert.throws(() => setUpHostPath({ path: '/dev/null', type: 'BlockDevice' }), /is not a block device/);
    assert.equal(setUpHostPath({ path: join(d.path, 'anything') }), join(d.path, 'anything'), 'no type: not checked');
    const sock = join(d.path, 's.sock');
    const srv = net.createServer().listen(sock);
    await new Promise((r) => srv.once('listening', r));
    assert.equal(setUpHostPath({ path: sock, type: 'Socket' }), sock);
    srv.close();
  } finally {
    d.remove();
  }
});

test('fsGroup ownership: group, g+rw (g+r read-only), setgid directories, symlinks untouched', { skip: !isRoot && 'needs root (chown)' }, () => {
  const d = makeTempDir();
  try {
    const v = join(d.path, 'vol');
    fs.mkdirSync(join(v, 'sub'), { recursive: true, mode: 0o755 });
    fs.chmodSync(v, 0o755);
    fs.writeFileSync(join(v, 'sub', 'f'), 'x', { mode: 0o600 });
    fs.chmodSync(join(v, 'sub', 'f'), 0o600);
    fs.symlinkSync('sub/f', join(v, 'link'));
    setVolumeOwnership(v, 2000, false);
    assert.equal(fs.statSync(v).gid, 2000);
    assert.equal(fs.statSync(v).mode & 0o7777, 0o2775);
    assert.equal(fs.statSync(join(v, 'sub', 'f')).mode & 0o7777, 0o660);
    assert.equal(fs.lstatSync(join(v, 'link')).gid, 2000);
    const ro = join(d.path, 'ro');
    fs.mkdirSync(ro);
    fs.chmodSync(ro, 0o755);
    fs.writeFileSync(join(ro, 'k'), 'v', { mode: 0o644 });
    fs.chmodSync(join(ro, 'k'), 0o600);
    setVolumeOwnership(ro, 3000, true);
    assert.equal(fs.statSync(join(ro, 'k')).mode & 0o777, 0o640);
    assert.equal(fs.statSync(join(ro, 'k')).gid, 3000);
  } finally {
    d.remove();
  }
});

test('emptyDir medium Memory size: node allocatable, lowered by the pod memory limit and the sizeLimit', () => {
  const pod = (limit?: string): Pod => ({ metadata: { uid: 'u' }, spec: { containers: [{ name: 'c', ...(limit ? { resources: { limits: { memory: limit } } } : {}) }] } });
  const GI = 1 << 30;
  assert.equal(emptyDirMemorySize(pod(), { name: 'v', emptyDir: { medium: 'Memory' } }, GI), GI);
  assert.equal(emptyDirMemorySize(pod('100Mi'), { name: 'v', emptyDir: { medium: 'Memory' } }, GI), 100 * 2 ** 20);
  assert.equal(emptyDirMemorySize(pod('100Mi'), { name: 'v', emptyDir: { medium: 'Memory', sizeLimit: '10Mi' } }, GI), 10 * 2 ** 20);
  assert.equal(emptyDirMemorySize(pod(), { name: 'v', emptyDir: { medium: 'Memory', sizeLimit: '2Gi' } }, GI), GI, 'a sizeLimit above what the pod may use does not count');
});

test('volume manager: tmpfs emptyDir mounted with its size and unmounted on cleanup; hostPath errors are FailedMount', { skip: !isRoot && 'needs root (mount)' }, async () => {
  const d = makeTempDir();
  const clock = new FakeClock();
  const vm = new VolumeManager(d.path, clock, 60_000, true);
  const pod: Pod = {
    metadata: { uid: 'uid-1', namespace: 'default', name: 'p' },
    spec: {
      securityContext: { fsGroup: 2000 },
      containers: [{ name: 'c' }],
      volumes: [
        { name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '8Mi' } },
        { name: 'scratch', emptyDir: {} },
        { name: 'host', hostPath: { path: join(d.path, 'host', 'dir'), type: 'DirectoryOrCreate' } },
      ],
    },
  };
  try {
    const errs: VolumeError[] = [];
    const paths = await vm.mountPod(pod, noDeps, (e) => errs.push(e));
    assert.equal(errs.length, 0);
    const cache = paths.get('cache')!;
    assert.ok(isMountPoint(cache), 'medium Memory is a tmpfs');
    const mi = fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .find((l) => l.split(' ')[4] === cache)!;
    assert.match(mi, / - tmpfs tmpfs .*size=8192k/);
    assert.equal(fs.statSync(paths.get('scratch')!).mode & 0o7777, 0o2777, 'emptyDir 0777 plus setgid for fsGroup');
    assert.equal(fs.statSync(paths.get('scratch')!).gid, 2000);
    assert.ok(fs.statSync(paths.get('host')!).isDirectory());
    await vm.cleanupPod('uid-1');
    assert.ok(!isMountPoint(cache));
    assert.ok(!fs.existsSync(vm.podDir('uid-1')));

    const bad: Pod = {
      metadata: { uid: 'uid-2' },
      spec: { containers: [{ name: 'c' }], volumes: [{ name: 'h', hostPath: { path: join(d.path, 'no-such'), type: 'Directory' } }] },
    };
    await assert.rejects(
      vm.mountPod(bad, noDeps, (e) => errs.push(e)),
      VolumeError,
    );
    assert.equal(errs[0]!.volume, 'h');
    assert.match(errs[0]!.message, /hostPath type check failed: .*no-such is not a directory/);
  } finally {
    await vm.cleanupPod('uid-1').catch(() => undefined);
    d.remove();
  }
});

test('projected serviceAccountToken: requested as the source says, file mode as upstream (defaultMode, or 0600 owned by the FsUser)', async () => {
  const { volumePayload, fsUserFrom } = await import('./sources.js');
  const { tokenVolume } = await import('../../apiserver/admission/plugins/service-account.js');
  const asked: unknown[] = [];
  const deps = {
    ...noDeps,
    getConfigMap: async () => ({ data: { 'ca.crt': 'CA' } }),
    getServiceAccountToken: async (r: unknown) => (asked.push(r), 'jwt'),
  };
  const pod = (sc: Record<string, unknown> = {}, containers = [{ name: 'c' }]): Pod =>
    ({ metadata: { name: 'p', namespace: 'ns1', uid: 'u1' }, spec: { serviceAccountName: 'builder', securityContext: sc, containers } }) as Pod;
  const v = tokenVolume('kube-api-access-abcde');
  const out = (await volumePayload(pod(), v, deps))!;
  assert.deepEqual(asked, [{ namespace: 'ns1', serviceAccount: 'builder', audiences: [], expirationSeconds: 3607, pod: { name: 'p', uid: 'u1' } }]);
  assert.deepEqual([...out.keys()].sort(), ['ca.crt', 'namespace', 'token']);
  assert.equal(out.get('token')!.data.toString(), 'jwt');
  assert.equal(out.get('token')!.mode, 0o644, 'kube-api-access defaultMode 420');
  assert.equal(out.get('token')!.fsUser, undefined);
  assert.equal(out.get('namespace')!.data.toString(), 'ns1');
  const fsGroup = (await volumePayload(pod({ fsGroup: 2000 }), v, deps))!;
  assert.equal(fsGroup.get('token')!.mode, 0o600);
  const user = (await volumePayload(pod({ runAsUser: 1000 }), v, deps))!;
  assert.deepEqual([user.get('token')!.mode, user.get('token')!.fsUser], [0o600, 1000]);
  assert.equal(user.get('ca.crt')!.mode, 0o644);
  // FsUserFrom: every container must resolve to the same user
  assert.equal(fsUserFrom(pod({ runAsUser: 1000 }, [{ name: 'a' }, { name: 'b', securityContext: { runAsUser: 1001 } }] as never)), undefined);
  assert.equal(fsUserFrom(pod({}, [{ name: 'a', securityContext: { runAsUser: 7 } }, { name: 'b' }] as never)), undefined);
  assert.equal(fsUserFrom(pod({}, [{ name: 'a', securityContext: { runAsUser: 7 } }] as never)), 7);
  // a failed TokenRequest is the volume's error (FailedMount)
  await assert.rejects(
    volumePayload(pod(), v, { ...deps, getServiceAccountToken: async () => Promise.reject(new Error('failed to fetch token: serviceaccounts "builder" not found')) }),
    { message: 'failed to fetch token: serviceaccounts "builder" not found' },
  );
});

test('atomic writer: a file with fsUser is owned by it, and a changed owner is rewritten', { skip: !isRoot && 'needs root (chown)' }, async () => {
  const { writeAtomic } = await import('./atomic-writer.js');
  const d = makeTempDir();
  try {
    const p = new Map([['token', { data: Buffer.from('t'), mode: 0o600, fsUser: 1234 }]]);
    assert.equal(writeAtomic(d.path, p, Date.now()), true);
    assert.equal(fs.statSync(join(d.path, 'token')).uid, 1234);
    assert.equal(writeAtomic(d.path, p, Date.now()), false);
    assert.equal(writeAtomic(d.path, new Map([['token', { data: Buffer.from('t'), mode: 0o600, fsUser: 4321 }]]), Date.now()), true);
    assert.equal(fs.statSync(join(d.path, 'token')).uid, 4321);
  } finally {
    d.remove();
  }
});

test('volume GIDs: the pv.beta.kubernetes.io/gid of mounted claims become extra supplemental groups (string order, not the pod’s own)', async () => {
  const d = makeTempDir();
  // the PVs' annotations, as the CSI plugin reads them when it sets the claims up
  const gids: Record<string, string | undefined> = { a: '900', b: '1234', c: '900', d: 'not-a-number', e: '5000', f: undefined };
  const csi = {
    handles: (v: { persistentVolumeClaim?: unknown }) => !!v.persistentVolumeClaim,
    setUp: async (_pod: Pod, v: { name: string }, info: SetUpInfo) => {
      const g = gids[v.name];
      if (g !== undefined) info.gid = g;
      const dir = join(d.path, v.name);
      fs.mkdirSync(dir, { recursive: true });
      return dir;
    },
  } as unknown as CSIVolumePlugin;
  const vm = new VolumeManager(d.path, new FakeClock(), 60_000, false, csi);
  const pod: Pod = {
    metadata: { uid: 'uid-g', namespace: 'default', name: 'p' },
    spec: {
      securityContext: { supplementalGroups: [5000] },
      containers: [{ name: 'c' }],
      volumes: Object.keys(gids).map((name) => ({ name, persistentVolumeClaim: { claimName: name } })),
    },
  };
  try {
    assert.deepEqual(vm.extraSupplementalGroups(pod), [], 'nothing mounted yet');
    await vm.mountPod(pod, noDeps, () => undefined);
    assert.deepEqual(vm.extraSupplementalGroups(pod), [1234, 900]);
  } finally {
    d.remove();
  }
});
