import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Channel, streamExitCode, type StreamStatus } from '../../streaming/channel.js';
import type { SpdyStream } from '../../streaming/spdy/session.js';
import { dialSpdy, spdyOverWebSocket } from '../../streaming/spdy/transports.js';
import type { AttachRequest, ExecRequest, PortForwardRequest } from '../../cri/api.js';
import { SimRuntime } from '../../cri/sim/index.js';
import { FakeClock } from '../../util/fake-clock.js';
import { servePortForward } from './portforward.js';
import { serveSpdyRemoteCommand } from './remotecommand.js';
import { startKubeletServer, type KubeletServer } from './server.js';
import { collectFrames, fakeStreamingServer, httpsGet, openRawWebSocket, openWebSocket, runSimPod, testPKI, type SimPod, type TestPKI } from './test-support.js';

/** Waits (by polling a condition, not a fixed delay) until `cond` holds. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function readStream(s: SpdyStream): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}

function channelText(frames: Buffer[], ch: number): string {
  return Buffer.concat(frames.filter((f) => f[0] === ch).map((f) => f.subarray(1))).toString();
}

let dir: string;
let pki: TestPKI;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'k8ts-kubelet-server-'));
  pki = await testPKI();
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('kubelet server with the simulated runtime', () => {
  const clock = new FakeClock();
  const rt = new SimRuntime({ podCIDR: '10.9.0.0/24', images: ['docker.io/library/busybox:1.36'], clock });
  const pods = new Map<string, Pod>();
  let srv: KubeletServer;
  let web: SimPod;
  let job: SimPod;

  before(async () => {
    const logRoot = join(dir, 'sim-logs');
    web = await runSimPod(rt, logRoot, { name: 'web', uid: 'uid-web', command: ['sh', '-c', 'echo hello; echo oops >&2; sleep 3600'] });
    job = await runSimPod(rt, logRoot, { name: 'job', uid: 'uid-job', command: ['sh', '-c', 'echo one; sleep 1; echo two'] });
    pods.set('default/web', web.pod);
    pods.set('default/job', job.pod);
    await until(() => existsSync(web.logPath) && readFileSync(web.logPath, 'utf8').includes('oops'), 'web logs');
    srv = await startKubeletServer({
      runtime: rt,
      nodeName: 'node-a',
      podLookup: (ns, n) => pods.get(`${ns}/${n}`),
      tls: { cert: pki.serving.cert, key: pki.serving.key, clientCA: pki.ca.cert },
      port: 0,
      address: '127.0.0.1',
      logRoot,
      logPollMs: 10,
    });
  });
  after(async () => {
    await srv?.close();
    await rt.close();
  });

  const get = (p: string, who: 'apiserver' | 'alice' | 'none' = 'apiserver') => httpsGet(srv.port, p, pki.ca.cert, who === 'none' ? undefined : pki[who]);

  it('serves healthz and authenticates/authorizes callers', async () => {
    assert.deepEqual([(await get('/healthz', 'none')).status, (await get('/healthz', 'none')).body], [200, 'ok']);
    const anon = await get('/containerLogs/default/web/c', 'none');
    assert.deepEqual([anon.status, anon.body], [401, 'Unauthorized']);
    const alice = await get('/containerLogs/default/web/c', 'alice');
    assert.equal(alice.status, 403);
    assert.equal(alice.body, 'Forbidden (user=alice, verb=get, resource=nodes, subresource=proxy)');
    assert.equal((await get('/nope')).status, 404);
  });

  it('serves container logs with options', async () => {
    const all = await get('/containerLogs/default/web/c');
    assert.equal(all.status, 200);
    assert.match(String(all.headers['content-type']), /^text\/plain/);
    assert.equal(all.body, 'hello\noops\n');
    const ts = await get('/containerLogs/default/web/c?timestamps=true&tailLines=1');
    assert.match(ts.body, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z oops\n$/);
    assert.equal((await get('/containerLogs/default/web/c?limitBytes=3')).body, 'hel');
    assert.equal((await get('/containerLogs/default/web/c?stream=Stderr')).body, 'oops\n');
  });

  it('answers log errors with upstream texts', async () => {
    const prev = await get('/containerLogs/default/web/c?previous=true');
    assert.deepEqual([prev.status, prev.body], [400, 'previous terminated container "c" in pod "web" not found']);
    const noPod = await get('/containerLogs/default/ghost/c');
    assert.deepEqual([noPod.status, noPod.body], [404, 'pod "ghost" does not exist']);
    const noC = await get('/containerLogs/default/web/zzz');
    assert.deepEqual([noC.status, noC.body], [404, 'container "zzz" not found in pod "web"']);
    assert.equal((await get('/containerLogs/default/web/c?tailLines=x')).status, 400);
    assert.equal((await get('/containerLogs/default/web/c?tailLines=-1')).status, 422);
  });

  it('follows a log until the container exits', async () => {
    const res = get('/containerLogs/default/job/c?follow=true');
    await until(() => readFileSync(job.logPath, 'utf8').includes('one'), 'first line');
    await clock.advance(1000); // the container prints "two" and exits
    const r = await res;
    assert.equal(r.status, 200);
    assert.equal(r.body, 'one\ntwo\n');
  });

  it('execs over WebSocket v5: output, status, exit codes', async () => {
    const ws = await openWebSocket(srv.port, '/exec/default/web/c?command=echo&command=hi&stdout=1&stderr=1', ['v5.channel.k8s.io', 'v4.channel.k8s.io'], pki);
    assert.equal(ws.protocol, 'v5.channel.k8s.io');
    const { frames, code } = await collectFrames(ws);
    assert.equal(code, 1000);
    assert.equal(channelText(frames, Channel.stdout), 'hi\n');
    assert.deepEqual(JSON.parse(channelText(frames, Channel.error)), { metadata: {}, status: 'Success' });

    const ws3 = await openWebSocket(srv.port, '/exec/default/web/c?command=sh&command=-c&command=echo%20no%20%3E%262%3B%20exit%203&stdout=1&stderr=1', ['v4.channel.k8s.io'], pki);
    const r3 = await collectFrames(ws3);
    assert.equal(channelText(r3.frames, Channel.stderr), 'no\n');
    const st = JSON.parse(channelText(r3.frames, Channel.error)) as StreamStatus;
    assert.equal(st.reason, 'NonZeroExitCode');
    assert.deepEqual(st.details?.causes, [{ reason: 'ExitCode', message: '3' }]);
  });

  it('feeds stdin until the v5 close signal', async () => {
    const ws = await openWebSocket(srv.port, '/exec/default/web/c?command=cat&stdin=1&stdout=1&stderr=1', ['v5.channel.k8s.io'], pki);
    const done = collectFrames(ws);
    ws.send(Buffer.from([0, ...Buffer.from("it's ")]));
    ws.send(Buffer.from([0, ...Buffer.from('piped\n')]));
    ws.send(Buffer.from([255, 0]));
    const { frames } = await done;
    assert.equal(channelText(frames, Channel.stdout), "it's piped\n");
  });

  it('refuses exec into an unknown container and requests without streams', async () => {
    await assert.rejects(openWebSocket(srv.port, '/exec/default/web/zzz?command=ls&stdout=1', ['v5.channel.k8s.io'], pki), /^Error: 500: container not found \("zzz"\)$/);
    await assert.rejects(openWebSocket(srv.port, '/exec/default/web/c?command=ls', ['v5.channel.k8s.io'], pki), /400: you must specify at least 1 of stdin, stdout, stderr/);
    await assert.rejects(openWebSocket(srv.port, '/exec/default/ghost/c?command=ls&stdout=1', ['v5.channel.k8s.io'], pki), /404: pod does not exist/);
    assert.equal((await get('/exec/default/web/c?command=ls&stdout=1')).body, 'Upgrade request required');
  });

  it('serves exec over a SPDY upgrade (the fallback kubectl tries)', async () => {
    const { session, protocol } = await dialSpdy(`https://127.0.0.1:${srv.port}/exec/default/web/c?command=cat&stdin=1&stdout=1`, {
      protocols: ['v4.channel.k8s.io', 'v3.channel.k8s.io'],
      tls: { ca: pki.ca.cert, cert: pki.apiserver.cert, key: pki.apiserver.key },
    });
    assert.equal(protocol, 'v4.channel.k8s.io');
    const err = session.openStream({ streamType: 'error' });
    const errText = readStream(err);
    const stdin = session.openStream({ streamType: 'stdin' });
    const stdout = session.openStream({ streamType: 'stdout' });
    const out = readStream(stdout);
    stdin.end('over spdy');
    assert.equal(await out, 'over spdy');
    assert.deepEqual(JSON.parse(await errText), { metadata: {}, status: 'Success' });
    session.close();
  });

  it('exec with a terminal: a command that reads nothing ends although stdin stays open; a shell answers per line', async () => {
    const ws = await openWebSocket(srv.port, '/exec/default/web/c?command=echo&command=hi&stdin=1&stdout=1&tty=1', ['v5.channel.k8s.io'], pki);
    const { frames, code } = await collectFrames(ws); // no stdin close signal is ever sent
    assert.equal(code, 1000);
    assert.equal(channelText(frames, Channel.stdout), 'hi\r\n');
    assert.deepEqual(JSON.parse(channelText(frames, Channel.error)), { metadata: {}, status: 'Success' });

    const sh = await openWebSocket(srv.port, '/exec/default/web/c?command=sh&stdin=1&stdout=1&tty=1', ['v5.channel.k8s.io'], pki);
    const done = collectFrames(sh);
    const seen: Buffer[] = [];
    sh.on('message', (d: Buffer) => seen.push(Buffer.from(d)));
    const type = async (text: string, until0: string): Promise<void> => {
      sh.send(Buffer.from([Channel.stdin, ...Buffer.from(text)]));
      await until(() => channelText(seen, Channel.stdout).endsWith(until0), `output ${JSON.stringify(until0)}`);
    };
    await until(() => channelText(seen, Channel.stdout) === '/ # ', 'the prompt');
    await type('echo one\r', 'one\r\n/ # ');
    await type('cat\r', 'cat\r\n');
    await type('typed\r\x04', 'typed\r\n/ # ');
    sh.send(Buffer.from([Channel.stdin, ...Buffer.from('exit 3\r')]));
    const r = await done;
    assert.equal(channelText(r.frames, Channel.stdout), '/ # echo one\r\none\r\n/ # cat\r\ntyped\r\ntyped\r\n/ # exit 3\r\n');
    assert.deepEqual((JSON.parse(channelText(r.frames, Channel.error)) as StreamStatus).details?.causes, [{ reason: 'ExitCode', message: '3' }]);
  });

  it('exec of a program the simulation does not know fails at once (127)', async () => {
    const ws = await openWebSocket(srv.port, '/exec/default/web/c?command=redis-cli&command=ping&stdin=1&stdout=1&stderr=1', ['v5.channel.k8s.io'], pki);
    const { frames } = await collectFrames(ws);
    assert.equal(channelText(frames, Channel.stderr), 'sh: redis-cli: not found\n');
    assert.deepEqual((JSON.parse(channelText(frames, Channel.error)) as StreamStatus).details?.causes, [{ reason: 'ExitCode', message: '127' }]);
  });

  it('attaches to the output the container writes from now on', async () => {
    const att = await runSimPod(rt, join(dir, 'sim-logs'), { name: 'att', uid: 'uid-att', command: ['sh', '-c', 'echo before; sleep 5; echo after; sleep 5; echo gone >&2'] });
    pods.set('default/att', att.pod);
    await until(() => existsSync(att.logPath) && readFileSync(att.logPath, 'utf8').includes('before'), 'first output');
    const ws = await openWebSocket(srv.port, '/attach/default/att/c?stdout=1&stderr=1', ['v5.channel.k8s.io'], pki);
    const done = collectFrames(ws);
    // attach shows output from the moment the kubelet starts following the log, which
    // happens just after the upgrade; give the (loaded) test machine time to get there
    // before the simulated container writes
    await new Promise((r) => setTimeout(r, 300));
    await clock.advance(5000);
    await clock.advance(5000);
    const { frames } = await done;
    assert.equal(channelText(frames, Channel.stdout), 'after\n');
    assert.equal(channelText(frames, Channel.stderr), 'gone\n');
  });

  it('tunnels port-forward SPDY in WebSocket messages; the simulation reports that nothing listens', async () => {
    // openRawWebSocket checks that the server answered with exactly this subprotocol
    const ws = await openRawWebSocket(srv.port, '/portForward/default/web', 'SPDY/3.1+portforward.k8s.io', pki);
    const session = spdyOverWebSocket(ws, { role: 'client' });
    const headers = { port: '80', requestID: '0' };
    const err = session.openStream({ ...headers, streamType: 'error' });
    err.end();
    const data = session.openStream({ ...headers, streamType: 'data' });
    data.resume();
    assert.match(await readStream(err), /^error forwarding port 80 to pod [0-9a-f]+, uid : the simulated runtime \(sim\) runs no processes/);
    session.close();
  });
});

describe('kubelet server through a CRI streaming server', () => {
  const rt = new (class extends SimRuntime {
    base = '';
    override async exec(_r: ExecRequest) {
      return { url: `${this.base}/exec/token1` };
    }
    override async attach(_r: AttachRequest) {
      return { url: `${this.base}/attach/token2` };
    }
    override async portForward(_r: PortForwardRequest) {
      return { url: `${this.base}/portforward/token3` };
    }
  })({ podCIDR: '10.9.1.0/24', images: ['docker.io/library/busybox:1.36'] });
  const pods = new Map<string, Pod>();
  let srv: KubeletServer;
  let cri: Awaited<ReturnType<typeof fakeStreamingServer>>;
  let echo: net.Server;
  let echoPort = 0;
  const seen: string[] = [];

  before(async () => {
    echo = net.createServer((c) => c.on('data', (d: Buffer) => c.write(d.toString().toUpperCase())).on('end', () => c.end()));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    echoPort = (echo.address() as net.AddressInfo).port;
    cri = await fakeStreamingServer((session, path, offered) => {
      seen.push(`${path} ${offered.join(',')}`);
      if (path.startsWith('/portforward/')) {
        servePortForward(session, {
          async forward(port, _rid, data) {
            assert.equal(port, 8080);
            const c = net.connect(echoPort, '127.0.0.1');
            data.pipe(c);
            c.pipe(data);
            await new Promise((r) => c.on('close', r));
          },
          close() {},
        });
        return 'portforward.k8s.io';
      }
      void serveSpdyRemoteCommand(session, 'v4.channel.k8s.io', { stdin: true, stdout: true, stderr: true, tty: false }, async (io) => {
        const chunks: Buffer[] = [];
        for await (const c of io.stdin!) chunks.push(c as Buffer);
        await new Promise<void>((r) => io.stdout!.write(Buffer.concat(chunks).toString().toUpperCase(), () => r()));
        await new Promise<void>((r) => io.stderr!.write('warn\n', () => r()));
        return streamExitCode(7);
      });
      return 'v4.channel.k8s.io';
    });
    rt.base = cri.url;
    const p = await runSimPod(rt, join(dir, 'cri-logs'), { name: 'web', uid: 'uid-cri', command: ['sleep', '3600'] });
    pods.set('default/web', p.pod);
    srv = await startKubeletServer({
      runtime: rt,
      nodeName: 'node-a',
      podLookup: (ns, n) => pods.get(`${ns}/${n}`),
      tls: { cert: pki.serving.cert, key: pki.serving.key, clientCA: pki.ca.cert },
      port: 0,
      address: '127.0.0.1',
    });
  });
  after(async () => {
    await srv?.close();
    await cri?.close();
    echo?.close();
    await rt.close();
  });

  it('translates a v5 WebSocket exec into SPDY streams, stdin EOF included', async () => {
    const ws = await openWebSocket(srv.port, '/exec/default/web/c?command=x&stdin=1&stdout=1&stderr=1', ['v5.channel.k8s.io'], pki);
    const done = collectFrames(ws);
    ws.send(Buffer.from([0, ...Buffer.from('shout')]));
    ws.send(Buffer.from([255, 0]));
    const { frames, code } = await done;
    assert.equal(code, 1000);
    assert.equal(channelText(frames, Channel.stdout), 'SHOUT');
    assert.equal(channelText(frames, Channel.stderr), 'warn\n');
    const st = JSON.parse(channelText(frames, Channel.error)) as StreamStatus;
    assert.deepEqual(st.details?.causes, [{ reason: 'ExitCode', message: '7' }]);
    assert.ok(seen.includes('/exec/token1 v4.channel.k8s.io,v3.channel.k8s.io,v2.channel.k8s.io,channel.k8s.io'), seen.join('\n'));
  });

  it('forwards port-forward connections through the runtime', async () => {
    const ws = await openRawWebSocket(srv.port, '/portForward/default/web', 'SPDY/3.1+portforward.k8s.io', pki);
    const session = spdyOverWebSocket(ws, { role: 'client' });
    for (const rid of ['0', '1']) {
      const headers = { port: '8080', requestID: rid };
      const err = session.openStream({ ...headers, streamType: 'error' });
      err.end();
      const errText = readStream(err);
      const data = session.openStream({ ...headers, streamType: 'data' });
      const back = readStream(data);
      data.end(`hello ${rid}`);
      assert.equal(await back, `HELLO ${rid}`);
      assert.equal(await errText, '');
    }
    session.close();
  });

  it('serves port-forward over WebSocket channels (v4.channel.k8s.io): port prefixes, then data both ways', async () => {
    const ws = await openWebSocket(srv.port, '/portForward/default/web?port=8080', ['v4.channel.k8s.io'], pki);
    assert.equal(ws.protocol, 'v4.channel.k8s.io');
    const frames: Buffer[] = [];
    const data = (): string =>
      Buffer.concat(
        frames
          .filter((f) => f[0] === 0)
          .slice(1)
          .map((f) => f.subarray(1)),
      ).toString();
    const echoed = new Promise<void>((resolve) =>
      ws.on('message', (d: Buffer) => {
        frames.push(d);
        if (data() === 'HELLO') resolve();
      }),
    );
    ws.send(Buffer.from([0, ...Buffer.from('hello')]));
    await echoed;
    // each channel first carries the port, 2 bytes little-endian (8080 = 0x1f90)
    assert.deepEqual(
      frames.slice(0, 2).map((f) => [...f]),
      [
        [0, 0x90, 0x1f],
        [1, 0x90, 0x1f],
      ],
    );
    assert.ok(!frames.some((f) => f[0] === 1 && f.length > 3), 'nothing on the error channel');
    ws.close();
  });

  it('port-forward over WebSocket channels needs a port', async () => {
    await assert.rejects(openWebSocket(srv.port, '/portForward/default/web', ['v4.channel.k8s.io'], pki));
  });
});
