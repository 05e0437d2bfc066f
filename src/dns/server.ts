/**
 * The node's DNS server: UDP and TCP listeners (RFC 1035 framing, dns-packet codec) that
 * answer the cluster zone from {@link ClusterRecords} and forward every other name to the
 * node's resolvers. An ExternalName's CNAME is followed through the forwarder, as CoreDNS
 * does with an upstream. Replies too long for UDP (512 bytes, or the client's EDNS size)
 * are truncated (TC) so that the client retries over TCP.
 *
 * @see https://github.com/kubernetes/dns/blob/master/docs/specification.md
 * @see https://www.rfc-editor.org/rfc/rfc1035#section-4.2
 */
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import * as packet from 'dns-packet';
import type { ClusterRecords } from './records.js';
import type { Forwarder } from './forward.js';

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

/** What the server needs to answer. */
export interface DNSHandlerOptions {
  records: ClusterRecords;
  forwarder?: Forwarder;
}

function reply(q: packet.DecodedPacket, rcode: number, body: Partial<packet.Packet> = {}, authoritative = false): Buffer {
  const flags = (q.flags ?? 0) & packet.RECURSION_DESIRED;
  return packet.encode({
    type: 'response',
    id: q.id,
    flags: flags | packet.RECURSION_AVAILABLE | (authoritative ? packet.AUTHORITATIVE_ANSWER : 0) | rcode,
    questions: q.questions,
    answers: body.answers ?? [],
    authorities: body.authorities ?? [],
    additionals: body.additionals ?? [],
  });
}

/** The rcode of an encoded reply. */
function rcodeOf(b: Buffer): number {
  return b.length >= 4 ? b.readUInt16BE(2) & 0xf : RCODE.SERVFAIL;
}

/**
 * Answers one encoded query (never throws): cluster names from the records, others
 * forwarded; SERVFAIL when the forwarder has no answer, FORMERR on undecodable input
 * (undefined when not even the id can be read).
 */
export async function handleQuery(raw: Buffer, o: DNSHandlerOptions): Promise<Buffer | undefined> {
  let q: packet.DecodedPacket;
  try {
    q = packet.decode(raw);
  } catch {
    if (raw.length < 12) return undefined;
    return packet.encode({ type: 'response', id: raw.readUInt16BE(0), flags: RCODE.FORMERR, questions: [] });
  }
  if (q.type !== 'query') return undefined;
  const question = q.questions?.[0];
  if (!question || (q.questions?.length ?? 0) > 1) return reply(q, RCODE.FORMERR);
  const a = o.records.answer(question.name, question.type);
  if (!a) {
    const fwd = o.forwarder && (await o.forwarder.forward(raw));
    return fwd ?? reply(q, RCODE.SERVFAIL);
  }
  const answers = [...a.answers];
  let rcode: number = RCODE[a.rcode];
  if (a.cnameTarget && question.type !== 'CNAME' && o.forwarder) {
    const sub = packet.encode({ type: 'query', id: q.id, flags: packet.RECURSION_DESIRED, questions: [{ name: a.cnameTarget, type: question.type, class: 'IN' }] });
    const r = await o.forwarder.forward(sub);
    if (r) {
      try {
        answers.push(...(packet.decode(r).answers ?? []));
        rcode = rcodeOf(r);
      } catch {
        // keep the CNAME alone
      }
    }
  }
  return reply(q, rcode, { answers, authorities: a.authorities, additionals: a.additionals }, true);
}

/** The largest UDP reply the client takes: its EDNS payload size, else 512. */
function udpLimit(raw: Buffer): number {
  try {
    const opt = packet.decode(raw).additionals?.find((x) => x.type === 'OPT') as { udpPayloadSize?: number } | undefined;
    return Math.max(512, opt?.udpPayloadSize ?? 512);
  } catch {
    return 512;
  }
}

/** A reply cut down for UDP: header and question only, TC set. */
function truncated(raw: Buffer): Buffer {
  const q = packet.decode(raw);
  return packet.encode({ type: 'response', id: q.id, flags: (q.flags ?? 0) | packet.TRUNCATED_RESPONSE, questions: q.questions });
}

export interface DNSServer {
  /** the UDP and TCP address, e.g. `{ address: '10.42.0.1', port: 53 }` */
  address: { address: string; port: number };
  close(): Promise<void>;
}

/**
 * Listens on `address:port` (UDP and TCP; port 0 = a free port, the same for both).
 * @throws the bind error (e.g. EADDRNOTAVAIL when the address is not on this host yet)
 */
export async function startDNSServer(o: DNSHandlerOptions & { address: string; port: number }): Promise<DNSServer> {
  const udp = dgram.createSocket({ type: net.isIPv6(o.address) ? 'udp6' : 'udp4', reuseAddr: false });
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(o.port, o.address, () => (udp.off('error', reject), resolve()));
  });
  const port = udp.address().port;
  udp.on('message', (msg, rinfo) => {
    void handleQuery(msg, o).then((r) => {
      if (!r) return;
      const out = r.length > udpLimit(msg) ? truncated(r) : r;
      udp.send(out, rinfo.port, rinfo.address);
    });
  });
  udp.on('error', () => undefined);
  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
    s.setTimeout(10_000, () => s.destroy());
    let buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + msg.length);
        void handleQuery(Buffer.from(msg), o).then((r) => {
          if (!r || s.destroyed) return;
          const len = Buffer.alloc(2);
          len.writeUInt16BE(r.length);
          s.write(Buffer.concat([len, r]));
        });
      }
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, o.address, () => (tcp.off('error', reject), resolve()));
    });
  } catch (e) {
    udp.close();
    throw e;
  }
  return {
    address: { address: o.address, port },
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise<void>((r) => udp.close(() => r())), new Promise<void>((r) => tcp.close(() => r()))]);
    },
  };
}
