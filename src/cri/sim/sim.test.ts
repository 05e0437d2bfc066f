import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRuntimeTests, parseCRILog } from '../runtime-tests.js';
import { CRIError, type ContainerConfig, type PodSandboxConfig } from '../api.js';
import { FakeClock } from '../../util/fake-clock.js';
import { SimRuntime } from './runtime.js';
import { BehaviorAnnotation } from './behavior.js';

runRuntimeTests({
  name: 'sim',
  newRuntime: async () => ({
    runtime: new SimRuntime({ podCIDR: '10.244.7.0/24' }),
    images: { busybox: 'docker.io/library/busybox:1.36' },
    podCIDR: '10.244.7.0/24',
    cleanup: async () => undefined,
  }),
  capabilities: { settleTimeoutMs: 5000 },
});

function sandbox(root: string, name: string, annotations: Record<string, string> = {}): PodSandboxConfig {
  const uid = `uid-${name}`;
  const logDirectory = join(root, 'kubelet', 'logs', `default_${name}_${uid}`);
  return {
    metadata: { name, uid, namespace: 'default', attempt: 0 },
    hostname: name,
    logDirectory,
    portMappings: [],
    labels: { 'io.kubernetes.pod.uid': uid },
    annotations,
  };
}

function container(name: string, image: string, command: string[] = [], extra: Partial<ContainerConfig> = {}): ContainerConfig {
  return {
    metadata: { name, attempt: 0 },
    image: { image, userSpecifiedImage: image },
    command,
    args: [],
    workingDir: '',
    envs: [],
    mounts: [],
    labels: {},
    annotations: {},
    logPath: `${name}/0.log`,
    stdin: false,
    stdinOnce: false,
    tty: false,
    ...extra,
  };
}

describe('SimRuntime behaviours (injected clock)', () => {
  const setup = () => {
    const clock = new FakeClock();
    const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-'));
    const rt = new SimRuntime({ clock, podCIDR: '10.88.0.0/29' });
    return { clock, root, rt, done: () => rmSync(root, { recursive: true, force: true }) };
  };

  test('image rules: fail-pull fails like a registry, pull-<N>ms takes N ms of clock time', async () => {
    const { clock, rt, done } = setup();
    await assert.rejects(rt.pullImage({ image: 'nginx:fail-pull' }), (e) => {
      assert.ok(e instanceof CRIError && e.code === 'NotFound');
      assert.match(e.message, /^failed to pull and unpack image "docker.io\/library\/nginx:fail-pull": failed to resolve reference .*: not found$/);
      return true;
    });
    let pulled = false;
    const p = rt.pullImage({ image: 'nginx:pull-1500ms' }).then(() => (pulled = true));
    await clock.advance(1400);
    assert.equal(pulled, false);
    await clock.advance(200);
    await p;
    assert.equal(pulled, true);
    const img = await rt.imageStatus({ image: 'docker.io/library/nginx:pull-1500ms' });
    assert.ok(img && img.id.startsWith('sha256:') && img.repoDigests[0].startsWith('docker.io/library/nginx@sha256:'));
    done();
  });

  test('exit-<C>-after-<N>ms exits with C after N ms; the log is CRI-formatted', async () => {
    const { clock, root, rt, done } = setup();
    const sb = sandbox(root, 'p1');
    const sid = await rt.runPodSandbox(sb);
    assert.equal((await rt.podSandboxStatus(sid)).network?.ip, '10.88.0.2');
    await rt.pullImage({ image: 'busybox:exit-3-after-2000ms' });
    const id = await rt.createContainer(sid, container('c', 'busybox:exit-3-after-2000ms', ['sh', '-c', 'echo started; sleep 3600']), sb);
    await rt.startContainer(id);
    await clock.advance(1999);
    assert.equal((await rt.containerStatus(id)).state, 'CONTAINER_RUNNING');
    await clock.advance(1);
    const st = await rt.containerStatus(id);
    assert.equal(st.state, 'CONTAINER_EXITED');
    assert.equal(st.exitCode, 3);
    assert.equal(st.reason, 'Error');
    assert.equal(st.finishedAt - st.startedAt, 2000 * 1e6);
    const log = parseCRILog(readFileSync(join(sb.logDirectory, 'c/0.log'), 'utf8'));
    assert.deepEqual(
      log.map((l) => [l.stream, l.tag, l.msg]),
      [['stdout', 'F', 'started']],
    );
    assert.equal(log[0].time, '2025-01-01T00:00:00Z');
    done();
  });

  test('pod annotation behaviour per container overrides image rules', async () => {
    const { clock, root, rt, done } = setup();
    const sb = sandbox(root, 'p2', { [BehaviorAnnotation]: JSON.stringify({ containers: { app: { exitAfterMs: 500, exitCode: 1 } } }) });
    const sid = await rt.runPodSandbox(sb);
    await rt.pullImage({ image: 'nginx:1.25' });
    const app = await rt.createContainer(sid, container('app', 'nginx:1.25'), sb);
    const web = await rt.createContainer(sid, container('web', 'nginx:1.25'), sb);
    await rt.startContainer(app);
    await rt.startContainer(web);
    await clock.advance(600);
    assert.equal((await rt.containerStatus(app)).exitCode, 1);
    assert.equal((await rt.containerStatus(web)).state, 'CONTAINER_RUNNING', 'a server image runs until stopped');
    await rt.stopContainer(web, 30);
    const w = await rt.containerStatus(web);
    assert.deepEqual([w.state, w.exitCode, w.reason], ['CONTAINER_EXITED', 0, 'Completed']);
    done();
  });

  test('scripts: files on volume mounts, printenv exit status, execSync built-ins, liveness-exec timeline', async () => {
    const { clock, root, rt, done } = setup();
    const sb = sandbox(root, 'p3');
    const vol = join(root, 'kubelet', 'pods', 'uid-p3', 'volumes', 'kubernetes.io~empty-dir', 'data');
    mkdirSync(vol, { recursive: true });
    const sid = await rt.runPodSandbox(sb);
    await rt.pullImage({ image: 'busybox' });
    const writer = await rt.createContainer(
      sid,
      container('w', 'busybox', ['/bin/sh', '-c', 'echo Hello > /pod-data/index.html; printenv HOSTNAME MISSING'], {
        mounts: [{ containerPath: '/pod-data', hostPath: vol, readonly: false }],
      }),
      sb,
    );
    await rt.startContainer(writer);
    await clock.advance(10);
    const ws = await rt.containerStatus(writer);
    assert.equal(ws.exitCode, 1, 'printenv exits 1 when a variable is unset');
    assert.equal(readFileSync(join(vol, 'index.html'), 'utf8'), 'Hello\n');
    assert.deepEqual(
      parseCRILog(readFileSync(ws.logPath, 'utf8')).map((l) => l.msg),
      ['p3'],
    );

    const live = await rt.createContainer(sid, container('l', 'busybox', ['/bin/sh', '-c', 'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600']), sb);
    await rt.startContainer(live);
    await clock.advance(5000);
    let r = await rt.execSync(live, ['cat', '/tmp/healthy'], 1);
    assert.equal(r.exitCode, 0);
    await clock.advance(30_000);
    r = await rt.execSync(live, ['cat', '/tmp/healthy'], 1);
    assert.equal(r.exitCode, 1);
    assert.equal(r.stderr.toString(), "cat: can't open '/tmp/healthy': No such file or directory\n");
    r = await rt.execSync(live, ['sh', '-c', 'test -e /tmp/healthy || echo gone'], 1);
    assert.equal(r.stdout.toString(), 'gone\n');
    const slow = rt.execSync(live, ['sleep', '5'], 1).then(
      () => undefined,
      (e: unknown) => e,
    );
    await clock.advance(1000);
    const err = await slow;
    assert.ok(err instanceof CRIError && err.code === 'DeadlineExceeded', String(err));
    // sh as PID 1 ignores SIGTERM: killed after the timeout
    let stopped = false;
    const stop = rt.stopContainer(live, 2).then(() => (stopped = true));
    await clock.advance(1900);
    assert.equal(stopped, false);
    await clock.advance(200);
    await stop;
    assert.equal((await rt.containerStatus(live)).exitCode, 137);
    done();
  });

  test('hostPath mounts outside the kubelet root are never written', async () => {
    const { clock, root, rt, done } = setup();
    const outside = mkdtempSync(join(tmpdir(), 'k8ts-host-'));
    writeFileSync(join(outside, 'keep'), 'x');
    const sb = sandbox(root, 'p4');
    const sid = await rt.runPodSandbox(sb);
    await rt.pullImage({ image: 'busybox' });
    const id = await rt.createContainer(
      sid,
      container('h', 'busybox', ['sh', '-c', 'rm -f /host/keep; echo y > /host/new; cat /host/new'], { mounts: [{ containerPath: '/host', hostPath: outside, readonly: false }] }),
      sb,
    );
    await rt.startContainer(id);
    await clock.advance(10);
    assert.equal(readFileSync(join(outside, 'keep'), 'utf8'), 'x');
    assert.throws(() => readFileSync(join(outside, 'new')));
    assert.deepEqual(
      parseCRILog(readFileSync((await rt.containerStatus(id)).logPath, 'utf8')).map((l) => l.msg),
      ['y'],
    );
    rmSync(outside, { recursive: true, force: true });
    done();
  });

  test('names are reserved: a second sandbox with the same name and attempt is refused', async () => {
    const { root, rt, done } = setup();
    const sb = sandbox(root, 'dup');
    await rt.runPodSandbox(sb);
    await assert.rejects(rt.runPodSandbox(sb), (e) => e instanceof CRIError && e.code === 'AlreadyExists');
    done();
  });
});
