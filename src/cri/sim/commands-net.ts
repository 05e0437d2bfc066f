/**
 * Network commands of the simulated shell. The simulation has no network (as the
 * test machines have no outbound network), except the pod's own: `localhost`,
 * `127.0.0.1`, `::1`, the pod IP and its hostname reach the servers the pod runs
 * (nginx-like images serve their document root on :80, see image-profiles.ts).
 * - `curl [-sSfiIo -w '%{http_code}'] URL` — curl's messages: `(6) Could not resolve
 *   host`, `(7) Failed to connect … Couldn't connect to server`, `(22)` with `-f`;
 * - `wget [-q] [-O FILE|-] [--spider] URL` — busybox wget's: `bad address 'HOST'`,
 *   `can't connect to remote host (IP): Connection refused`, `server returned error`;
 * - `nslookup NAME`, `getent hosts|ahosts|passwd|group KEY` — names from /etc/hosts
 *   (the kubelet-managed file); without a cluster network any other name gets no answer.
 * - `nc [-w SEC] [-z] HOST PORT` — busybox nc: sends stdin, prints what an HTTP server
 *   answers (`nc: timed out` with -w when nothing answers).
 *
 * With a SIMULATED cluster network (SimRuntime.setClusterNetwork) names also resolve
 * through the cluster DNS (the resolv.conf search path), Services lead to their endpoints
 * on any simulated node and NetworkPolicies apply: a denied connection times out
 * (`wget: download timed out` with -T, `nc: timed out` with -w, curl's (28)), a denied
 * DNS query leaves nslookup with `;; connection timed out; no servers could be reached`.
 */
import * as path from 'node:path';
import { flagsOf } from './commands-fs.js';
import { FsError } from './fs.js';
import type { CmdCtx, Command, HttpAnswer } from './shell-io.js';
import { clusterResolve } from './cluster-http.js';

/** `[scheme://]host[:port][/path]` → parts (http default port 80, https 443). */
export function parseUrl(url: string): { scheme: string; host: string; port: number; path: string } | undefined {
  const m = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):\/\/)?(\[[^\]]*\]|[^/:?#]*)(?::(\d+))?([/?#].*)?$/.exec(url);
  if (!m || !m[2]) return undefined;
  const scheme = (m[1] ?? 'http').toLowerCase();
  return { scheme, host: m[2], port: m[3] ? Number(m[3]) : scheme === 'https' ? 443 : 80, path: (m[4] ?? '/').replace(/#.*$/, '') || '/' };
}

function request(c: CmdCtx, url: string, method: 'GET' | 'HEAD'): { answer: HttpAnswer; host: string; port: number; path: string } | undefined {
  const u = parseUrl(url);
  if (!u) return undefined;
  const answer: HttpAnswer = c.io.http?.({ method, host: u.host, port: u.port, path: u.path.startsWith('/') ? u.path : `/${u.path}` }) ?? { kind: 'unresolved' };
  return { answer, host: u.host, port: u.port, path: u.path };
}

function headerBlock(a: Extract<HttpAnswer, { kind: 'response' }>): string {
  return `HTTP/1.1 ${a.status} ${a.reason}\r\n${a.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

const WITH_VALUE = new Set([
  '-o',
  '--output',
  '-m',
  '--max-time',
  '--connect-timeout',
  '-H',
  '--header',
  '-X',
  '--request',
  '-d',
  '--data',
  '-w',
  '--write-out',
  '-u',
  '--user',
  '-A',
  '--user-agent',
  '-e',
  '--referer',
  '--retry',
]);

const curl: Command = async (args, c) => {
  const flags = new Set<string>();
  const vals = new Map<string, string>();
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (WITH_VALUE.has(a)) vals.set(a, args[++i] ?? '');
    else if (a.startsWith('--')) flags.add(a);
    else if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const f = `-${a[j]}`;
        if (WITH_VALUE.has(f)) {
          vals.set(f, a.slice(j + 1) || (args[++i] ?? ''));
          break;
        }
        flags.add(f);
      }
    } else url ??= a;
  }
  const has = (...names: string[]): boolean => names.some((n) => flags.has(n));
  const silent = has('-s', '--silent') && !has('-S', '--show-error');
  const fail = (code: number, msg: string): number => {
    if (!silent) c.err.write(`curl: (${code}) ${msg}\n`);
    return code;
  };
  if (!url) {
    c.err.write(`curl: try 'curl --help' or 'curl --manual' for more information\n`);
    return 2;
  }
  const head = has('-I', '--head');
  const r = request(c, url, head ? 'HEAD' : 'GET');
  if (!r) return fail(3, 'URL using bad/illegal format or missing URL');
  const a = r.answer;
  if (a.kind === 'unresolved') return fail(6, `Could not resolve host: ${r.host}`);
  if (a.kind === 'timeout') {
    const t = Number(vals.get('--connect-timeout') ?? vals.get('-m') ?? vals.get('--max-time') ?? 0) * 1000 || 0;
    if (t) await c.io.sleep(t);
    return fail(28, `Failed to connect to ${r.host} port ${r.port} after ${t || 134000} ms: Timeout was reached`);
  }
  if (a.kind !== 'response') return fail(7, `Failed to connect to ${r.host} port ${r.port} after 0 ms: Couldn't connect to server`);
  if (has('-f', '--fail') && a.status >= 400) return fail(22, `The requested URL returned error: ${a.status}`);
  let text = head ? headerBlock(a) : has('-i', '--include') ? headerBlock(a) + a.body : a.body;
  const outFile = vals.get('-o') ?? vals.get('--output');
  if (outFile !== undefined && outFile !== '-') {
    try {
      c.fs.write(outFile, text);
    } catch (e) {
      return fail(23, `Failure writing output to destination${e instanceof FsError ? `: ${e.message}` : ''}`);
    }
    text = '';
  }
  const w = vals.get('-w') ?? vals.get('--write-out');
  if (w !== undefined) text += w.replace(/%\{http_code\}|%\{response_code\}/g, String(a.status)).replace(/\\n/g, '\n');
  c.out.write(text);
  return 0;
};

const wget: Command = async (args, c) => {
  let out: string | undefined;
  let quiet = false;
  let spider = false;
  let timeoutSec = 0;
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-O') out = args[++i];
    else if (a.startsWith('--output-document=')) out = a.slice(18);
    else if (a === '-T') timeoutSec = Number(args[++i]) || 0;
    else if (a === '-t' || a === '-U' || a === '--header') i++;
    else if (a === '--spider') spider = true;
    else if (a === '-q' || a === '--quiet') quiet = true;
    else if (/^-[a-zA-Z]/.test(a)) {
      for (let j = 1; j < a.length; j++) {
        const f = a[j];
        if (f === 'q') quiet = true;
        else if (f === 'O' || f === 'T' || f === 't' || f === 'U') {
          const v = a.slice(j + 1) || args[++i];
          if (f === 'O') out = v;
          if (f === 'T') timeoutSec = Number(v) || 0;
          break;
        }
      }
    } else if (!a.startsWith('-')) url ??= a;
  }
  if (!url) {
    c.err.write('BusyBox wget: missing URL\n');
    return 1;
  }
  const r = request(c, url, spider ? 'HEAD' : 'GET');
  if (!r) {
    c.err.write(`wget: bad address '${url}'\n`);
    return 1;
  }
  const a = r.answer;
  if (a.kind === 'unresolved') {
    c.err.write(`wget: bad address '${r.host}'\n`);
    return 1;
  }
  if (!quiet) c.err.write(`Connecting to ${r.host}${r.port !== 80 ? `:${r.port}` : ''} (${a.ip}:${r.port})\n`);
  if (a.kind === 'timeout') {
    if (timeoutSec) {
      await c.io.sleep(timeoutSec * 1000);
      c.err.write('wget: download timed out\n');
    } else c.err.write(`wget: can't connect to remote host (${a.ip}): Connection timed out\n`);
    return 1;
  }
  if (a.kind !== 'response') {
    c.err.write(`wget: can't connect to remote host (${a.ip}): ${a.kind === 'refused' ? 'Connection refused' : 'Network is unreachable'}\n`);
    return 1;
  }
  if (a.status >= 400) {
    c.err.write(`wget: server returned error: HTTP/1.1 ${a.status} ${a.reason}\n`);
    return 1;
  }
  if (spider) {
    if (!quiet) c.err.write('remote file exists\n');
    return 0;
  }
  const size = Buffer.byteLength(a.body);
  if (out === '-') {
    if (!quiet) c.err.write('writing to stdout\n');
    c.out.write(a.body);
    if (!quiet) c.err.write(`${'-'.padEnd(20)} 100% |********************************| ${String(size).padStart(5)}  0:00:00 ETA\nwritten to stdout\n`);
    return 0;
  }
  const file = out ?? (path.posix.basename(r.path.replace(/[?#].*$/, '')) || 'index.html');
  if (out === undefined && c.fs.kind(file) !== undefined) {
    c.err.write(`wget: can't open '${file}': File exists\n`);
    return 1;
  }
  try {
    c.fs.write(file, a.body);
  } catch (e) {
    c.err.write(`wget: can't open '${file}': ${e instanceof FsError ? e.message : String(e)}\n`);
    return 1;
  }
  if (!quiet)
    c.err.write(`saving to '${file}'\n${file.slice(0, 20).padEnd(20)} 100% |********************************| ${String(size).padStart(5)}  0:00:00 ETA\n'${file}' saved\n`);
  return 0;
};

/** /etc/hosts entries: address and names. */
function hostsEntries(c: CmdCtx): { ip: string; names: string[] }[] {
  const out: { ip: string; names: string[] }[] = [];
  for (const l of (c.fs.read('/etc/hosts') ?? '').split('\n')) {
    const f = l.replace(/#.*$/, '').trim().split(/\s+/);
    if (f.length >= 2 && f[0]) out.push({ ip: f[0], names: f.slice(1) });
  }
  return out;
}

const nslookup: Command = async (args, c) => {
  const name = flagsOf(args).operands[0];
  if (!name) {
    c.err.write('Usage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]\n');
    return 1;
  }
  const server = /^\s*nameserver\s+(\S+)/m.exec(c.fs.read('/etc/resolv.conf') ?? '')?.[1] ?? '127.0.0.1';
  const hits = hostsEntries(c).filter((e) => e.names.includes(name));
  const cluster = c.io.cluster?.();
  if (!hits.length && cluster) {
    const r = clusterResolve(name, cluster.podIP, cluster.resolvConf, cluster.net);
    if (r === 'timeout') {
      await c.io.sleep(5000);
      c.out.write(';; connection timed out; no servers could be reached\n\n');
      return 1;
    }
    c.out.write(`Server:\t\t${server}\nAddress:\t${server}:53\n\n`);
    if (r === 'unresolved') {
      c.out.write(`** server can't find ${name}: NXDOMAIN\n\n`);
      return 1;
    }
    for (const ip of r.addresses) c.out.write(`Name:\t${r.name}\nAddress: ${ip}\n\n`);
    return 0;
  }
  if (!hits.length) {
    c.out.write(';; connection timed out; no servers could be reached\n\n');
    return 1;
  }
  c.out.write(`Server:\t\t${server}\nAddress:\t${server}:53\n\n`);
  for (const h of [...hits.filter((x) => !x.ip.includes(':')), ...hits.filter((x) => x.ip.includes(':'))]) c.out.write(`Name:\t${name}\nAddress: ${h.ip}\n\n`);
  return 0;
};

const getent: Command = async (args, c) => {
  const [db, ...keys] = args;
  const show = (ip: string, names: string[]): void => c.out.write(`${ip.padEnd(15)} ${names.join(' ')}\n`);
  if (db === 'hosts' || db === 'ahosts') {
    const entries = hostsEntries(c);
    if (!keys.length) {
      for (const e of entries) show(e.ip, e.names);
      return 0;
    }
    let st = 0;
    for (const k of keys) {
      const byIp = entries.find((e) => e.ip === k);
      const byName = entries.filter((e) => e.names.includes(k));
      // glibc asks for IPv6 first (gethostbyname2 AF_INET6), then IPv4
      const hit = byIp ?? byName.find((e) => e.ip.includes(':')) ?? byName[0];
      if (!hit) st = 2;
      else show(hit.ip, hit.names);
    }
    return st;
  }
  if (db === 'passwd' || db === 'group') {
    const rows = (c.fs.read(`/etc/${db}`) ?? '').split('\n').filter(Boolean);
    const hits = keys.length ? rows.filter((r) => keys.some((k) => r.split(':')[0] === k || r.split(':')[2] === k)) : rows;
    for (const r of hits) c.out.write(`${r}\n`);
    return keys.length && hits.length < keys.length ? 2 : 0;
  }
  c.err.write(`Unknown database: ${db ?? ''}\nTry \`getent --help' or \`getent --usage' for more information.\n`);
  return 1;
};

/** busybox `nc [-w SEC] [-z] HOST PORT`: stdin sent, an HTTP server's answer printed. */
const nc: Command = async (args, c) => {
  let wait = 0;
  let zero = false;
  const ops: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-w') wait = Number(args[++i]) || 0;
    else if (a.startsWith('-w')) wait = Number(a.slice(2)) || 0;
    else if (a === '-z') zero = true;
    else if (a.startsWith('-') && a.length > 1) continue;
    else ops.push(a);
  }
  const [host, portS] = ops;
  if (!host || !portS) {
    c.err.write('BusyBox nc: missing HOST PORT\n');
    return 1;
  }
  const input = zero ? '' : await c.stdin.text();
  const line = /^(GET|HEAD) (\S+)/.exec(input);
  const a: HttpAnswer = c.io.http?.({ method: line?.[1] === 'HEAD' ? 'HEAD' : 'GET', host, port: Number(portS), path: line?.[2] ?? '/' }) ?? { kind: 'unresolved' };
  if (a.kind === 'unresolved') {
    c.err.write(`nc: bad address '${host}'\n`);
    return 1;
  }
  if (a.kind === 'timeout') {
    if (wait) {
      await c.io.sleep(wait * 1000);
      c.err.write('nc: timed out\n');
    } else c.err.write(`nc: can't connect to remote host (${a.ip}): Connection timed out\n`);
    return 1;
  }
  if (a.kind !== 'response') {
    c.err.write(`nc: can't connect to remote host (${a.ip}): ${a.kind === 'refused' ? 'Connection refused' : 'Network is unreachable'}\n`);
    return 1;
  }
  if (!zero && line) c.out.write(headerBlock(a).replace('HTTP/1.1', input.includes('HTTP/1.0') ? 'HTTP/1.0' : 'HTTP/1.1') + a.body);
  return 0;
};

/** The network commands by name. */
export const netCommands: Record<string, Command> = { curl, wget, nslookup, getent, nc };
