import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CRIError, type Runtime } from './api.js';
import type { ManagedContainerd, ManagedContainerdOptions } from './containerd/supervisor.js';
import { makeTempDir } from '../../test/support/tmp.js';
import { startNodeRuntime } from './runtime-setup.js';

const base = { dataDir: '/nonexistent/k8ts', podCIDR: '10.42.0.0/24' };
function fakeRemote(endpoint: string): Runtime {
  const r = {
    kind: 'remote',
    endpoint,
    closed: false,
    async close() {
      r.closed = true;
    },
  };
  return r as unknown as Runtime;
}

test('--runtime sim: the simulated runtime, no reason needed', async () => {
  const nr = await startNodeRuntime({ ...base, runtime: 'sim' });
  try {
    assert.equal(nr.kind, 'sim');
    assert.equal(nr.runtime.kind, 'sim');
    assert.equal(nr.reason, undefined);
    assert.match(nr.description, /SIMULATED/);
  } finally {
    await nr.stop();
  }
});

test('remote with an explicit endpoint connects to it; a dead endpoint fails startup', async () => {
  const seen: string[] = [];
  const nr = await startNodeRuntime({ ...base, runtime: 'remote', endpoint: 'unix:///run/x.sock', deps: { connect: async (ep) => (seen.push(ep), fakeRemote(ep)) } });
  assert.deepEqual([nr.kind, nr.endpoint, nr.description], ['remote', 'unix:///run/x.sock', 'remote (CRI at unix:///run/x.sock)']);
  assert.deepEqual(seen, ['unix:///run/x.sock']);
  await nr.stop();
  assert.equal((nr.runtime as unknown as { closed: boolean }).closed, true);

  const d = makeTempDir();
  try {
    await assert.rejects(
      startNodeRuntime({ ...base, runtime: 'remote', endpoint: `unix://${join(d.path, 'none.sock')}`, connectTimeoutMs: 200 }),
      (e: unknown) => e instanceof CRIError && e.code === 'Unavailable',
    );
  } finally {
    d.remove();
  }
});

test('remote without endpoint: a managed containerd when installed and root, else sim with a loud reason', async () => {
  const noContainerd = await startNodeRuntime({ ...base, runtime: 'remote', deps: { findExecutable: () => undefined, isRoot: () => true } });
  assert.equal(noContainerd.kind, 'sim');
  assert.match(noContainerd.reason!, /containerd is not installed/);
  assert.match(noContainerd.description, /^sim \(SIMULATED containers: no --container-runtime-endpoint and containerd is not installed/);
  await noContainerd.stop();

  const notRoot = await startNodeRuntime({ ...base, runtime: 'remote', deps: { findExecutable: (n) => `/usr/bin/${n}`, isRoot: () => false } });
  assert.equal(notRoot.kind, 'sim');
  assert.match(notRoot.reason!, /needs root/);
  await notRoot.stop();

  let got: ManagedContainerdOptions | undefined;
  let stopped = false;
  const managed = await startNodeRuntime({
    ...base,
    runtime: 'remote',
    pauseImage: 'localhost/pause:3.10',
    registriesFile: '/etc/k8ts/registries.yaml',
    deps: {
      findExecutable: (n) => `/usr/bin/${n}`,
      isRoot: () => true,
      startManaged: async (o) => {
        got = o;
        return { endpoint: 'unix:///d/containerd/containerd.sock', pid: 42, restarts: 0, paths: {} as ManagedContainerd['paths'], stop: async () => void (stopped = true) };
      },
      connect: async (ep) => fakeRemote(ep),
    },
  });
  assert.equal(managed.kind, 'remote');
  assert.equal(managed.endpoint, 'unix:///d/containerd/containerd.sock');
  assert.equal(managed.description, 'remote (managed containerd at unix:///d/containerd/containerd.sock, pid 42)');
  assert.deepEqual([got!.dataDir, got!.podCIDR, got!.pauseImage, got!.registriesFile], ['/nonexistent/k8ts', '10.42.0.0/24', 'localhost/pause:3.10', '/etc/k8ts/registries.yaml']);
  await managed.stop();
  assert.ok(stopped, 'stop() stops the managed containerd');
});

test('a managed containerd whose socket does not answer is stopped again', async () => {
  let stopped = false;
  await assert.rejects(
    startNodeRuntime({
      ...base,
      runtime: 'remote',
      deps: {
        findExecutable: (n) => `/usr/bin/${n}`,
        isRoot: () => true,
        startManaged: async () => ({ endpoint: 'unix:///x', pid: 1, restarts: 0, paths: {} as ManagedContainerd['paths'], stop: async () => void (stopped = true) }),
        connect: async () => {
          throw new CRIError('Unavailable', 'not ready');
        },
      },
    }),
    /not ready/,
  );
  assert.ok(stopped);
});
