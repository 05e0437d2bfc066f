import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { freePort } from '../../../test/support/ports.js';
import { grpcHealthCheck, hostNetworkProber, httpGetRequest, resolvePort } from './network.js';

const pod = {} as Pod;
const c: Container = { name: 'app', ports: [{ name: 'web', containerPort: 8080 }] };

function listen(handler: http.RequestListener): Promise<{ port: number; close(): Promise<void> }> {
  return new Promise((resolve) => {
    const s = http.createServer(handler);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      resolve({ port, close: () => new Promise((r) => (s.closeAllConnections(), s.close(() => r()))) });
    });
  });
}

test('ports: numbers, numeric strings and named container ports', () => {
  assert.equal(resolvePort(81, c), 81);
  assert.equal(resolvePort('82', c), 82);
  assert.equal(resolvePort('web', c), 8080);
  assert.throws(() => resolvePort('nope', c), /couldn't find port: nope in app/);
  assert.throws(() => resolvePort(70000, c), /invalid port number: 70000/);
});

test('httpGet request: scheme, host default pod IP, path with query, User-Agent/Accept defaults, Host header', () => {
  const r = httpGetRequest({ port: 'web', path: '/healthz?x=1', httpHeaders: [{ name: 'Custom-Header', value: 'Awesome' }] }, c, '10.42.0.7', 'probe');
  assert.equal(r.url.toString(), 'http://10.42.0.7:8080/healthz?x=1');
  assert.deepEqual(r.headers, { 'Custom-Header': 'Awesome', 'User-Agent': 'kube-probe/1.32', Accept: '*/*' });
  const h = httpGetRequest(
    {
      port: 443,
      scheme: 'HTTPS',
      host: 'example.test',
      httpHeaders: [
        { name: 'Accept', value: '' },
        { name: 'user-agent', value: 'me' },
      ],
    },
    c,
    '10.42.0.7',
    'lifecycle',
  );
  assert.equal(h.url.toString(), 'https://example.test/');
  assert.deepEqual(h.headers, { 'user-agent': 'me' });
});

test('httpGet probe: 2xx success with body, 500 failure text, same-host redirects followed, headers sent', async () => {
  const seen: http.IncomingHttpHeaders[] = [];
  const srv = await listen((req, res) => {
    seen.push(req.headers);
    if (req.url === '/ok') return res.end('fine');
    if (req.url === '/bad') return ((res.statusCode = 500), res.end('broken'));
    if (req.url === '/moved') return res.writeHead(302, { location: '/ok' }).end();
    if (req.url === '/away') return res.writeHead(301, { location: 'http://192.0.2.1/x' }).end('gone');
    if (req.url === '/big') return res.end('x'.repeat(50_000));
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2000);
    res.statusCode = 404;
    res.end();
  });
  try {
    const probe = (path: string, timeoutS = 1) =>
      hostNetworkProber.httpGet(pod, c, '127.0.0.1', { port: srv.port, path, httpHeaders: [{ name: 'Custom-Header', value: 'Awesome' }] }, timeoutS);
    assert.deepEqual(await probe('/ok'), { result: 'success', output: 'fine' });
    assert.equal(seen[0]!['custom-header'], 'Awesome');
    assert.equal(seen[0]!['user-agent'], 'kube-probe/1.32');
    assert.deepEqual(await probe('/bad'), { result: 'failure', output: 'HTTP probe failed with statuscode: 500' });
    assert.deepEqual(await probe('/moved'), { result: 'success', output: 'fine' });
    assert.deepEqual(await probe('/away'), { result: 'warning', output: 'Probe terminated redirects, Response body: gone' });
    assert.equal((await probe('/big')).output.length, 10 * 1024);
    const slow = await probe('/slow');
    assert.equal(slow.result, 'failure');
    assert.match(slow.output, /^Get "http:\/\/127\.0\.0\.1:\d+\/slow": context deadline exceeded \(Client\.Timeout exceeded while awaiting headers\)$/);
  } finally {
    await srv.close();
  }
  const port = await freePort();
  const refused = await hostNetworkProber.httpGet(pod, c, '127.0.0.1', { port, path: '/healthz' }, 1);
  assert.deepEqual(refused, { result: 'failure', output: `Get "http://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused` });
  const named = await hostNetworkProber.httpGet(pod, c, '127.0.0.1', { port: 'metrics' }, 1);
  assert.equal(named.result, 'unknown');
  assert.match(named.error!, /couldn't find port: metrics/);
});

test('tcpSocket probe: connected = success; refused with Go’s text', async () => {
  const s = net.createServer((sock) => sock.destroy());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  try {
    assert.deepEqual(await hostNetworkProber.tcpSocket(pod, c, '127.0.0.1', { port }, 1), { result: 'success', output: '' });
  } finally {
    await new Promise((r) => s.close(r));
  }
  assert.deepEqual(await hostNetworkProber.tcpSocket(pod, c, '127.0.0.1', { port }, 1), { result: 'failure', output: `dial tcp 127.0.0.1:${port}: connect: connection refused` });
});

test('grpc probe: SERVING, NOT_SERVING, unimplemented service, nothing listening', async () => {
  const server = new grpc.Server();
  const statusOf: Record<string, number> = { '': 1, sick: 2 };
  server.addService(
    {
      Check: {
        path: '/grpc.health.v1.Health/Check',
        requestStream: false,
        responseStream: false,
        requestSerialize: (x: Buffer) => x,
        requestDeserialize: (b: Buffer) => ({ service: b.length ? b.subarray(2).toString() : '' }),
        responseSerialize: (n: number) => Buffer.from([0x08, n]),
        responseDeserialize: (b: Buffer) => b,
      },
    } as unknown as grpc.ServiceDefinition,
    {
      Check: (call: grpc.ServerUnaryCall<{ service: string }, number>, cb: grpc.sendUnaryData<number>) => {
        if (call.request.service === 'missing') return cb({ code: grpc.status.UNIMPLEMENTED, details: 'unknown service' });
        cb(null, statusOf[call.request.service] ?? 3);
      },
    },
  );
  const port = await new Promise<number>((r, j) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? j(e) : r(p))));
  try {
    assert.deepEqual(await grpcHealthCheck('127.0.0.1', port, '', 1000), { result: 'success', output: 'service healthy' });
    assert.deepEqual(await grpcHealthCheck('127.0.0.1', port, 'sick', 1000), { result: 'failure', output: 'service unhealthy (responded with "NOT_SERVING")' });
    assert.deepEqual(await grpcHealthCheck('127.0.0.1', port, 'missing', 1000), {
      result: 'failure',
      output: 'error: this server does not implement the grpc health protocol (grpc.health.v1.Health): unknown service',
    });
  } finally {
    server.forceShutdown();
  }
  const none = await freePort();
  assert.deepEqual(await grpcHealthCheck('127.0.0.1', none, '', 300), {
    result: 'failure',
    output: `timeout: failed to connect service "127.0.0.1:${none}" within 300ms: context deadline exceeded`,
  });
});
