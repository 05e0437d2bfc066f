/**
 * RemoteRuntime against a real, private containerd (test/support/containerd.ts) whose
 * images come from a local registry (test/support/registry.ts) configured as the
 * mirror of docker.io and registry.k8s.io: the shared conformance suite, then what only
 * a real runtime shows (a pod IP on our bridge that serves HTTP, pulls via mirrors).
 * Needs root and scripts/install-deps.sh; fails (never skips) without containerd.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CRIError, type PodSandboxConfig } from '../api.js';
import { runRuntimeTests } from '../runtime-tests.js';
import { RemoteRuntime } from './remote.js';
import { startRegistry, type TestRegistry } from '../../../test/support/registry.js';
import { publishTestImages } from '../../../test/support/images.js';
import { startTestContainerd, type TestContainerd } from '../../../test/support/containerd.js';
import { waitUntil } from '../../../test/support/proc.js';

runRuntimeTests({
  name: 'remote (containerd)',
  async newRuntime() {
    const registry = await startRegistry();
    let ctrd: TestContainerd | undefined;
    try {
      const images = await publishTestImages(registry.host);
      ctrd = await startTestContainerd({ mirror: registry.host });
      const runtime = await RemoteRuntime.connect(ctrd.endpoint);
      const c = ctrd;
      return {
        runtime,
        images: { busybox: images.busybox },
        podCIDR: c.podCIDR,
        cgroupParent: c.cgroupParent,
        async cleanup() {
          await runtime.close();
          await c.stop();
          await registry.stop();
        },
      };
    } catch (err) {
      await ctrd?.stop();
      await registry.stop();
      throw err;
    }
  },
});

describe('remote runtime on containerd: network and registry mirrors', () => {
  let registry: TestRegistry;
  let ctrd: TestContainerd;
  let rt: RemoteRuntime;
  let images: { busybox: string; httpd: string };
  let logRoot: string;

  before(async () => {
    registry = await startRegistry();
    images = await publishTestImages(registry.host);
    ctrd = await startTestContainerd({ mirror: registry.host });
    rt = await RemoteRuntime.connect(ctrd.endpoint);
    logRoot = mkdtempSync(join(tmpdir(), 'k8ts-remote-logs-'));
  });
  after(async () => {
    await rt?.close();
    await ctrd?.stop();
    await registry?.stop();
    if (logRoot) rmSync(logRoot, { recursive: true, force: true });
  });

  function sandbox(name: string): PodSandboxConfig {
    const uid = randomUUID();
    const logDirectory = join(logRoot, uid);
    mkdirSync(logDirectory, { recursive: true });
    return {
      metadata: { name, uid, namespace: 'default', attempt: 0 },
      hostname: name,
      logDirectory,
      portMappings: [],
      labels: {},
      annotations: {},
      linux: { cgroupParent: `${ctrd.cgroupParent}/pod${uid}` },
    };
  }

  test('the sandbox image comes through the registry.k8s.io mirror, and docker.io names resolve via the docker.io mirror', async () => {
    const sb = sandbox('mirror');
    const id = await rt.runPodSandbox(sb);
    try {
      assert.ok(await rt.imageStatus({ image: 'registry.k8s.io/pause:3.10' }), 'pause pulled as registry.k8s.io/pause:3.10');
      const ref = await rt.pullImage({ image: 'busybox:1.36' });
      assert.ok(ref.startsWith('sha256:'), ref);
      const img = await rt.imageStatus({ image: 'docker.io/library/busybox:1.36' });
      assert.ok(img?.repoTags.includes('docker.io/library/busybox:1.36'));
    } finally {
      await rt.stopPodSandbox(id);
      await rt.removePodSandbox(id);
    }
  });

  test('a pod IP on our bridge serves HTTP from busybox httpd', async () => {
    await rt.pullImage({ image: images.httpd });
    const sb = sandbox('web');
    const id = await rt.runPodSandbox(sb);
    try {
      const ip = (await rt.podSandboxStatus(id)).network?.ip;
      assert.ok(ip, 'pod IP');
      mkdirSync(join(sb.logDirectory, 'httpd'));
      const cfg = {
        metadata: { name: 'httpd', attempt: 0 },
        image: { image: images.httpd },
        command: [],
        args: [],
        workingDir: '',
        envs: [],
        mounts: [],
        labels: {},
        annotations: {},
        logPath: 'httpd/0.log',
        stdin: false,
        stdinOnce: false,
        tty: false,
      };
      const cid = await rt.createContainer(id, cfg, sb);
      await rt.startContainer(cid);
      const body = await waitUntil(`http://${ip}/`, async () => {
        try {
          const r = await fetch(`http://${ip}/index.html`, { signal: AbortSignal.timeout(1000) });
          return r.status === 200 ? await r.text() : undefined;
        } catch {
          return undefined;
        }
      });
      assert.match(body, /k8ts busybox httpd/);
    } finally {
      await rt.stopPodSandbox(id);
      await rt.removePodSandbox(id);
    }
  });

  test('gRPC failures surface as CRIError with upstream-style messages', async () => {
    await assert.rejects(rt.containerStatus('nope'), (e: unknown) => {
      assert.ok(e instanceof CRIError);
      assert.equal(e.code, 'NotFound');
      assert.match(e.message, /^rpc error: code = NotFound desc = /);
      return true;
    });
  });
});
