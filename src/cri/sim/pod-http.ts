/**
 * The pod's own network in the simulation: which addresses are the pod itself
 * (`localhost`, 127.0.0.0/8, `::1`, the pod IP, its hostname) and the static-file HTTP
 * servers its containers run (nginx-like and httpd-like images on :80, serving their
 * document root from the container's filesystem, volumes included). Every other host
 * is out of reach: names do not resolve, addresses are unreachable.
 *
 * @see http://nginx.org/en/docs/http/ngx_http_core_module.html#root
 */
import * as path from 'node:path';
import type { SimFs } from './fs.js';
import type { SimHttpServer } from './image-profiles.js';
import type { HttpAnswer, HttpRequest } from './shell-io.js';

/** A server listening in the pod. */
export interface PodServer {
  http: SimHttpServer;
  /** the filesystem of the container running it */
  fs: SimFs;
}

/** The pod as seen from inside. */
export interface PodNetwork {
  ip: string;
  hostname: string;
  /** the servers running now */
  servers(): PodServer[];
  /** ms since epoch */
  now(): number;
}

const REASONS: Record<number, string> = { 200: 'OK', 301: 'Moved Permanently', 403: 'Forbidden', 404: 'Not Found' };

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.txt': 'text/plain',
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.json': 'application/json',
  '.xml': 'text/xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
};

function errorPage(srv: SimHttpServer, status: number): string {
  const title = `${status} ${REASONS[status]}`;
  if (srv.flavor === 'nginx') {
    return ['<html>', `<head><title>${title}</title></head>`, '<body>', `<center><h1>${title}</h1></center>`, `<hr><center>${srv.server}</center>`, '</body>', '</html>', ''].join(
      '\r\n',
    );
  }
  const text =
    status === 404 ? 'The requested URL was not found on this server.' : status === 301 ? 'The document has moved.' : "You don't have permission to access this resource.";
  return `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>${title}</title>\n</head><body>\n<h1>${REASONS[status]}</h1>\n<p>${text}</p>\n</body></html>\n`;
}

/** Serves `GET|HEAD path` from the server's document root. */
export function serveStatic(srv: SimHttpServer, fs: SimFs, method: 'GET' | 'HEAD', reqPath: string, now: number): Extract<HttpAnswer, { kind: 'response' }> & { ip: '' } {
  let p = reqPath.replace(/[?#].*$/, '');
  try {
    p = decodeURIComponent(p);
  } catch {
    // keep it as sent
  }
  const rel = path.posix.normalize(`/${p}`);
  let file = path.posix.join(srv.docRoot, rel);
  const headers: [string, string][] = [
    ['Server', srv.server],
    ['Date', new Date(now).toUTCString()],
  ];
  const answer = (status: number, body: string, type: string, extra: [string, string][] = []): Extract<HttpAnswer, { kind: 'response' }> & { ip: '' } => ({
    kind: 'response',
    ip: '',
    status,
    reason: REASONS[status] ?? '',
    headers: [...headers, ['Content-Type', type], ['Content-Length', String(Buffer.byteLength(body))], ...extra, ['Connection', 'keep-alive']],
    body: method === 'HEAD' ? '' : body,
  });
  if (fs.kind(file) === 'dir') {
    if (!rel.endsWith('/') && rel !== '/') return answer(301, errorPage(srv, 301), 'text/html', [['Location', `${rel}/`]]);
    file = path.posix.join(file, 'index.html');
    if (fs.kind(file) !== 'file') return answer(403, errorPage(srv, 403), 'text/html');
  }
  const body = fs.kind(file) === 'file' ? fs.read(file) : undefined;
  if (body === undefined) return answer(404, errorPage(srv, 404), 'text/html');
  const st = fs.lstat(file);
  const mtime = st?.mtimeMs ?? now;
  return answer(200, body, TYPES[path.posix.extname(file).toLowerCase()] ?? 'application/octet-stream', [
    ['Last-Modified', new Date(mtime).toUTCString()],
    ['ETag', `"${Math.floor(mtime / 1000).toString(16)}-${Buffer.byteLength(body).toString(16)}"`],
    ['Accept-Ranges', 'bytes'],
  ]);
}

/** Where `host` leads from inside the pod: one of its own addresses, or undefined. */
export function localAddress(host0: string, net: Pick<PodNetwork, 'ip' | 'hostname'>): string | undefined {
  const host = host0.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host === 'ip6-localhost' || host === 'ip6-loopback') return '127.0.0.1';
  if (/^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1' || host === '0.0.0.0') return host;
  if (net.ip && (host === net.ip || host === net.hostname.toLowerCase())) return net.ip;
  return undefined;
}

/** Answers an HTTP request made inside the pod. */
export function podHttp(req: HttpRequest, net: PodNetwork): HttpAnswer {
  const ip = localAddress(req.host, net);
  if (!ip) {
    const literal = /^\d+\.\d+\.\d+\.\d+$/.test(req.host) || req.host.startsWith('[');
    return literal ? { kind: 'unreachable', ip: req.host.replace(/^\[(.*)\]$/, '$1') } : { kind: 'unresolved' };
  }
  const srv = net.servers().find((s) => s.http.port === req.port);
  if (!srv) return { kind: 'refused', ip };
  return { ...serveStatic(srv.http, srv.fs, req.method, req.path, net.now()), ip };
}
