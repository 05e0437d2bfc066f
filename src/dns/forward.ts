/**
 * Forwarding of names outside the cluster zone to the node's resolvers (CoreDNS's
 * `forward . /etc/resolv.conf`): the query is sent as it came, over UDP, to each
 * upstream in turn until one answers within the timeout.
 *
 * @see https://coredns.io/plugins/forward/
 */
import * as dgram from 'node:dgram';
import * as fs from 'node:fs';
import { isIP } from 'node:net';

/** `nameserver` lines of a resolv.conf file, as `ip:53` (a missing file gives none). */
export function resolvConfServers(file = '/etc/resolv.conf'): string[] {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const f = line
      .replace(/[#;].*$/, '')
      .trim()
      .split(/\s+/);
    if (f[0] === 'nameserver' && f[1] && isIP(f[1].replace(/%.*$/, ''))) out.push(isIP(f[1]) === 6 ? `[${f[1]}]:53` : `${f[1]}:53`);
  }
  return out;
}

/** `ip:port` or `[v6]:port` → parts. */
function splitHostPort(s: string): { host: string; port: number } {
  const m = /^\[(.*)\]:(\d+)$/.exec(s) ?? /^([^:]*):(\d+)$/.exec(s);
  return m ? { host: m[1]!, port: Number(m[2]) } : { host: s, port: 53 };
}

/** Sends `query` to one server and resolves to its answer, or undefined after `timeoutMs`. */
function ask(server: string, query: Buffer, timeoutMs: number): Promise<Buffer | undefined> {
  const { host, port } = splitHostPort(server);
  const sock = dgram.createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
  return new Promise((resolve) => {
    const done = (b?: Buffer) => {
      clearTimeout(t);
      sock.close();
      resolve(b);
    };
    const t = setTimeout(() => done(), timeoutMs);
    sock.on('error', () => done());
    sock.on('message', (msg) => {
      // the answer to our query: same id
      if (msg.length >= 2 && msg.readUInt16BE(0) === query.readUInt16BE(0)) done(msg);
    });
    sock.send(query, port, host);
  });
}

export interface Forwarder {
  /** The first upstream answer to the raw query (its id kept), or undefined when none answered. */
  forward(query: Buffer): Promise<Buffer | undefined>;
}

/**
 * A forwarder over `servers` (`ip:port`), asking each in turn with `timeoutMs` per try
 * (default 2000: pods' resolvers give up after 5 s).
 */
export function newForwarder(servers: string[], timeoutMs = 2000): Forwarder {
  return {
    async forward(query) {
      for (const s of servers) {
        const a = await ask(s, query, timeoutMs);
        if (a) return a;
      }
      return undefined;
    },
  };
}
