import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../util/fake-clock.js';
import { parseCRILog } from '../runtime-tests.js';
import type { ContainerConfig, PodSandboxConfig } from '../api.js';
import { SimRuntime } from './runtime.js';

function sandbox(root: string, name: string): PodSandboxConfig {
  return {
    metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 },
    hostname: name,
    logDirectory: join(root, 'kubelet', 'logs', `default_${name}_uid-${name}`),
    portMappings: [],
    labels: { 'io.kubernetes.pod.uid': `uid-${name}` },
    annotations: {},
  };
}

function container(name: string, image: string, command: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig {
  return {
    metadata: { name, attempt: 0 },
    image: { image, userSpecifiedImage: image },
    command,
    args: [],
    workingDir: '',
    envs: [],
    mounts: [],
    labels: { 'io.kubernetes.container.name': name },
    annotations: {},
    logPath: `${name}/0.log`,
    stdin: false,
    stdinOnce: false,
    tty: false,
    ...extra,
  };
}

test('a restarted runtime finds its images, sandboxes (same IP), exited and running containers; running ones resume idle', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-state-'));
  const stateDir = join(root, 'sim-runtime');
  const clock = new FakeClock();
  const rt = new SimRuntime({ clock, podCIDR: '10.7.0.0/24', stateDir });
  const sb = sandbox(root, 'p');
  const sid = await rt.runPodSandbox(sb);
  await rt.pullImage({ image: 'busybox:1.36' });
  const done = await rt.createContainer(sid, container('done', 'busybox:1.36', ['sh', '-c', 'echo finished']), sb);
  await rt.startContainer(done);
  const run = await rt.createContainer(
    sid,
    container('run', 'busybox:1.36', ['sh', '-c', "trap 'exit 5' TERM; echo up; echo data > /tmp/state; while true; do sleep 1; done"]),
    sb,
  );
  await rt.startContainer(run);
  await clock.advance(1500);
  const before = { done: await rt.containerStatus(done), run: await rt.containerStatus(run), ip: (await rt.podSandboxStatus(sid)).network?.ip };
  assert.equal(before.done.state, 'CONTAINER_EXITED');
  assert.equal(before.run.state, 'CONTAINER_RUNNING');
  await rt.close();
  assert.ok(existsSync(join(stateDir, 'state.json')));

  const clock2 = new FakeClock(clock.now() + 60_000);
  const rt2 = new SimRuntime({ clock: clock2, podCIDR: '10.7.0.0/24', stateDir });
  assert.ok(await rt2.imageStatus({ image: 'docker.io/library/busybox:1.36' }), 'no re-pull needed');
  assert.deepEqual(
    (await rt2.listPodSandbox()).map((s) => [s.id, s.state]),
    [[sid, 'SANDBOX_READY']],
  );
  assert.equal((await rt2.podSandboxStatus(sid)).network?.ip, before.ip);
  const d = await rt2.containerStatus(done);
  assert.deepEqual(
    [d.state, d.exitCode, d.reason, d.startedAt, d.finishedAt, d.logPath],
    ['CONTAINER_EXITED', 0, 'Completed', before.done.startedAt, before.done.finishedAt, before.done.logPath],
  );
  const r = await rt2.containerStatus(run);
  assert.deepEqual([r.state, r.startedAt, r.metadata.attempt], ['CONTAINER_RUNNING', before.run.startedAt, 0]);
  assert.equal((await rt2.execSync(run, ['cat', '/tmp/state'], 1)).stdout.toString(), 'data\n', 'the filesystem came back');
  assert.deepEqual(
    (await rt2.listContainers({ labelSelector: { 'io.kubernetes.container.name': 'run' } })).map((c) => c.id),
    [run],
  );
  // a new sandbox does not get the restored one's IP; names stay reserved
  const other = await rt2.runPodSandbox(sandbox(root, 'q'));
  assert.notEqual((await rt2.podSandboxStatus(other)).network?.ip, before.ip);
  await assert.rejects(rt2.runPodSandbox(sb), /is reserved for/);
  // the idle process still honours its TERM trap and logs to the same file
  await rt2.execSync(run, ['sh', '-c', 'true'], 1);
  await rt2.stopContainer(run, 10);
  const stopped = await rt2.containerStatus(run);
  assert.deepEqual([stopped.state, stopped.exitCode], ['CONTAINER_EXITED', 5]);
  assert.deepEqual(
    parseCRILog(readFileSync(stopped.logPath, 'utf8')).map((l) => l.msg),
    ['up'],
  );
  await rt2.close();
  rmSync(root, { recursive: true, force: true });
});

test('state is written a moment after a change (debounced) and not after close', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-state-'));
  const stateDir = join(root, 'sim-runtime');
  const clock = new FakeClock();
  const rt = new SimRuntime({ clock, podCIDR: '10.7.0.0/24', stateDir, stateDebounceMs: 500 });
  await rt.pullImage({ image: 'nginx:1.14.2' });
  const file = join(stateDir, 'state.json');
  assert.equal(existsSync(file), false);
  await clock.advance(499);
  assert.equal(existsSync(file), false);
  await clock.advance(1);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { images: { repoTags: string[]; size: number }[] };
  assert.deepEqual(
    saved.images.map((i) => [i.repoTags, i.size]),
    [[['docker.io/library/nginx:1.14.2'], 44_710_000]],
  );
  await rt.close();
  rmSync(file);
  await rt.pullImage({ image: 'busybox' }).catch(() => undefined);
  await clock.advance(1000);
  assert.equal(existsSync(file), false, 'a closed runtime writes nothing');
  rmSync(root, { recursive: true, force: true });
});

test('a state file that is not one fails the start with its path', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-state-'));
  mkdirSync(join(root, 'sim-runtime'));
  writeFileSync(join(root, 'sim-runtime', 'state.json'), '{"version": 99}');
  assert.throws(() => new SimRuntime({ stateDir: join(root, 'sim-runtime') }), /sim-runtime\/state\.json: not a simulated runtime state/);
  rmSync(root, { recursive: true, force: true });
});

test('a container with an exit behaviour still exits on time after a restart', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-state-'));
  const stateDir = join(root, 'sim-runtime');
  const clock = new FakeClock();
  const rt = new SimRuntime({ clock, podCIDR: '10.7.0.0/24', stateDir });
  const sb = sandbox(root, 'x');
  const sid = await rt.runPodSandbox(sb);
  await rt.pullImage({ image: 'busybox:exit-2-after-5000ms' });
  const id = await rt.createContainer(sid, container('c', 'busybox:exit-2-after-5000ms', ['sleep', '3600']), sb);
  await rt.startContainer(id);
  await clock.advance(2000);
  await rt.close();
  const clock2 = new FakeClock(clock.now());
  const rt2 = new SimRuntime({ clock: clock2, podCIDR: '10.7.0.0/24', stateDir });
  await clock2.advance(2999);
  assert.equal((await rt2.containerStatus(id)).state, 'CONTAINER_RUNNING');
  await clock2.advance(1);
  const st = await rt2.containerStatus(id);
  assert.deepEqual([st.state, st.exitCode], ['CONTAINER_EXITED', 2]);
  await rt2.close();
  rmSync(root, { recursive: true, force: true });
});
