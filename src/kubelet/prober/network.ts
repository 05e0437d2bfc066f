/**
 * Network probes against real pods (pod IPs on the node's bridge are reachable from
 * the host): httpGet (also used by lifecycle hooks), tcpSocket and grpc
 * (grpc.health.v1.Health/Check), with upstream's results and output texts, which is
 * what `Liveness probe failed: <output>` events show:
 *
 * - httpGet: `kube-probe/1.32` User-Agent and `Accept: *\/*` unless given, the `Host`
 *   header as the request host, TLS unverified, redirects followed on the same host
 *   (another host → Warning `Probe terminated redirects, Response body: …`), 200–399
 *   success with the body (≤ 10 KiB) as output, else `HTTP probe failed with
 *   statuscode: 500`; transport errors as Go prints them (`Get "http://…": dial tcp
 *   10.42.0.5:8080: connect: connection refused`).
 * - tcpSocket: success once connected; else `dial tcp 10.42.0.5:8080: connect:
 *   connection refused` / `… i/o timeout`.
 * - grpc: `service healthy`, `service unhealthy (responded with "NOT_SERVING")`,
 *   `timeout: failed to connect service "10.42.0.5:9000" within 1s: context deadline exceeded`, …
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/probe/http/http.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/probe/http/request.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/probe/tcp/tcp.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/probe/grpc/grpc.go
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { Container, HTTPGetAction, Pod } from 'kubernetes-types/core/v1.js';
import { KUBELET_VERSION } from '../nodestatus/setters.js';
import type { NetworkProber, ProbeOutcome } from './probe.js';

const MAX_BODY = 10 * 1024;
const MAX_REDIRECTS = 10;

/** `1.32` of the kubelet version (the User-Agent `kube-probe/1.32`). */
const MINOR_VERSION = KUBELET_VERSION.replace(/^v/, '').split('.').slice(0, 2).join('.');

/** Thrown for a probe or hook that cannot be built (unknown named port, bad port). */
class ProbeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProbeConfigError';
  }
}

/**
 * Upstream ResolveContainerPort: a number, a numeric string, or a named port of the container.
 * @throws ProbeConfigError `couldn't find port: <name> in <container>` / `invalid port number: <n>`
 */
export function resolvePort(port: number | string | undefined, c: Container): number {
  let p: number;
  if (typeof port === 'number') p = port;
  else if (port !== undefined && /^\d+$/.test(port)) p = Number(port);
  else {
    const named = c.ports?.find((x) => x.name === port);
    if (!named) throw new ProbeConfigError(`couldn't find port: ${port} in ${c.name}`);
    p = named.containerPort;
  }
  if (!(p > 0 && p < 65536)) throw new ProbeConfigError(`invalid port number: ${p}`);
  return p;
}

const hostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** The URL and headers of an httpGet action (upstream NewRequestForHTTPGetAction). @throws ProbeConfigError */
export function httpGetRequest(a: HTTPGetAction, c: Container, podIP: string, fragment: 'probe' | 'lifecycle'): { url: URL; headers: Record<string, string> } {
  const scheme = (a.scheme ?? 'HTTP').toLowerCase();
  const host = a.host || podIP;
  const port = resolvePort(a.port as number | string, c);
  const p = a.path ?? '';
  const url = new URL(`${scheme}://${hostPort(host, port)}`);
  const q = p.indexOf('?');
  url.pathname = q >= 0 ? p.slice(0, q) : p;
  if (q >= 0) url.search = p.slice(q);
  const headers: Record<string, string> = {};
  for (const h of a.httpHeaders ?? []) headers[h.name] = headers[h.name] !== undefined ? `${headers[h.name]}, ${h.value}` : h.value;
  const has = (n: string): string | undefined => Object.keys(headers).find((k) => k.toLowerCase() === n);
  if (!has('user-agent')) headers['User-Agent'] = `kube-${fragment}/${MINOR_VERSION}`;
  const accept = has('accept');
  if (!accept) headers.Accept = '*/*';
  else if (headers[accept] === '') delete headers[accept];
  return { url, headers };
}

/** Go's rendering of a dial/read error for `addr`. */
function goNetError(e: NodeJS.ErrnoException, addr: string): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${addr}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    case 'ECONNRESET':
      return `read tcp ${addr}: read: connection reset by peer`;
    default:
      return e.message;
  }
}

interface HTTPGetResult {
  /** final status code (after same-host redirects), 0 on a transport error */
  status: number;
  body: string;
  /** Go's `client.Do` error text, e.g. `Get "http://…": dial tcp …: connect: connection refused` */
  error?: string;
  /** stopped at a redirect to another host */
  offHostRedirect?: boolean;
}

/**
 * GET `url` with a total deadline of `timeoutMs`, following same-host redirects.
 * Never rejects.
 */
export async function httpGet(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<HTTPGetResult> {
  const deadline = Date.now() + timeoutMs;
  const firstHost = url.hostname;
  let cur = url;
  for (let hop = 0; ; hop++) {
    const r = await getOnce(cur, headers, Math.max(1, deadline - Date.now()));
    if (r.error) return { status: 0, body: '', error: `Get ${JSON.stringify(cur.toString())}: ${r.error}` };
    const loc = r.location;
    if (r.status >= 300 && r.status < 400 && loc) {
      const next = new URL(loc, cur);
      if (next.hostname !== firstHost) return { status: r.status, body: r.body, offHostRedirect: true };
      if (hop + 1 >= MAX_REDIRECTS) return { status: 0, body: '', error: `Get ${JSON.stringify(next.toString())}: stopped after 10 redirects` };
      cur = next;
      continue;
    }
    return { status: r.status, body: r.body };
  }
}

function getOnce(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number; body: string; location?: string; error?: string }> {
  return new Promise((resolve) => {
    const hostHeader = Object.keys(headers).find((k) => k.toLowerCase() === 'host');
    const mod = url.protocol === 'https:' ? https : http;
    const addr = hostPort(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || (url.protocol === 'https:' ? 443 : 80)));
    let done = false;
    const finish = (v: { status: number; body: string; location?: string; error?: string }): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(v);
    };
    const req = mod.request(
      url,
      { method: 'GET', headers: { ...headers, ...(hostHeader ? { host: headers[hostHeader] } : {}) }, agent: false, rejectUnauthorized: false },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (d: Buffer) => {
          if (size < MAX_BODY) chunks.push(d.subarray(0, MAX_BODY - size));
          size += d.length;
          if (size >= MAX_BODY) res.destroy();
        });
        const end = (): void => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), location: res.headers.location });
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: 0, body: '', error: 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)' });
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => finish({ status: 0, body: '', error: e.code === 'ECONNRESET' && !e.syscall ? 'EOF' : goNetError(e, addr) }));
    req.end();
  });
}

/** Upstream DoHTTPProbe's verdict on one GET. */
function httpProbeOutcome(r: HTTPGetResult): ProbeOutcome {
  if (r.error) return { result: 'failure', output: r.error };
  if (r.status >= 200 && r.status < 400) {
    if (r.status >= 300) return { result: 'warning', output: `Probe terminated redirects, Response body: ${r.body}` };
    return { result: 'success', output: r.body };
  }
  return { result: 'failure', output: `HTTP probe failed with statuscode: ${r.status}` };
}

/** TCP connect within `timeoutMs`. Resolves Go's error text, or undefined when connected. */
function tcpDial(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  const addr = hostPort(host, port);
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const t = setTimeout(() => {
      s.destroy();
      resolve(`dial tcp ${addr}: i/o timeout`);
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(t);
      s.destroy();
      resolve(undefined);
    });
    s.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(t);
      resolve(goNetError(e, addr));
    });
  });
}

const HEALTH_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];
const GO_CODES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

/** HealthCheckRequest{service} in protobuf wire format (field 1, string). */
function encodeHealthRequest(service: string): Buffer {
  const b = Buffer.from(service, 'utf8');
  if (!b.length) return Buffer.alloc(0);
  const len: number[] = [];
  let n = b.length;
  while (n > 0x7f) {
    len.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  len.push(n);
  return Buffer.concat([Buffer.from([0x0a, ...len]), b]);
}

/** HealthCheckResponse.status (field 1, enum) from protobuf wire format. */
function decodeHealthStatus(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const tag = b[i++]!;
    if (tag === 0x08) {
      let v = 0;
      let shift = 0;
      while (i < b.length) {
        const x = b[i++]!;
        v |= (x & 0x7f) << shift;
        if (!(x & 0x80)) break;
        shift += 7;
      }
      return v;
    }
    return 0; // unknown field: treat as UNKNOWN
  }
  return 0;
}

const goDuration = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/** The grpc.health.v1 check upstream's gRPC prober does. Never rejects. */
export function grpcHealthCheck(host: string, port: number, service: string, timeoutMs: number): Promise<ProbeOutcome> {
  const addr = hostPort(host, port);
  const deadline = Date.now() + timeoutMs;
  const client = new grpc.Client(addr, grpc.credentials.createInsecure(), { 'grpc.primary_user_agent': `kube-probe/${MINOR_VERSION}`, 'grpc.use_local_subchannel_pool': 1 });
  const done = (o: ProbeOutcome): ProbeOutcome => {
    client.close();
    return o;
  };
  return new Promise<ProbeOutcome>((resolve) => {
    client.waitForReady(deadline, (err) => {
      if (err)
        return resolve(
          done({ result: 'failure', output: `timeout: failed to connect service ${JSON.stringify(addr)} within ${goDuration(timeoutMs)}: context deadline exceeded` }),
        );
      client.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        (s: string) => encodeHealthRequest(s),
        (b: Buffer) => decodeHealthStatus(b),
        service,
        new grpc.Metadata(),
        { deadline },
        (e, status) => {
          if (e) {
            if (e.code === grpc.status.UNIMPLEMENTED) {
              return resolve(done({ result: 'failure', output: `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${e.details}` }));
            }
            if (e.code === grpc.status.DEADLINE_EXCEEDED)
              return resolve(done({ result: 'failure', output: `timeout: health rpc did not complete within ${goDuration(timeoutMs)}` }));
            return resolve(done({ result: 'failure', output: `error: health rpc probe failed: rpc error: code = ${GO_CODES[e.code] ?? e.code} desc = ${e.details}` }));
          }
          if (status !== 1)
            return resolve(done({ result: 'failure', output: `service unhealthy (responded with ${JSON.stringify(HEALTH_STATUS[status ?? 0] ?? String(status))})` }));
          resolve(done({ result: 'success', output: 'service healthy' }));
        },
      );
    });
  });
}

/** The prober of nodes on a real runtime: dials pod IPs from the host. */
export const hostNetworkProber: NetworkProber = {
  async httpGet(_pod: Pod, c, podIP, probe, timeoutS) {
    let req: ReturnType<typeof httpGetRequest>;
    try {
      req = httpGetRequest(probe, c, podIP, 'probe');
    } catch (e) {
      return { result: 'unknown', output: '', error: (e as Error).message };
    }
    return httpProbeOutcome(await httpGet(req.url, req.headers, timeoutS * 1000));
  },
  async tcpSocket(_pod, c, podIP, probe, timeoutS) {
    let port: number;
    try {
      port = resolvePort(probe.port as number | string, c);
    } catch (e) {
      return { result: 'unknown', output: '', error: (e as Error).message };
    }
    const err = await tcpDial(probe.host || podIP, port, timeoutS * 1000);
    return err ? { result: 'failure', output: err } : { result: 'success', output: '' };
  },
  async grpc(_pod, _c, podIP, probe, timeoutS) {
    return grpcHealthCheck(podIP, probe.port, probe.service ?? '', timeoutS * 1000);
  },
};
