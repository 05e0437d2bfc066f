/**
 * Test helpers for the kubelet server: a throw-away PKI (CA, kubelet serving cert,
 * an API-server client cert and an unprivileged one), a simulated pod started
 * directly through the runtime with the labels the kubelet would set, HTTPS/WebSocket
 * clients, and a fake CRI streaming server (SPDY) standing in for containerd's.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { WebSocket } from 'ws';
import { createCA, issueCert, type KeyPairPEM } from '../../pki/pki.js';
import { spdyOverSocket } from '../../streaming/spdy/transports.js';
import { CRILabels, type ContainerConfig, type PodSandboxConfig, type Runtime } from '../../cri/api.js';
import { writeSpdyUpgrade } from './http.js';
import { issueKubeletServingCert } from './tls.js';

export interface TestPKI {
  ca: KeyPairPEM;
  serving: KeyPairPEM;
  /** CN=system:apiserver, O=system:masters */
  apiserver: KeyPairPEM;
  /** CN=alice, no groups */
  alice: KeyPairPEM;
}

export async function testPKI(): Promise<TestPKI> {
  const ca = await createCA('test-ca');
  const [serving, apiserver, alice] = await Promise.all([
    issueKubeletServingCert(ca, 'node-a'),
    issueCert(ca, { commonName: 'system:apiserver', organizations: ['system:masters'], usage: 'client' }),
    issueCert(ca, { commonName: 'alice', usage: 'client' }),
  ]);
  return { ca, serving, apiserver, alice };
}

export interface SimPod {
  pod: Pod;
  sandboxId: string;
  containerId: string;
  logPath: string;
}

/** Runs a one-container pod on `rt` (as the kubelet would) and returns it with a running status. */
export async function runSimPod(rt: Runtime, logRoot: string, o: { name: string; uid: string; command: string[]; tty?: boolean }): Promise<SimPod> {
  const ns = 'default';
  const labels = { [CRILabels.podName]: o.name, [CRILabels.podNamespace]: ns, [CRILabels.podUID]: o.uid };
  const sandbox: PodSandboxConfig = {
    metadata: { name: o.name, uid: o.uid, namespace: ns, attempt: 0 },
    hostname: o.name,
    logDirectory: path.join(logRoot, `${ns}_${o.name}_${o.uid}`),
    portMappings: [],
    labels,
    annotations: {},
  };
  const sandboxId = await rt.runPodSandbox(sandbox);
  const config: ContainerConfig = {
    metadata: { name: 'c', attempt: 0 },
    image: { image: 'docker.io/library/busybox:1.36' },
    command: o.command,
    args: [],
    workingDir: '',
    envs: [],
    mounts: [],
    labels: { ...labels, [CRILabels.containerName]: 'c' },
    annotations: {},
    logPath: 'c/0.log',
    stdin: false,
    stdinOnce: false,
    tty: !!o.tty,
  };
  const containerId = await rt.createContainer(sandboxId, config, sandbox);
  await rt.startContainer(containerId);
  const pod: Pod = {
    metadata: { name: o.name, namespace: ns, uid: o.uid },
    spec: { containers: [{ name: 'c', image: 'busybox:1.36', tty: o.tty }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'c',
          image: 'busybox:1.36',
          imageID: '',
          containerID: `sim://${containerId}`,
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: new Date().toISOString() } },
        },
      ],
    },
  };
  return { pod, sandboxId, containerId, logPath: path.join(sandbox.logDirectory, 'c/0.log') };
}

interface HttpResult {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** GET over HTTPS with a client certificate (or none). */
export function httpsGet(port: number, pathAndQuery: string, ca: string, client?: KeyPairPEM): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: pathAndQuery, ca, cert: client?.cert, key: client?.key, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a WebSocket to the kubelet; resolves once open, rejects with `status: body` when refused. */
export function openWebSocket(port: number, pathAndQuery: string, protocols: string[], pki: TestPKI): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}${pathAndQuery}`, protocols, { ca: pki.ca.cert, cert: pki.apiserver.cert, key: pki.apiserver.key });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => reject(new Error(`${res.statusCode}: ${Buffer.concat(chunks).toString()}`)));
    });
    ws.once('error', reject);
  });
}

/** Collects the frames of a remote-command WebSocket until it closes. */
export function collectFrames(ws: WebSocket): Promise<{ frames: Buffer[]; code: number }> {
  return new Promise((resolve) => {
    const frames: Buffer[] = [];
    ws.on('message', (d: Buffer) => frames.push(Buffer.from(d)));
    ws.on('close', (code) => resolve({ frames, code }));
  });
}

/** A stand-in for a CRI streaming server: every SPDY upgrade is handed to `onSession`. */
export async function fakeStreamingServer(
  onSession: (session: ReturnType<typeof spdyOverSocket>, path: string, protocols: string[]) => string | undefined,
): Promise<{ url: string; server: HttpServer; close(): Promise<void> }> {
  const server = createHttpServer((_req, res) => res.writeHead(400).end());
  server.on('upgrade', (req, socket, head) => {
    const offered = (req.headers['x-stream-protocol-version'] ?? '')
      .toString()
      .split(',')
      .map((s) => s.trim());
    const session = spdyOverSocket(socket, { role: 'server' }, undefined);
    const chosen = onSession(session, req.url ?? '/', offered);
    if (!chosen) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    writeSpdyUpgrade(socket, chosen);
    if (head.length) session.receive(head);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * Opens a client WebSocket with a hand-made handshake, so that subprotocols that are
 * not RFC 7230 tokens (`SPDY/3.1+portforward.k8s.io`, as kubectl sends) can be
 * offered; `ws` then runs the connection in client mode.
 */
export function openRawWebSocket(port: number, pathAndQuery: string, protocol: string, pki: TestPKI): Promise<WebSocket> {
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: '127.0.0.1',
      port,
      path: pathAndQuery,
      ca: pki.ca.cert,
      cert: pki.apiserver.cert,
      key: pki.apiserver.key,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': key,
        'Sec-WebSocket-Protocol': protocol,
      },
    });
    req.on('upgrade', (res, socket, head) => {
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      if (res.headers['sec-websocket-accept'] !== accept) return reject(new Error('bad Sec-WebSocket-Accept'));
      if (res.headers['sec-websocket-protocol'] !== protocol) return reject(new Error(`server chose ${String(res.headers['sec-websocket-protocol'])}`));
      const ws = new WebSocket(null as unknown as string, undefined, {});
      (ws as unknown as { _isServer: boolean })._isServer = false;
      (ws as unknown as { setSocket(s: unknown, h: Buffer, o: object): void }).setSocket(socket, head, { maxPayload: 100 * 1024 * 1024 });
      resolve(ws);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => reject(new Error(`${res.statusCode}: ${Buffer.concat(chunks).toString()}`)));
    });
    req.on('error', reject);
    req.end();
  });
}
