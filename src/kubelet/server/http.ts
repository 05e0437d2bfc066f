/**
 * Small HTTP helpers of the kubelet server: plain-text answers on a response or on a
 * raw socket (upgrade requests that are refused), the 101 answer of a SPDY upgrade,
 * and authentication/authorization of the caller (x509 client certificates signed by
 * the cluster CA; by default only the API server, i.e. system:masters, may use the
 * node's endpoints, as upstream's Webhook authorizer grants it nodes/proxy).
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/kubelet-authn-authz/
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from '../../api/resource.js';

/** Writes a plain-text answer (no trailing newline, as go-restful's WriteError). */
export function writeText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = Buffer.from(text);
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(body.length), 'X-Content-Type-Options': 'nosniff', ...headers });
  res.end(body);
}

/** Answers a refused upgrade on the raw socket and closes it. */
export function writeRawText(socket: Duplex, status: number, text: string, headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const body = Buffer.from(text);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${body.length}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
}

/** The 101 answer accepting `Upgrade: SPDY/3.1` with the negotiated protocol. */
export function writeSpdyUpgrade(socket: Duplex, protocol: string): void {
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
}

/** Header values of `name` (repeated headers and comma lists flattened). */
export function headerList(req: IncomingMessage, name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() !== name) continue;
    for (const v of req.rawHeaders[i + 1]!.split(',')) if (v.trim()) out.push(v.trim());
  }
  return out;
}

/** The caller's identity from a verified client certificate (CN = user, O = groups). */
export function certificateUser(req: IncomingMessage): UserInfo | undefined {
  const sock = req.socket as TLSSocket;
  if (!sock.authorized) return undefined;
  const cert = sock.getPeerCertificate();
  if (!cert?.subject) return undefined;
  const cn = cert.subject.CN;
  const username = Array.isArray(cn) ? cn[0] : cn;
  if (!username) return undefined;
  const o = cert.subject.O;
  return { username, groups: [...(o === undefined ? [] : Array.isArray(o) ? o : [o]), 'system:authenticated'] };
}

/** Authorization input: upstream maps kubelet paths to node subresources. */
export interface KubeletAuthzAttributes {
  user: UserInfo;
  /** get (GET), create (POST) … */
  verb: string;
  /** "proxy" for logs/exec/attach/portForward, "healthz", … */
  subresource: string;
  nodeName: string;
  path: string;
}

/** Decides whether a caller may use the endpoint. */
export type KubeletAuthorizer = (a: KubeletAuthzAttributes) => boolean | Promise<boolean>;

/** Default: members of system:masters (the API server's client certificate) only. */
export const mastersOnly: KubeletAuthorizer = (a) => a.user.groups.includes('system:masters');

/** `Forbidden (user=…, verb=…, resource=nodes, subresource=…)` as upstream's kubelet answers. */
export function forbiddenText(a: KubeletAuthzAttributes): string {
  return `Forbidden (user=${a.user.username}, verb=${a.verb}, resource=nodes, subresource=${a.subresource})`;
}

/** HTTP method → authorization verb. */
export function verbOf(method: string | undefined): string {
  switch ((method ?? 'GET').toUpperCase()) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'get';
  }
}
