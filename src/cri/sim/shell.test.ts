import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/fake-clock.js';
import { SimFs } from './fs.js';
import { imageProfile } from './image-profiles.js';
import { SimProcess } from './process.js';
import { KilledError, runProgram, type ShellIO } from './shell.js';
import type { HttpAnswer, HttpRequest } from './shell-io.js';
import { StreamStdin, stringStdin, type Stdin } from './stdin.js';

const HOSTS = '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n10.1.0.5\tweb\n';

interface Run {
  code: number;
  out: string;
  err: string;
}

function harness(o: { unknown?: 'serve' | 'notFound'; uid?: number; http?: (r: HttpRequest) => HttpAnswer } = {}) {
  const clock = new FakeClock();
  const fs = new SimFs({
    mounts: [],
    writableHostRoots: [],
    uid: o.uid ?? 0,
    now: () => clock.now(),
    seed: { ...imageProfile('busybox:1.36').files, '/etc/hosts': HOSTS, '/etc/resolv.conf': 'nameserver 10.96.0.10\n' },
  });
  const start = (argv: string[], stdin: Stdin = stringStdin(''), extra: Partial<ShellIO> = {}) => {
    const proc = new SimProcess(7, argv, false, clock, stdin instanceof StreamStdin ? stdin : undefined);
    let out = '';
    let err = '';
    const io: ShellIO = {
      env: new Map([
        ['PATH', '/bin'],
        ['HOME', '/root'],
      ]),
      fs,
      hostname: 'web',
      uid: o.uid ?? 0,
      gid: 0,
      groups: [],
      write: (s, t) => (s === 'stdout' ? (out += t) : (err += t)),
      sleep: (ms) => proc.sleep(ms),
      now: () => clock.now(),
      stdin,
      unknown: o.unknown ?? 'notFound',
      isKilled: () => proc.killed,
      takeInterrupt: () => proc.takeInterrupt(),
      processes: () => [
        { pid: 1, uid: 0, cmd: 'sleep 3600' },
        { pid: 7, uid: o.uid ?? 0, cmd: argv.join(' ') },
      ],
      ...(o.http ? { http: o.http } : {}),
      ...extra,
    };
    const done = runProgram(argv, io).then((code): Run => ({ code, out, err }));
    return { proc, done, out: () => out, err: () => err };
  };
  const run = (argv: string[], stdin?: Stdin) => start(argv, stdin).done;
  return { clock, fs, start, run };
}

test('exec: an unknown program fails like a shell (127); in a main process it runs until killed', async () => {
  const h = harness();
  assert.deepEqual(await h.run(['redis-cli', 'ping']), { code: 127, out: '', err: 'sh: redis-cli: not found\n' });
  assert.deepEqual(await h.run(['sh', '-c', 'ps2 aux || echo fallback']), { code: 0, out: 'fallback\n', err: 'sh: ps2: not found\n' });
  const main = harness({ unknown: 'serve' }).start(['redis-server']);
  let settled = false;
  main.done.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'a server runs until stopped');
  main.proc.kill();
  await assert.rejects(main.done, KilledError);
});

test('whoami, ps, uname, pwd and cd, id', async () => {
  const h = harness();
  assert.equal((await h.run(['whoami'])).out, 'root\n');
  assert.deepEqual(await harness({ uid: 1000 }).run(['whoami']), { code: 1, out: '', err: 'whoami: unknown uid 1000\n' });
  assert.equal((await h.run(['ps'])).out, 'PID   USER     TIME  COMMAND\n    1 root      0:00 sleep 3600\n    7 root      0:00 ps\n');
  assert.equal((await h.run(['uname'])).out, 'Linux\n');
  assert.match((await h.run(['uname', '-a'])).out, /^Linux web \S+ .* (x86_64|aarch64|\S+) GNU\/Linux\n$/);
  assert.equal((await h.run(['sh', '-c', 'pwd; cd /etc && pwd; cd /nope'])).out, '/\n/etc\n');
  assert.equal((await h.run(['sh', '-c', 'cd /nope'])).err, "sh: cd: can't cd to /nope: No such file or directory\n");
  assert.equal((await h.run(['sh', '-c', 'cd /etc; cat hosts | grep -c localhost'])).out, '2\n');
});

test('sh reads commands from stdin line by line until exit; variables and the directory persist between lines', async () => {
  const h = harness();
  assert.deepEqual(await h.run(['sh'], stringStdin('echo hi\nX=1\ncd /etc\necho $X $(pwd)\nexit 3\necho never\n')), { code: 3, out: 'hi\n1 /etc\n', err: '' });
  assert.equal((await h.run(['sh'], stringStdin('for i in a b\ndo\necho $i\ndone\n'))).out, 'a\nb\n', 'a multi-line command waits for its end');
  assert.equal((await h.run(['sh', '-s'], stringStdin('while read l; do echo "<$l>"; done\none\ntwo\n'))).out, '<one>\n<two>\n');
  assert.equal((await h.run(['sh', '-c', 'echo $0 $1 $#', 'name', 'first'])).out, 'name first 1\n');
  // streamed stdin: the shell answers each line as it arrives
  const stdin = new StreamStdin();
  const s = h.start(['sh'], stdin);
  stdin.push('echo one\n');
  await new Promise((r) => setImmediate(r));
  assert.equal(s.out(), 'one\n');
  stdin.push('echo two\n');
  stdin.close();
  assert.deepEqual(await s.done, { code: 0, out: 'one\ntwo\n', err: '' });
});

test('a command that does not read stdin ends while stdin stays open', async () => {
  const h = harness();
  const stdin = new StreamStdin();
  assert.deepEqual(await h.run(['echo', 'hi'], stdin), { code: 0, out: 'hi\n', err: '' });
  const cat = h.start(['cat'], stdin);
  stdin.push('abc\n');
  stdin.close();
  assert.equal((await cat.done).out, 'abc\n');
});

test('an interactive shell on a terminal prompts; Ctrl-C interrupts the foreground command', async () => {
  const h = harness();
  const stdin = new StreamStdin();
  const s = h.start(['sh'], stdin, { tty: true });
  await new Promise((r) => setImmediate(r));
  assert.equal(s.out(), '/ # ');
  stdin.push('sleep 100\n');
  await new Promise((r) => setImmediate(r));
  s.proc.interrupt();
  await new Promise((r) => setImmediate(r));
  stdin.push('echo $?\n');
  await new Promise((r) => setImmediate(r));
  stdin.eof();
  const r = await s.done;
  assert.equal(r.out, '/ # / # 130\n/ # \n');
  assert.equal(r.code, 0, 'the status of the last command (echo)');
});

test('ls: -l with sizes, dates and owners; -d; -a; missing paths', async () => {
  const h = harness();
  await h.clock.advance(3_600_000);
  await h.run(['sh', '-c', 'mkdir /data; echo hello > /data/f']);
  const l = await h.run(['ls', '-l', '/data']);
  assert.equal(l.out, 'total 4\n-rw-r--r--    1 root     root             6 Jan  1 01:00 f\n');
  assert.equal((await h.run(['ls', '-ld', '/data'])).out, 'drwxr-xr-x    2 root     root          4096 Jan  1 01:00 /data\n');
  assert.equal((await h.run(['ls', '-a', '/data'])).out, '.\n..\nf\n');
  assert.deepEqual(await h.run(['ls', '/nope']), { code: 1, out: '', err: 'ls: /nope: No such file or directory\n' });
  assert.equal((await h.run(['ls', '/data', '/data/f'])).out, '/data/f\n\n/data:\nf\n');
  const u = harness({ uid: 1000 });
  await u.run(['sh', '-c', 'echo x > /tmp/mine']);
  assert.match((await u.run(['ls', '-ln', '/tmp/mine'])).out, /^-rw-r--r-- {4}1 1000 {5}0 {16}2 Jan {2}1 00:00 \/tmp\/mine\n$/);
});

test('redirections report errors as busybox sh', async () => {
  const h = harness();
  assert.deepEqual(await h.run(['sh', '-c', 'echo x > /nope/f']), { code: 1, out: '', err: "sh: can't create /nope/f: nonexistent directory\n" });
  assert.deepEqual(await h.run(['sh', '-c', 'cat < /nope']), { code: 1, out: '', err: "sh: can't open /nope: no such file\n" });
});

test('tail -f prints what is appended, once a second of clock time', async () => {
  const h = harness();
  await h.run(['sh', '-c', 'echo a > /tmp/log']);
  const t = h.start(['tail', '-f', '/tmp/log']);
  await new Promise((r) => setImmediate(r));
  await h.run(['sh', '-c', 'echo b >> /tmp/log']);
  await h.clock.advance(1000);
  assert.equal(t.out(), 'a\nb\n');
  t.proc.kill();
  await assert.rejects(t.done, KilledError);
});

test('curl and wget reach the pod (localhost) and nothing else', async () => {
  const answer = (r: HttpRequest): HttpAnswer => {
    if (r.host === 'localhost' && r.port === 80) {
      return r.path === '/'
        ? { kind: 'response', ip: '127.0.0.1', status: 200, reason: 'OK', headers: [['Server', 'nginx/1.14.2']], body: 'Hello\n' }
        : { kind: 'response', ip: '127.0.0.1', status: 404, reason: 'Not Found', headers: [], body: 'nf' };
    }
    if (r.host === 'localhost') return { kind: 'refused', ip: '127.0.0.1' };
    return { kind: 'unresolved' };
  };
  const h = harness({ http: answer });
  assert.deepEqual(await h.run(['curl', '-s', 'localhost']), { code: 0, out: 'Hello\n', err: '' });
  assert.deepEqual(await h.run(['curl', '-sS', 'http://localhost:8080/']), {
    code: 7,
    out: '',
    err: "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server\n",
  });
  assert.deepEqual(await h.run(['curl', 'example.com']), { code: 6, out: '', err: 'curl: (6) Could not resolve host: example.com\n' });
  assert.deepEqual(await h.run(['curl', '-sf', 'localhost/x']), { code: 22, out: '', err: '' });
  assert.equal((await h.run(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', 'localhost/x'])).out, '404');
  assert.equal((await h.run(['curl', '-sI', 'localhost'])).out, 'HTTP/1.1 200 OK\r\nServer: nginx/1.14.2\r\n\r\n');
  assert.deepEqual(await h.run(['wget', '-qO-', 'localhost']), { code: 0, out: 'Hello\n', err: '' });
  assert.deepEqual(await h.run(['wget', '-q', '-O', '-', 'http://localhost/x']), { code: 1, out: '', err: 'wget: server returned error: HTTP/1.1 404 Not Found\n' });
  assert.deepEqual(await h.run(['wget', 'info.cern.ch']), { code: 1, out: '', err: "wget: bad address 'info.cern.ch'\n" });
  const saved = await h.run(['sh', '-c', 'cd /tmp && wget http://localhost/ && cat index.html']);
  assert.equal(saved.out, 'Hello\n');
  assert.match(saved.err, /^Connecting to localhost \(127\.0\.0\.1:80\)\nsaving to 'index\.html'\n/);
  assert.deepEqual(await h.run(['wget', 'localhost:8080']), {
    code: 1,
    out: '',
    err: "Connecting to localhost:8080 (127.0.0.1:8080)\nwget: can't connect to remote host (127.0.0.1): Connection refused\n",
  });
  assert.deepEqual(await harness().run(['curl', 'localhost']), { code: 6, out: '', err: 'curl: (6) Could not resolve host: localhost\n' }, 'no network without the pod');
});

test('nslookup and getent answer from /etc/hosts', async () => {
  const h = harness();
  assert.equal(
    (await h.run(['nslookup', 'localhost'])).out,
    'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tlocalhost\nAddress: 127.0.0.1\n\nName:\tlocalhost\nAddress: ::1\n\n',
  );
  assert.deepEqual(await h.run(['nslookup', 'kubernetes.default']), { code: 1, out: ';; connection timed out; no servers could be reached\n\n', err: '' });
  assert.equal((await h.run(['getent', 'hosts', 'localhost'])).out, '::1             localhost ip6-localhost ip6-loopback\n');
  assert.equal((await h.run(['getent', 'hosts', 'web'])).out, '10.1.0.5        web\n');
  assert.equal((await h.run(['getent', 'hosts', 'nope'])).code, 2);
  assert.equal((await h.run(['getent', 'passwd', 'root'])).out, 'root:x:0:0:root:/root:/bin/sh\n');
});

test('which and command -v know the simulated programs', async () => {
  const h = harness();
  assert.deepEqual(await h.run(['sh', '-c', 'which ls; command -v cd; which redis-cli || echo none']), { code: 0, out: '/bin/ls\ncd\nnone\n', err: '' });
});

test('bash indexed arrays (the indexed-job example); ash has none; rev reverses lines', async () => {
  const h = harness();
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash script
  const script = 'items=(foo bar "baz qux" xyz)\ni=2\necho ${items[$i]} ${items[0]} ${items[1+2]} ${#items[@]} "${items[@]}"\necho ${items[9]}-';
  assert.deepEqual(await h.run(['bash', '-c', script]), { code: 0, out: 'baz qux foo xyz 4 foo bar baz qux xyz\n-\n', err: '' });
  assert.deepEqual(await h.run(['sh', '-c', 'a=(x y); echo no']), { code: 2, out: '', err: 'sh: syntax error: unexpected "("\n' });
  h.fs.write('/tmp/data.txt', 'foo\nxyz\n');
  assert.deepEqual(await h.run(['rev', '/tmp/data.txt']), { code: 0, out: 'oof\nzyx\n', err: '' });
  assert.deepEqual(await h.run(['rev'], stringStdin('abc')), { code: 0, out: 'cba', err: '' });
  assert.deepEqual(await h.run(['rev', '/nope']), { code: 1, out: '', err: "rev: can't open '/nope': No such file or directory\n" });
});

test('main process: interpreters are not servers (127 like a shell); perl only in images that have it', async () => {
  const main = harness({ unknown: 'serve' });
  assert.deepEqual(await main.run(['sh', '-c', 'python3 app.py; echo $?']), { code: 0, out: '127\n', err: 'sh: python3: not found\n' });
  const withPerl = harness().start(['perl', '-le', 'print bpi(4)'], stringStdin(''), { programs: new Set(['perl']) });
  assert.deepEqual(await withPerl.done, { code: 0, out: '3.142\n', err: '' });
  assert.deepEqual(await harness().run(['perl', '-le', 'print bpi(4)']), { code: 127, out: '', err: 'sh: perl: not found\n' });
});
