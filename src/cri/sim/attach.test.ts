import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { FakeClock } from '../../util/fake-clock.js';
import { CRIError, type ContainerConfig, type PodSandboxConfig } from '../api.js';
import { SimRuntime } from './runtime.js';

async function pod() {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-attach-'));
  const clock = new FakeClock();
  const rt = new SimRuntime({ clock, podCIDR: '10.6.0.0/24' });
  const sb: PodSandboxConfig = {
    metadata: { name: 'a', uid: 'uid-a', namespace: 'default', attempt: 0 },
    hostname: 'a',
    logDirectory: join(root, 'kubelet', 'logs', 'default_a_uid-a'),
    portMappings: [],
    labels: {},
    annotations: {},
  };
  const sid = await rt.runPodSandbox(sb);
  const create = async (name: string, image: string, command: string[], extra: Partial<ContainerConfig> = {}): Promise<string> => {
    await rt.pullImage({ image });
    return rt.createContainer(
      sid,
      {
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
      },
      sb,
    );
  };
  const start = async (...a: Parameters<typeof create>): Promise<string> => {
    const id = await create(...a);
    await rt.startContainer(id);
    return id;
  };
  // CRI log lines (`TIME STREAM TAG MSG`) back to the text written; stderr lines marked `!`
  const log = (name: string): string =>
    readFileSync(join(sb.logDirectory!, `${name}/0.log`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [, stream, tag] = l.split(' ', 3);
        const msg = l.slice(l.indexOf(' ', l.indexOf(' ', l.indexOf(' ') + 1) + 1) + 1);
        return (stream === 'stderr' ? `!${msg}` : msg) + (tag === 'F' ? '\n' : '');
      })
      .join('');
  const tick = async (cond: () => boolean): Promise<void> => {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setImmediate(r));
  };
  return { rt, clock, create, start, log, tick, done: async () => (await rt.close(), rmSync(root, { recursive: true, force: true })) };
}

test('attachStdin: piped bytes reach PID 1; stdinOnce closes its stdin at the end of the stream', async () => {
  const p = await pod();
  const id = await p.start('sh', 'busybox:1.36', ['sh'], { stdin: true, stdinOnce: true });
  const stdin = new PassThrough();
  const attached = p.rt.attachStdin(id, stdin, new AbortController().signal);
  stdin.write('echo one\nread x; echo got-$x\n');
  stdin.end('two\necho three\n');
  await attached;
  await p.tick(() => p.log('sh').includes('three'));
  assert.equal(p.log('sh'), 'one\ngot-two\nthree\n');
  await p.tick(() => false);
  const st = await p.rt.containerStatus(id);
  assert.deepEqual([st.state, st.exitCode], ['CONTAINER_EXITED', 0], 'end of input ends sh');
  await assert.rejects(
    Promise.resolve().then(() => p.rt.attachStdin(id, new PassThrough(), new AbortController().signal)),
    (e) => {
      assert.ok(e instanceof CRIError && e.code === 'Unknown');
      assert.equal(e.message, 'container is in exited state');
      return true;
    },
  );
  await p.done();
});

test('attachStdin: without stdinOnce stdin stays open for the next attach; abort detaches', async () => {
  const p = await pod();
  const id = await p.start('sh', 'busybox:1.36', ['sh'], { stdin: true });
  const first = new PassThrough();
  const a1 = p.rt.attachStdin(id, first, new AbortController().signal);
  first.end('echo first\n');
  await a1;
  const second = new PassThrough();
  const ac = new AbortController();
  const a2 = p.rt.attachStdin(id, second, ac.signal);
  second.write('echo second\n');
  await p.tick(() => p.log('sh').includes('second'));
  ac.abort();
  await a2;
  second.write('echo not-fed\n');
  await p.tick(() => false);
  assert.equal(p.log('sh'), 'first\nsecond\n');
  assert.equal((await p.rt.containerStatus(id)).state, 'CONTAINER_RUNNING');
  await p.done();
});

test('attachStdin: with a terminal, input goes through the line discipline and its echo to the log', async () => {
  const p = await pod();
  const id = await p.start('t', 'busybox:1.36', ['cat'], { stdin: true, stdinOnce: true, tty: true });
  const stdin = new PassThrough();
  const attached = p.rt.attachStdin(id, stdin, new AbortController().signal);
  stdin.write('helo\x7flo\r');
  await p.tick(() => p.log('t').includes('hello\r\n'));
  stdin.end();
  await attached;
  await p.tick(() => false);
  assert.equal(p.log('t'), 'helo\b \blo\r\nhello\r\n', 'echo and output as a pty gives them (CR LF)');
  assert.equal((await p.rt.containerStatus(id)).state, 'CONTAINER_EXITED');
  await p.done();
});

test('attachStdin: a container without stdin is refused', async () => {
  const p = await pod();
  const id = await p.start('n', 'busybox:1.36', ['sleep', '3600']);
  await assert.rejects(
    Promise.resolve().then(() => p.rt.attachStdin(id, new PassThrough(), new AbortController().signal)),
    /stdin of container .* is not open/,
  );
  await assert.rejects(
    Promise.resolve().then(() => p.rt.attachStdin('nope', new PassThrough(), new AbortController().signal)),
    /not found/,
  );
  await p.done();
});

test('main process: perl image runs bpi and exits 0; interpreters an image lacks fail to start; sh -c reports them not found', async () => {
  const p = await pod();
  const id = await p.start('pi', 'perl', ['perl', '-Mbignum=bpi', '-wle', 'print bpi(20)']);
  await p.tick(() => false);
  const st = await p.rt.containerStatus(id);
  assert.deepEqual([st.state, st.exitCode, st.reason], ['CONTAINER_EXITED', 0, 'Completed']);
  assert.equal(p.log('pi'), '3.1415926535897932385\n');

  const other = await p.start('pl', 'perl:5.40', ['perl', '-e', 'print 1']);
  await p.tick(() => false);
  const so = await p.rt.containerStatus(other);
  assert.deepEqual([so.state, so.exitCode], ['CONTAINER_EXITED', 255]);

  const py = await p.create('py', 'busybox:1.36', ['python3', '-c', 'print(1)']);
  await assert.rejects(p.rt.startContainer(py), /exec: "python3": executable file not found in \$PATH/);
  const sp = await p.rt.containerStatus(py);
  assert.deepEqual([sp.state, sp.exitCode, sp.reason], ['CONTAINER_EXITED', 128, 'StartError']);
  assert.match(sp.message, /^failed to create containerd task: .*exec: "python3": executable file not found in \$PATH: unknown$/);

  const noPerl = await p.create('np', 'busybox:1.36', ['perl', '-le', 'print bpi(5)']);
  await assert.rejects(p.rt.startContainer(noPerl), /exec: "perl": executable file not found/);

  const shpy = await p.start('shpy', 'busybox:1.36', ['sh', '-c', 'python app.py']);
  await p.tick(() => false);
  const ss = await p.rt.containerStatus(shpy);
  assert.deepEqual([ss.state, ss.exitCode], ['CONTAINER_EXITED', 127]);
  assert.equal(p.log('shpy'), '!sh: python: not found\n');

  const server = await p.start('srv', 'redis', ['redis-server']);
  await p.tick(() => false);
  assert.equal((await p.rt.containerStatus(server)).state, 'CONTAINER_RUNNING', 'unknown programs that may be servers still run');
  const pyServer = await p.start('pys', 'python:3.12', ['python3', '-m', 'http.server']);
  await p.tick(() => false);
  assert.equal((await p.rt.containerStatus(pyServer)).state, 'CONTAINER_RUNNING', 'an interpreter its image has runs like a server');
  await p.done();
});
