/**
 * The HTTPS listener's own answers, before a request reaches the pipeline: parse errors,
 * the header timeout, and bodies over the 3 MiB limit on keep-alive connections. Every
 * answer a client can read is a metav1.Status; a connection a client opened but never
 * used is closed silently (a bare `HTTP/1.1 400` written there was read by client-go as
 * the response to its next request: `the server rejected our request for an unknown reason`).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { APIServer } from './apiserver.js';
import { MAX_REQUEST_BODY_BYTES } from './http/body.js';
import type { ApiRequest, ResponseWriter } from './http/types.js';
import { createCA, issueCert, type KeyPairPEM } from '../pki/pki.js';
import { listen } from './server.js';

/** A stand-in for the pipeline: answers 200 with the body size it was given. */
const echo = {
  async handle(req: ApiRequest, res: ResponseWriter): Promise<void> {
    const body = JSON.stringify({ method: req.method, url: req.url, size: req.body?.length ?? 0 });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  },
} as unknown as APIServer;

describe('HTTPS listener: errors before the pipeline', () => {
  let ca: KeyPairPEM;
  let srv: Server;
  let port = 0;

  before(async () => {
    ca = await createCA('server-test-ca');
    const cert = await issueCert(ca, { commonName: 'kube-apiserver', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usage: 'server' });
    srv = await listen(echo, { host: '127.0.0.1', port: 0, cert: cert.cert, key: cert.key, clientCA: ca.cert, headersTimeout: 300, connectionsCheckingInterval: 100 });
    port = (srv.address() as AddressInfo).port;
  });
  after(() => {
    srv.closeAllConnections();
    srv.close();
  });

  function open(): Promise<TLSSocket> {
    return new Promise((resolve, reject) => {
      const s = tlsConnect({ host: '127.0.0.1', port, ca: ca.cert, servername: 'localhost' });
      s.once('secureConnect', () => resolve(s));
      s.once('error', reject);
    });
  }

  /** everything the server sends until it closes the connection */
  function readAll(s: TLSSocket): Promise<string> {
    return new Promise((resolve) => {
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString('latin1')));
      s.on('close', () => resolve(got));
      s.on('error', () => undefined);
    });
  }

  /** the first `n` complete responses on the connection (Content-Length framed) */
  function readResponses(s: TLSSocket, n: number): Promise<{ head: string; body: string }[]> {
    return new Promise((resolve, reject) => {
      let buf = '';
      const out: { head: string; body: string }[] = [];
      s.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        for (;;) {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buf.slice(0, end);
          const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? '0');
          if (buf.length < end + 4 + len) return;
          out.push({ head, body: buf.slice(end + 4, end + 4 + len) });
          buf = buf.slice(end + 4 + len);
          if (out.length === n) {
            resolve(out);
            return;
          }
        }
      });
      s.on('close', () => reject(new Error(`connection closed after ${out.length} responses: ${JSON.stringify(buf.slice(0, 200))}`)));
    });
  }

  it('closes a connection that sent no request within the header timeout without writing anything', async () => {
    const s = await open();
    const got = await readAll(s); // the server ends it: header timeout 300 ms, checked every 100 ms
    assert.equal(got, '');
  });

  it('a connection that was used stays open past the header timeout and serves the next request', async () => {
    const s = await open();
    const rs = readResponses(s, 2);
    s.write('GET /first HTTP/1.1\r\nHost: x\r\n\r\n');
    // idle long past the header timeout: the keep-alive timeout governs an idle used connection
    await new Promise((r) => setTimeout(r, 700));
    s.write('PUT /second HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi');
    const [a, b] = await rs;
    assert.match(a!.head, /^HTTP\/1\.1 200/);
    assert.match(b!.head, /^HTTP\/1\.1 200/);
    assert.deepEqual(JSON.parse(b!.body), { method: 'PUT', url: '/second', size: 2 });
    s.destroy();
  });

  it('answers a malformed request with a 400 Status and closes', async () => {
    const s = await open();
    const got = readAll(s);
    s.write('NOT A REQUEST\r\n\r\n');
    const text = await got;
    const [head, body] = text.split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 400 Bad Request/);
    assert.match(head!, /Connection: close/i);
    assert.match(head!, /Content-Type: application\/json/i);
    const st = JSON.parse(body!);
    assert.equal(st.kind, 'Status');
    assert.equal(st.status, 'Failure');
    assert.equal(st.code, 400);
    assert.equal(st.reason, 'BadRequest');
  });

  it('answers headers over the size limit with a 431 Status', async () => {
    const s = await open();
    const got = readAll(s);
    s.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const [head, body] = (await got).split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 431/);
    const st = JSON.parse(body!);
    assert.equal(st.kind, 'Status');
    assert.equal(st.code, 431);
  });

  it('a body over 3 MiB gets a 413 Status and the connection serves the next request', async () => {
    const s = await open();
    const rs = readResponses(s, 2);
    const n = MAX_REQUEST_BODY_BYTES + 1024 * 1024;
    s.write(`PATCH /big HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${n}\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let sent = 0; sent < n; sent += chunk.length) {
      const part = sent + chunk.length <= n ? chunk : chunk.subarray(0, n - sent);
      if (!s.write(part)) await new Promise((r) => s.once('drain', r));
    }
    s.write('GET /after HTTP/1.1\r\nHost: x\r\n\r\n');
    const [a, b] = await rs;
    assert.match(a!.head, /^HTTP\/1\.1 413/);
    const st = JSON.parse(a!.body);
    assert.equal(st.kind, 'Status');
    assert.equal(st.reason, 'RequestEntityTooLarge');
    assert.match(b!.head, /^HTTP\/1\.1 200/);
    assert.deepEqual(JSON.parse(b!.body), { method: 'GET', url: '/after', size: 0 });
    s.destroy();
  });
});
