import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { FakeClock } from '../../util/fake-clock.js';
import type { ContainerConfig, PodSandboxConfig } from '../api.js';
import { SimRuntime } from './runtime.js';

async function pod(o: { dns?: PodSandboxConfig['dnsConfig'] } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-pod-'));
  const clock = new FakeClock();
  const rt = new SimRuntime({ clock, podCIDR: '10.5.0.0/24' });
  const sb: PodSandboxConfig = {
    metadata: { name: 'two', uid: 'uid-two', namespace: 'default', attempt: 0 },
    hostname: 'two',
    logDirectory: join(root, 'kubelet', 'logs', 'default_two_uid-two'),
    dnsConfig: o.dns ?? { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] },
    portMappings: [],
    labels: {},
    annotations: {},
  };
  const sid = await rt.runPodSandbox(sb);
  const podDir = join(root, 'kubelet', 'pods', 'uid-two');
  const shared = join(podDir, 'volumes', 'kubernetes.io~empty-dir', 'shared-data');
  mkdirSync(shared, { recursive: true });
  const etcHosts = join(podDir, 'etc-hosts');
  writeFileSync(etcHosts, '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n10.5.0.2\ttwo\n');
  const start = async (name: string, image: string, command: string[], extra: Partial<ContainerConfig> = {}): Promise<string> => {
    await rt.pullImage({ image });
    const id = await rt.createContainer(
      sid,
      {
        metadata: { name, attempt: 0 },
        image: { image, userSpecifiedImage: image },
        command,
        args: [],
        workingDir: '',
        envs: [{ key: 'KUBERNETES_SERVICE_HOST', value: '10.96.0.1' }],
        mounts: [{ containerPath: '/etc/hosts', hostPath: etcHosts, readonly: false }],
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
    await rt.startContainer(id);
    return id;
  };
  const sh = async (id: string, script: string) => {
    const r = await rt.execSync(id, ['sh', '-c', script], 5);
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };
  return { root, clock, rt, sid, shared, start, sh, done: async () => (await rt.close(), rmSync(root, { recursive: true, force: true })) };
}

test('two-container pod: curl localhost from nginx serves what debian wrote into the shared volume', async () => {
  const p = await pod();
  const vol = (path: string) => ({ mounts: [{ containerPath: path, hostPath: p.shared, readonly: false }] });
  const nginx = await p.start('nginx-container', 'nginx', [], vol('/usr/share/nginx/html'));
  const debian = await p.start('debian-container', 'debian', ['/bin/sh', '-c', 'echo Hello from the debian container > /pod-data/index.html'], vol('/pod-data'));
  await p.clock.advance(10);
  assert.equal((await p.rt.containerStatus(debian)).exitCode, 0);
  assert.deepEqual(await p.sh(nginx, 'curl localhost'), { code: 0, out: 'Hello from the debian container\n', err: '' });
  assert.equal((await p.sh(nginx, 'curl -s http://10.5.0.2/index.html')).out, 'Hello from the debian container\n', 'the pod IP');
  assert.equal((await p.sh(nginx, 'curl -s two')).out, 'Hello from the debian container\n', 'the hostname');
  assert.equal((await p.sh(nginx, 'curl -s -o /dev/null -w "%{http_code}" localhost/missing')).out, '404');
  assert.match((await p.sh(nginx, 'curl -s localhost/missing')).out, /<center><h1>404 Not Found<\/h1><\/center>\r\n<hr><center>nginx\/1\.27\.3<\/center>/);
  assert.equal((await p.sh(nginx, 'curl -s 10.96.0.1')).code, 7, 'other hosts: no network');
  assert.equal((await p.sh(nginx, 'curl -s kubernetes.default')).code, 6);
  await p.done();
});

test('an nginx image without a volume serves its own page; an nginx image running something else serves nothing', async () => {
  const p = await pod();
  const web = await p.start('web', 'nginx:1.14.2', []);
  const other = await p.start('other', 'busybox:1.36', ['sleep', '3600']);
  assert.match((await p.sh(other, 'wget -qO- localhost')).out, /<title>Welcome to nginx!<\/title>/);
  assert.match((await p.sh(other, 'wget -S -O /dev/null localhost 2>&1; curl -sI localhost')).out, /Server: nginx\/1\.14\.2\r\n/);
  await p.rt.stopContainer(web, 1);
  assert.equal((await p.sh(other, 'wget -qO- localhost')).err, "wget: can't connect to remote host (127.0.0.1): Connection refused\n", 'nothing listens once nginx stopped');
  await p.done();
  const q = await pod();
  const notServing = await q.start('sleeper', 'nginx', ['sleep', '3600']);
  assert.equal((await q.sh(notServing, 'curl localhost')).code, 7);
  await q.done();
});

test('the container environment and files: PATH, HOSTNAME, HOME; /etc/hosts is the kubelet file, /etc/resolv.conf from the sandbox DNS', async () => {
  const p = await pod();
  const id = await p.start('c', 'busybox:1.36', ['sleep', '3600']);
  const env = (await p.sh(id, 'env')).out;
  assert.equal(env, 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nHOSTNAME=two\nKUBERNETES_SERVICE_HOST=10.96.0.1\nHOME=/root\n');
  assert.equal((await p.sh(id, 'cat /etc/hosts')).out.split('\n')[0], '# Kubernetes-managed hosts file.');
  assert.equal((await p.sh(id, 'test -f /etc/hosts && echo file')).out, 'file\n');
  assert.equal((await p.sh(id, 'cat /etc/resolv.conf')).out, 'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n');
  assert.equal((await p.sh(id, 'cat /etc/hostname')).out, 'two\n');
  const u = await p.start('u', 'busybox:1.36', ['sleep', '3600'], { linux: { securityContext: { runAsUser: 1000 } } });
  assert.match((await p.sh(u, 'env')).out, /\nHOME=\/\n$/, 'runc: HOME=/ for a user without a passwd entry');
  await p.done();
});

test('ps lists PID 1 and the exec sessions', async () => {
  const p = await pod();
  const id = await p.start('c', 'busybox:1.36', ['sh', '-c', 'sleep 3600']);
  assert.equal((await p.rt.execSync(id, ['ps'], 1)).stdout.toString(), 'PID   USER     TIME  COMMAND\n    1 root      0:00 sh -c sleep 3600\n    7 root      0:00 ps\n');
  const web = await p.start('web', 'nginx', []);
  assert.match((await p.rt.execSync(web, ['ps'], 1)).stdout.toString(), /^ {4}1 root {6}0:00 nginx -g daemon off;$/m);
  await p.done();
});

test('image sizes are plausible', async () => {
  const rt = new SimRuntime({ podCIDR: '10.5.0.0/24' });
  const size = async (image: string) => {
    await rt.pullImage({ image });
    return (await rt.imageStatus({ image }))!.size;
  };
  assert.equal(await size('busybox:1.36'), 1_232_000);
  assert.equal(await size('nginx:1.14.2'), 44_710_000);
  assert.equal(await size('registry.k8s.io/pause:3.10'), 320_368);
  assert.equal(await size('example.com/team/unknown:v1'), 10_000_000);
  await rt.close();
});

test('execStream: a terminal echoes and answers line by line; a command that reads nothing ends at once', async () => {
  const p = await pod();
  const id = await p.start('c', 'busybox:1.36', ['sleep', '3600']);
  const session = (tty: boolean) => {
    const stdin = new PassThrough();
    let out = '';
    let err = '';
    return { stdin, out: () => out, err: () => err, o: { tty, stdin, write: (s: 'stdout' | 'stderr', d: Buffer) => (s === 'stdout' ? (out += d) : (err += d)) } };
  };
  const echo = session(true);
  assert.equal(await p.rt.execStream(id, ['echo', 'hi'], echo.o), 0, 'stdin stays open, echo does not wait for it');
  assert.equal(echo.out(), 'hi\r\n');

  const shell = session(true);
  const ended = p.rt.execStream(id, ['sh'], shell.o);
  shell.stdin.write('echo $TERM\r');
  for (let i = 0; i < 100 && !shell.out().endsWith('xterm\r\n/ # '); i++) await new Promise((r) => setImmediate(r));
  shell.stdin.write('exit 4\r');
  assert.equal(await ended, 4);
  assert.equal(shell.out(), '/ # echo $TERM\r\nxterm\r\n/ # exit 4\r\n');

  const cat = session(false);
  const c = p.rt.execStream(id, ['cat'], cat.o);
  cat.stdin.end('piped\n');
  assert.equal(await c, 0);
  assert.equal(cat.out(), 'piped\n');

  const gone = session(false);
  const ac = new AbortController();
  const w = p.rt.execStream(id, ['cat'], { ...gone.o, signal: ac.signal });
  ac.abort();
  assert.equal(await w, 137, 'the client went away: the session is killed');
  await assert.rejects(p.rt.execStream('nope', ['true'], session(false).o), /not found/);
  await p.done();
});
