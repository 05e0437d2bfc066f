/**
 * startManagedContainerd on this machine (root, containerd installed by
 * scripts/install-deps.sh): offline pause import, restart after a crash with the pod
 * surviving, stop. Fails, never skips, when containerd is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startManagedContainerd, ManagedContainerdError } from './supervisor.js';
import { hasImage } from './images.js';
import { RemoteRuntime } from '../remote/remote.js';
import { buildTestImages } from '../../../test/support/images.js';
import { startTestContainerd, type TestContainerd } from '../../../test/support/containerd.js';
import { waitUntil } from '../../../test/support/proc.js';
import { makeTempDir } from '../../../test/support/tmp.js';

test('a missing containerd binary is an error that says so', async () => {
  const d = makeTempDir();
  try {
    await assert.rejects(
      startManagedContainerd({ dataDir: d.path, podCIDR: '10.250.0.0/24', pauseImage: 'registry.k8s.io/pause:3.10', containerdBin: '/nonexistent/containerd' }),
      (e: unknown) => e instanceof ManagedContainerdError && /containerd is not installed/.test(e.message),
    );
  } finally {
    d.remove();
  }
});

describe('managed containerd', () => {
  let c: TestContainerd;
  let rt: RemoteRuntime;
  const events: string[] = [];
  /** the supervisor's events, `type pid` */
  const supervisor: string[] = [];

  before(async () => {
    const layouts = buildTestImages();
    c = await startTestContainerd({
      pauseImage: 'localhost/k8ts-pause:3.10',
      pauseImageLayout: layouts.pause,
      restartDelayMs: 50,
      onEvent: (e) => supervisor.push(`${e.type} ${e.pid ?? ''}`),
    });
    rt = await RemoteRuntime.connect(c.endpoint);
  });
  after(async () => {
    await rt?.close();
    await c?.stop();
  });

  test('writes config, CNI and socket under <dataDir>/containerd and reports a ready network', async () => {
    for (const f of ['config.toml', 'containerd.sock', 'cni/net.d/10-k8ts.conflist', 'root', 'state']) {
      assert.ok(existsSync(join(c.dataDir, 'containerd', f)), f);
    }
    const { conditions } = await rt.status();
    assert.deepEqual(
      conditions.map((x) => [x.type, x.status]),
      [
        ['RuntimeReady', true],
        ['NetworkReady', true],
      ],
    );
  });

  test('the pause image is imported offline under exactly the sandbox_image name', async () => {
    assert.ok(await hasImage(c.containerd.paths.socket, 'localhost/k8ts-pause:3.10'));
    const img = await rt.imageStatus({ image: 'localhost/k8ts-pause:3.10' });
    assert.deepEqual(img?.repoTags, ['localhost/k8ts-pause:3.10']);
  });

  test('restarts containerd after it dies; a running pod survives the restart', async () => {
    const uid = randomUUID();
    const logDirectory = join(c.dataDir, 'logs', uid);
    mkdirSync(logDirectory, { recursive: true });
    const sb = await rt.runPodSandbox({
      metadata: { name: 'survivor', uid, namespace: 'default', attempt: 0 },
      hostname: 'survivor',
      logDirectory,
      portMappings: [],
      labels: {},
      annotations: {},
      linux: { cgroupParent: `${c.cgroupParent}/pod${uid}` },
    });
    const ip = (await rt.podSandboxStatus(sb)).network?.ip;
    assert.ok(ip);
    const pid = c.containerd.pid!;
    process.kill(pid, 'SIGKILL');
    await waitUntil('containerd restarted', () => c.containerd.restarts === 1 && c.containerd.pid !== undefined && c.containerd.pid !== pid, 15_000);
    const st = await waitUntil('CRI answering again', async () => rt.podSandboxStatus(sb).catch(() => undefined), 30_000);
    assert.equal(st.state, 'SANDBOX_READY');
    assert.equal(st.network?.ip, ip);
    events.push('restarted');
    await rt.stopPodSandbox(sb);
    await rt.removePodSandbox(sb);
  });

  test('stop() ends containerd and does not restart it', async () => {
    const pid = c.containerd.pid!;
    const seen = supervisor.length;
    await c.containerd.stop();
    assert.throws(() => process.kill(pid, 0), /ESRCH/);
    // the supervisor saw the exit, and a restart is only ever scheduled right after
    // announcing it in the same exit handler: none was
    assert.deepEqual(supervisor.slice(seen), [`exited ${pid}`]);
    assert.equal(c.containerd.pid, undefined);
    assert.equal(c.containerd.restarts, events.length);
  });
});
