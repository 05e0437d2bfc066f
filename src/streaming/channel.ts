/**
 * The WebSocket channel protocols of Kubernetes remote commands (exec, attach):
 * every binary message starts with one channel byte (0 stdin, 1 stdout, 2 stderr,
 * 3 error/status, 4 resize); the `base64.` variants send text messages whose first
 * character is the channel digit ('0'…'4') followed by the base64 payload.
 *
 * Versions differ in what the error channel carries and in stdin half-close:
 * - `channel.k8s.io`, `base64.channel.k8s.io` (and no subprotocol): v1 — the error
 *   channel carries a plain message, nothing on success;
 * - `v4.channel.k8s.io`, `v4.base64.channel.k8s.io`: a metav1.Status JSON, with
 *   `reason: NonZeroExitCode` and a cause `{reason: ExitCode, message: "<code>"}`
 *   for a non-zero exit;
 * - `v5.channel.k8s.io`: v4 plus the close signal `[255, <channel>]` that half-closes
 *   a stream (kubectl sends `[255, 0]` when its stdin reaches EOF).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/util/httpstream/wsstream/conn.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apimachinery/pkg/util/remotecommand/constants.go
 */

/** Channel numbers (POSIX file descriptors, then error and resize). */
export const Channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4 } as const;

/** v5 close signal: a message `[CLOSE_SIGNAL, channel]` half-closes `channel`. */
export const CLOSE_SIGNAL = 255;

/** Remote-command WebSocket subprotocols (see the module doc for what each implies). */
export const ProtocolV5 = 'v5.channel.k8s.io';
export const ProtocolV4 = 'v4.channel.k8s.io';
export const ProtocolV4Base64 = 'v4.base64.channel.k8s.io';
export const ProtocolV1 = 'channel.k8s.io';
export const ProtocolV1Base64 = 'base64.channel.k8s.io';

/** Port-forward tunnelled as raw SPDY/3.1 frames inside binary WebSocket messages (kubectl ≥ 1.30). */
export const PortForwardTunnelProtocol = 'SPDY/3.1+portforward.k8s.io';
/** The SPDY sub-protocol of port-forward (X-Stream-Protocol-Version). */
export const PortForwardProtocol = 'portforward.k8s.io';

/** What a negotiated remote-command WebSocket protocol implies. */
export interface ChannelProtocol {
  /** the subprotocol as negotiated ('' = none) */
  name: string;
  /** text messages with base64 payloads instead of binary */
  base64: boolean;
  /** error channel carries metav1.Status JSON (v4, v5) rather than a plain message (v1) */
  statusJSON: boolean;
  /** the client may half-close streams with the close signal (v5) */
  closeSignal: boolean;
}

const PROTOCOLS: Record<string, ChannelProtocol> = {
  [ProtocolV5]: { name: ProtocolV5, base64: false, statusJSON: true, closeSignal: true },
  [ProtocolV4]: { name: ProtocolV4, base64: false, statusJSON: true, closeSignal: false },
  [ProtocolV4Base64]: { name: ProtocolV4Base64, base64: true, statusJSON: true, closeSignal: false },
  [ProtocolV1]: { name: ProtocolV1, base64: false, statusJSON: false, closeSignal: false },
  [ProtocolV1Base64]: { name: ProtocolV1Base64, base64: true, statusJSON: false, closeSignal: false },
};

/** The remote-command subprotocols this server speaks, most capable first. */
export const REMOTE_COMMAND_PROTOCOLS: readonly string[] = Object.keys(PROTOCOLS);

/**
 * Picks the subprotocol: the first one the client offered that is supported (client
 * preference, as upstream's handshake). No offer at all selects the v1 binary protocol
 * (`name: ''`); offers none of which is supported return undefined.
 */
export function negotiateChannelProtocol(offered: Iterable<string>): ChannelProtocol | undefined {
  let any = false;
  for (const p of offered) {
    any = true;
    const hit = PROTOCOLS[p];
    if (hit) return hit;
  }
  return any ? undefined : { name: '', base64: false, statusJSON: false, closeSignal: false };
}

/** Splits a `Sec-WebSocket-Protocol` header value into the offered protocols. */
export function parseSubprotocols(header: string | string[] | undefined): string[] {
  if (!header) return [];
  const s = Array.isArray(header) ? header.join(',') : header;
  return s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/** Encodes one message for `channel`: a Buffer (binary protocols) or a string (base64 ones). */
export function encodeChannelMessage(p: ChannelProtocol, channel: number, data: Uint8Array): Buffer | string {
  if (p.base64) return String.fromCharCode(48 + channel) + Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  const out = Buffer.allocUnsafe(data.byteLength + 1);
  out[0] = channel;
  out.set(data, 1);
  return out;
}

/** A decoded client message. */
export type ChannelMessage =
  | { kind: 'data'; channel: number; data: Buffer }
  /** v5 half-close of `channel` */
  | { kind: 'close'; channel: number }
  /** an empty message (ignored, as upstream) */
  | { kind: 'empty' };

/**
 * Decodes one message from the client.
 * @throws Error on invalid base64 or a malformed close signal (upstream drops the connection)
 */
export function decodeChannelMessage(p: ChannelProtocol, msg: Buffer | string): ChannelMessage {
  const buf = typeof msg === 'string' ? Buffer.from(msg, 'latin1') : msg;
  if (buf.length === 0) return { kind: 'empty' };
  let channel = buf[0]!;
  if (p.base64) channel = (channel - 48) & 0xff;
  const rest = buf.subarray(1);
  if (p.closeSignal && channel === CLOSE_SIGNAL) {
    if (rest.length !== 1) throw new Error(`single channel byte should follow close signal, got ${rest.length} bytes`);
    return { kind: 'close', channel: p.base64 ? (rest[0]! - 48) & 0xff : rest[0]! };
  }
  if (!p.base64) return { kind: 'data', channel, data: rest };
  const text = rest.toString('latin1');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error('illegal base64 data in channel message');
  return { kind: 'data', channel, data: Buffer.from(text, 'base64') };
}

/** A terminal-size message of the resize channel (`{"Width":80,"Height":24}`). */
export interface TerminalSize {
  width: number;
  height: number;
}

/** Parses a resize-channel payload; undefined when malformed. */
export function parseTerminalSize(data: Buffer): TerminalSize | undefined {
  try {
    const v = JSON.parse(data.toString('utf8')) as { Width?: unknown; Height?: unknown };
    if (typeof v.Width !== 'number' || typeof v.Height !== 'number') return undefined;
    return { width: v.Width, height: v.Height };
  } catch {
    return undefined;
  }
}

/** The metav1.Status shape carried on the error channel (no kind/apiVersion, as upstream writes it). */
export interface StreamStatus {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
  code?: number;
}

/** `{"metadata":{},"status":"Success"}` */
export function streamSuccess(): StreamStatus {
  return { metadata: {}, status: 'Success' };
}

/**
 * The status of a command that exited with `code` ≠ 0; kubectl prints
 * `command terminated with exit code <code>` and exits with it.
 */
export function streamExitCode(code: number, detail = `command terminated with exit code ${code}`): StreamStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: ${detail}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** A 500 InternalError status (`Internal error occurred: <message>`). */
export function streamInternalError(message: string): StreamStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

/**
 * The error-channel payload for `status` under protocol `p`: the JSON for v4/v5; for
 * v1 nothing on success and the message otherwise. undefined = send nothing.
 */
export function encodeStatus(p: ChannelProtocol, status: StreamStatus): Buffer | undefined {
  if (p.statusJSON) return Buffer.from(JSON.stringify(status));
  if (status.status === 'Success') return undefined;
  return Buffer.from(status.message ?? 'error');
}

/** The exit code a status reports: 0 on success, the ExitCode cause, or undefined for other failures. */
export function exitCodeOf(status: StreamStatus): number | undefined {
  if (status.status === 'Success') return 0;
  if (status.reason !== 'NonZeroExitCode') return undefined;
  const c = status.details?.causes?.find((x) => x.reason === 'ExitCode');
  return c?.message !== undefined && /^\d+$/.test(c.message) ? Number(c.message) : undefined;
}
