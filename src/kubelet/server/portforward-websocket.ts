/**
 * The server side of port-forward over WebSocket channels (`v4.channel.k8s.io`,
 * `v4.base64.channel.k8s.io`, or no subprotocol), the protocol of client libraries
 * (@kubernetes/client-node, the Python client): the ports come from the `port` query
 * parameter; port i uses channel 2i for data and 2i+1 for errors, each of which first
 * carries the port number (2 bytes, little-endian). The connection closes once every
 * port's connection in the pod has ended.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/cri/streaming/portforward/websocket.go
 */
import { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { type ChannelProtocol, decodeChannelMessage, encodeChannelMessage, ProtocolV4, ProtocolV4Base64 } from '../../streaming/channel.js';
import type { PortForwarder } from './streams.js';

/** The subprotocols served, preferred first (none offered = binary). */
export const WEBSOCKET_PORT_FORWARD_PROTOCOLS: readonly string[] = [ProtocolV4, ProtocolV4Base64];

/**
 * The ports of a `port` query (`port=80&port=443` or `port=80,443`), as upstream NewV4Options.
 * @throws Error with upstream's message for a missing, empty or bad port
 */
export function parsePortForwardPorts(q: URLSearchParams): number[] {
  const values = q.getAll('port');
  if (!values.length) throw new Error('query parameter "port" is required');
  const ports: number[] = [];
  for (const v of values) {
    if (!v) throw new Error('query parameter "port" cannot be empty');
    for (const p of v.split(',')) {
      const n = /^\d+$/.test(p) ? Number(p) : NaN;
      if (!(n <= 65535))
        throw new Error(
          `unable to parse ${JSON.stringify(v)} as a port: strconv.ParseUint: parsing ${JSON.stringify(p)}: ${/^\d+$/.test(p) ? 'value out of range' : 'invalid syntax'}`,
        );
      if (n < 1) throw new Error(`port ${JSON.stringify(v)} must be > 0`);
      ports.push(n);
    }
  }
  return ports;
}

/** Serves the ports over `ws` (already upgraded with protocol `p`) through `forwarder`. */
export function serveWebSocketPortForward(ws: WebSocket, p: ChannelProtocol, ports: number[], forwarder: PortForwarder): void {
  const send = (channel: number, data: Uint8Array, cb?: () => void): void => {
    if (ws.readyState !== ws.OPEN) return cb?.();
    ws.send(encodeChannelMessage(p, channel, data), () => cb?.());
  };
  const streams = ports.map(
    (_port, i) =>
      new Duplex({
        read() {},
        write(chunk: Buffer, _enc, cb) {
          send(2 * i, chunk, () => cb());
        },
      }),
  );
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    let m;
    try {
      m = decodeChannelMessage(p, isBinary ? buf : buf.toString('latin1'));
    } catch {
      ws.close(1002);
      return;
    }
    if (m.kind !== 'data' || m.channel % 2 !== 0) return; // error channels are write-only
    const s = streams[m.channel / 2];
    if (s && m.data.length) s.push(m.data);
  });
  ws.on('close', () => {
    for (const s of streams) if (!s.readableEnded) s.push(null);
    forwarder.close();
  });
  for (let i = 0; i < ports.length; i++) {
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16LE(ports[i]!);
    send(2 * i, prefix);
    send(2 * i + 1, prefix);
  }
  const done = ports.map((port, i) =>
    // the forwarder's message names the port, pod and cause (upstream: error forwarding port <p> to pod <id>, uid <uid>: <cause>)
    forwarder
      .forward(port, String(i), streams[i]!)
      .catch((e: unknown) => new Promise<void>((resolve) => send(2 * i + 1, Buffer.from(e instanceof Error ? e.message : String(e)), resolve))),
  );
  void Promise.all(done).then(() => {
    if (ws.readyState === ws.OPEN) ws.close(1000);
  });
}
