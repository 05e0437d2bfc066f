import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsError, SimFs } from './fs.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-simfs-'));
  const vol = join(root, 'kubelet', 'pods', 'uid', 'volumes', 'data');
  mkdirSync(vol, { recursive: true });
  const hosts = join(root, 'kubelet', 'pods', 'uid', 'etc-hosts');
  writeFileSync(hosts, '127.0.0.1\tlocalhost\n');
  return { root, vol, hosts, done: () => rmSync(root, { recursive: true, force: true }) };
}

test('a file mount is a file; parents of mounts are directories; a volume hides image files below it', () => {
  const { root, vol, hosts, done } = setup();
  const fs = new SimFs({
    mounts: [
      { containerPath: '/etc/hosts', hostPath: hosts, readonly: false },
      { containerPath: '/data/demo', hostPath: vol, readonly: false },
    ],
    writableHostRoots: [join(root, 'kubelet')],
    seed: { '/data/demo/image-file': 'hidden', '/etc/passwd': 'root:x:0:0:root:/root:/bin/sh\n' },
  });
  assert.equal(fs.kind('/etc/hosts'), 'file');
  assert.equal(fs.read('/etc/hosts'), '127.0.0.1\tlocalhost\n');
  assert.equal(fs.kind('/data'), 'dir');
  assert.deepEqual(fs.list('/data'), ['demo']);
  assert.deepEqual(fs.list('/data/demo'), []);
  assert.ok(fs.list('/etc')!.includes('hosts') && fs.list('/etc')!.includes('passwd'));
  done();
});

test('sizes and mtimes are real: memory files from the clock, host files from stat', () => {
  const { root, vol, done } = setup();
  let now = T0;
  writeFileSync(join(vol, 'cm.txt'), 'seven!\n');
  const fs = new SimFs({ mounts: [{ containerPath: '/cfg', hostPath: vol, readonly: true }], writableHostRoots: [join(root, 'kubelet')], now: () => now });
  now += 60_000;
  fs.write('/tmp/a', 'héllo');
  const a = fs.lstat('/tmp/a')!;
  assert.deepEqual([a.kind, a.size, a.mtimeMs, a.mode, a.uid], ['file', 6, T0 + 60_000, 0o644, 0]);
  const cm = fs.lstat('/cfg/cm.txt')!;
  assert.equal(cm.size, 7);
  assert.ok(Math.abs(cm.mtimeMs - Date.now()) < 60_000, 'the host mtime');
  assert.equal(fs.lstat('/tmp')!.mode, 0o1777);
  done();
});

test('new files belong to the container user, with the group of a setgid (fsGroup) directory', () => {
  const { root, vol, done } = setup();
  chmodSync(vol, 0o2777);
  let gid = 0;
  try {
    chownSync(vol, -1, 2000);
    gid = 2000;
  } catch {
    gid = process.getgid?.() ?? 0; // not root: the directory keeps our group (shown as 0)
  }
  const fs = new SimFs({ mounts: [{ containerPath: '/data/demo', hostPath: vol, readonly: false }], writableHostRoots: [join(root, 'kubelet')], uid: 1000, gid: 0 });
  fs.write('/data/demo/testfile', 'hello\n');
  assert.equal(readFileSync(join(vol, 'testfile'), 'utf8'), 'hello\n', 'written through to the volume');
  const st = fs.lstat('/data/demo/testfile')!;
  assert.equal(st.uid, 1000);
  assert.equal(st.gid, gid === 2000 ? 2000 : 0);
  fs.write('/tmp/mine', 'x');
  assert.deepEqual([fs.lstat('/tmp/mine')!.uid, fs.lstat('/tmp/mine')!.gid], [1000, 0]);
  fs.mkdir('/data/demo/sub');
  assert.equal(fs.lstat('/data/demo/sub')!.uid, 1000);
  done();
});

test('errors as a real filesystem: read-only mounts, missing parents, existing directories', () => {
  const { root, vol, done } = setup();
  const fs = new SimFs({ mounts: [{ containerPath: '/etc/config', hostPath: vol, readonly: true }], writableHostRoots: [join(root, 'kubelet')] });
  assert.throws(
    () => fs.write('/etc/config/x', 'y'),
    (e) => e instanceof FsError && e.code === 'EROFS' && e.message === 'Read-only file system',
  );
  assert.throws(
    () => fs.write('/nope/x', 'y'),
    (e) => e instanceof FsError && e.code === 'ENOENT',
  );
  assert.throws(
    () => fs.write('/tmp', 'y'),
    (e) => e instanceof FsError && e.code === 'EISDIR',
  );
  assert.throws(
    () => fs.mkdir('/tmp', false),
    (e) => e instanceof FsError && e.code === 'EEXIST',
  );
  assert.throws(
    () => fs.mkdir('/a/b', false),
    (e) => e instanceof FsError && e.code === 'ENOENT',
  );
  fs.mkdir('/a/b/c');
  assert.equal(fs.kind('/a/b'), 'dir');
  done();
});

test('symlinks are shown as links (configMap volumes); a view with another working directory shares the files', () => {
  const { root, vol, done } = setup();
  mkdirSync(join(vol, '..2025'));
  writeFileSync(join(vol, '..2025', 'key'), 'value');
  symlinkSync('..2025', join(vol, '..data'));
  symlinkSync('..data/key', join(vol, 'key'));
  const fs = new SimFs({ mounts: [{ containerPath: '/cfg', hostPath: vol, readonly: true }], writableHostRoots: [join(root, 'kubelet')] });
  const l = fs.lstat('/cfg/key')!;
  assert.deepEqual([l.kind, l.target], ['symlink', '..data/key']);
  assert.equal(fs.read('/cfg/key'), 'value');
  const at = fs.at('/cfg');
  assert.equal(at.read('key'), 'value');
  at.write('/tmp/from-view', '1');
  assert.equal(fs.read('/tmp/from-view'), '1');
  done();
});

test('snapshot and restore keep the memory layer, deletions over mounts and owners', () => {
  const { root, vol, done } = setup();
  writeFileSync(join(vol, 'keep'), 'k');
  const outside = mkdtempSync(join(tmpdir(), 'k8ts-simfs-out-'));
  writeFileSync(join(outside, 'gone'), 'g');
  let changes = 0;
  const mounts = [
    { containerPath: '/data', hostPath: vol, readonly: false },
    { containerPath: '/host', hostPath: outside, readonly: false },
  ];
  const fs = new SimFs({ mounts, writableHostRoots: [join(root, 'kubelet')], uid: 7, onChange: () => changes++ });
  fs.write('/tmp/x', 'x');
  fs.write('/data/new', 'n');
  fs.remove('/host/gone');
  assert.equal(changes, 3);
  assert.equal(readFileSync(join(outside, 'gone'), 'utf8'), 'g', 'hostPath outside the kubelet root is untouched');
  const again = new SimFs({ mounts, writableHostRoots: [join(root, 'kubelet')], snapshot: JSON.parse(JSON.stringify(fs.snapshot())) });
  assert.equal(again.read('/tmp/x'), 'x');
  assert.equal(again.kind('/host/gone'), undefined);
  assert.equal(again.lstat('/data/new')!.uid, 7);
  assert.equal(again.lstat('/tmp/x')!.uid, 7);
  rmSync(outside, { recursive: true, force: true });
  done();
});
