/**
 * The kubelet's HTTPS server (upstream :10250): what the API server proxies
 * `kubectl logs`, `exec`, `attach` and `port-forward` to.
 *
 * - `GET /containerLogs/{ns}/{pod}/{container}?follow&previous&tailLines&sinceSeconds&sinceTime&timestamps&limitBytes&stream`
 * - `/exec/{ns}/{pod}[/{uid}]/{container}?command=…&stdin=1&stdout=1&stderr=1&tty=1` (WebSocket
 *   channel protocols v5/v4/v1 or SPDY/3.1)
 * - `/attach/{ns}/{pod}[/{uid}]/{container}?stdin&stdout&stderr&tty`
 * - `/portForward/{ns}/{pod}[/{uid}]` (SPDY/3.1, raw or tunnelled in a WebSocket)
 * - `GET /healthz`
 * - `GET /stats/summary` (stats/v1alpha1 Summary, JSON), `GET /metrics/resource` (the
 *   resource metrics metrics-server scrapes) and `GET /metrics` (the kubelet's own metrics:
 *   the `kubelet_volume_stats_*` families), from `stats` (src/kubelet/stats)
 *
 * Callers authenticate with a client certificate signed by `tls.clientCA`; the
 * authorizer (default: system:masters only) decides per request.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/server/server.go
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { WebSocketServer, type WebSocket } from 'ws';
import { negotiateChannelProtocol, parseSubprotocols, PortForwardProtocol, PortForwardTunnelProtocol, type ChannelProtocol } from '../../streaming/channel.js';
import { spdyOverSocket, spdyOverWebSocket } from '../../streaming/spdy/transports.js';
import type { Runtime } from '../../cri/api.js';
import { decodePodLogOptions, LogOptionsDecodeError, sinceMs, validatePodLogOptions } from '../../api/core/v1/pod/log-options.js';
import { LogFileError, readLogs } from '../logs/read.js';
import { containerSpec, isContainerRunning, KubeletHTTPError, logPathOf, logTarget, readySandboxId, runningContainerId } from './containers.js';
import { SPDY_REMOTE_COMMAND_PROTOCOLS } from './cri-streams.js';
import { certificateUser, forbiddenText, headerList, mastersOnly, verbOf, writeRawText, writeSpdyUpgrade, writeText, type KubeletAuthorizer } from './http.js';
import { servePortForward } from './portforward.js';
import { serveSpdyRemoteCommand, serveWebSocketRemoteCommand } from './remotecommand.js';
import { parsePortForwardPorts, serveWebSocketPortForward, WEBSOCKET_PORT_FORWARD_PROTOCOLS } from './portforward-websocket.js';
import { prepareAttach, prepareExec, preparePortForward, type RemoteCommandRunner, type StreamOptions } from './streams.js';
import type { StatsProvider } from '../stats/types.js';
import { PROMETHEUS_TEXT, resourceMetricsText } from '../stats/resource-metrics.js';
import { kubeletMetricsText } from '../stats/volume-metrics.js';

/** Options of {@link startKubeletServer}. */
interface KubeletServerOptions {
  runtime: Runtime;
  nodeName: string;
  /**
   * The pod the kubelet runs under this namespace/name, with the kubelet's latest
   * status (container IDs, restart counts, last termination states); undefined when
   * the kubelet does not run it.
   */
  podLookup: (namespace: string, name: string) => Pod | undefined;
  /** serving certificate (signed by the cluster CA) and the CA that signs client certificates */
  tls: { cert: string; key: string; clientCA: string };
  /** TCP port (default 10250; 0 = a free port, see `KubeletServer.port`) */
  port?: number;
  /** listen address (default 0.0.0.0) */
  address?: string;
  /** is `pod` an in-process component's pod (its "container" runs as long as this process: logs follow until the client goes) */
  isProcessPod?: (pod: Pod) => boolean;
  /** `<dataDir>/kubelet/logs`: finds log files of containers the runtime no longer knows */
  logRoot?: string;
  /** default: system:masters only */
  authorize?: KubeletAuthorizer;
  /** ms between "still running?" checks while following a log (default 1000) */
  logPollMs?: number;
  /** ms a SPDY client has to open its streams / a port-forward pair to complete (default 30 000) */
  streamCreationTimeoutMs?: number;
  /** ms since epoch (sinceSeconds); default Date.now */
  now?: () => number;
  /** the node's and pods' resource statistics; none = /stats/summary and /metrics/resource answer 404 */
  stats?: StatsProvider;
  /** a `#` comment line heading /metrics/resource (the simulated runtime names its figures synthetic) */
  statsComment?: string;
}

/** A running kubelet server. */
export interface KubeletServer {
  /** the port actually listened on (publish it as Node.status.daemonEndpoints.kubeletEndpoint.Port) */
  readonly port: number;
  readonly address: string;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

type Route =
  | { kind: 'healthz' }
  | { kind: 'statsSummary' }
  | { kind: 'metricsResource' }
  | { kind: 'metrics' }
  | { kind: 'containerLogs'; ns: string; pod: string; container: string }
  | { kind: 'exec' | 'attach'; ns: string; pod: string; uid?: string; container: string }
  | { kind: 'portForward'; ns: string; pod: string; uid?: string };

function route(path: string): Route | undefined {
  let seg: string[];
  try {
    seg = path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [head, ...rest] = seg;
  switch (head) {
    case 'healthz':
      return rest.length === 0 ? { kind: 'healthz' } : undefined;
    case 'stats':
      return rest.length === 1 && rest[0] === 'summary' ? { kind: 'statsSummary' } : undefined;
    case 'metrics':
      if (rest.length === 0) return { kind: 'metrics' };
      return rest.length === 1 && rest[0] === 'resource' ? { kind: 'metricsResource' } : undefined;
    case 'containerLogs':
      return rest.length === 3 ? { kind: 'containerLogs', ns: rest[0]!, pod: rest[1]!, container: rest[2]! } : undefined;
    case 'exec':
    case 'attach':
      if (rest.length === 3) return { kind: head, ns: rest[0]!, pod: rest[1]!, container: rest[2]! };
      if (rest.length === 4) return { kind: head, ns: rest[0]!, pod: rest[1]!, uid: rest[2]!, container: rest[3]! };
      return undefined;
    case 'portForward':
      if (rest.length === 2) return { kind: 'portForward', ns: rest[0]!, pod: rest[1]! };
      if (rest.length === 3) return { kind: 'portForward', ns: rest[0]!, pod: rest[1]!, uid: rest[2]! };
      return undefined;
  }
  return undefined;
}

/** `stdin=1` (what the API server sends); `true` is accepted too. */
function flag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === '1' || v === 'true';
}

/**
 * Stream options of exec/attach (upstream remotecommand NewOptions: tty drops stderr).
 * @throws KubeletHTTPError 400 when no stream is requested
 */
function streamOptions(q: URLSearchParams): StreamOptions {
  const tty = flag(q, 'tty');
  const o = { stdin: flag(q, 'stdin'), stdout: flag(q, 'stdout'), stderr: flag(q, 'stderr') && !tty, tty };
  if (!o.stdin && !o.stdout && !o.stderr) throw new KubeletHTTPError(400, 'you must specify at least 1 of stdin, stdout, stderr');
  return o;
}

/** Starts the server. @throws when the port cannot be bound */
export async function startKubeletServer(o: KubeletServerOptions): Promise<KubeletServer> {
  const authorize = o.authorize ?? mastersOnly;
  const now = o.now ?? Date.now;
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (_offered, req) => chosenProtocol.get(req) ?? false,
  });
  const chosenProtocol = new WeakMap<IncomingMessage, string>();
  const sockets = new Set<Duplex>();

  function lookupPod(ns: string, name: string, uid?: string): Pod {
    const pod = o.podLookup(ns, name);
    if (!pod) throw new KubeletHTTPError(404, 'pod does not exist');
    if (uid && pod.metadata?.uid !== uid) throw new KubeletHTTPError(404, 'pod not found');
    return pod;
  }

  async function admit(req: IncomingMessage, r: Route): Promise<{ status: number; text: string } | undefined> {
    if (r.kind === 'healthz') return undefined;
    const user = certificateUser(req);
    if (!user) return { status: 401, text: 'Unauthorized' };
    // upstream's node subresources: nodes/stats, nodes/metrics, nodes/proxy for the rest
    const subresource = r.kind === 'statsSummary' ? 'stats' : r.kind === 'metricsResource' || r.kind === 'metrics' ? 'metrics' : 'proxy';
    const a = { user, verb: verbOf(req.method), subresource, nodeName: o.nodeName, path: req.url ?? '/' };
    if (!(await authorize(a))) return { status: 403, text: forbiddenText(a) };
    return undefined;
  }

  async function containerLogs(res: ServerResponse, r: Extract<Route, { kind: 'containerLogs' }>, q: URLSearchParams): Promise<void> {
    let opts;
    try {
      opts = decodePodLogOptions(q);
    } catch (e) {
      if (e instanceof LogOptionsDecodeError) return writeText(res, 400, '{"message": "Unable to decode query."}');
      throw e;
    }
    if (validatePodLogOptions(opts).length) return writeText(res, 422, '{"message": "Invalid request."}');
    const pod = o.podLookup(r.ns, r.pod);
    if (!pod) return writeText(res, 404, `pod ${JSON.stringify(r.pod)} does not exist`);
    if (!containerSpec(pod, r.container)) return writeText(res, 404, `container ${JSON.stringify(r.container)} not found in pod ${JSON.stringify(r.pod)}`);
    const target = logTarget(pod, r.container, opts.previous);
    const path = await logPathOf(o.runtime, pod, r.container, target, o.logRoot);
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    const sink = (c: Buffer): void | Promise<void> => {
      if (res.destroyed || res.writableEnded) return;
      if (res.write(c)) return;
      return new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    };
    try {
      await readLogs(
        path,
        { follow: opts.follow, tailLines: opts.tailLines, limitBytes: opts.limitBytes, sinceMs: sinceMs(opts, now()), timestamps: opts.timestamps, stream: opts.stream },
        sink,
        {
          signal: ac.signal,
          pollMs: o.logPollMs,
          isRunning: o.isProcessPod?.(pod) ? async () => true : () => isContainerRunning(o.runtime, target.containerId),
          onOpen: () => {
            res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
            res.flushHeaders();
          },
        },
      );
    } catch (e) {
      if (e instanceof LogFileError && !res.headersSent) return writeText(res, 400, e.message);
      throw e;
    }
    res.end();
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const r = route(url.pathname);
    if (!r) return writeText(res, 404, '404 page not found');
    const refused = await admit(req, r);
    if (refused) return writeText(res, refused.status, refused.text);
    switch (r.kind) {
      case 'healthz':
        return writeText(res, 200, 'ok');
      case 'containerLogs':
        if (req.method !== 'GET' && req.method !== 'HEAD') return writeText(res, 405, 'Method Not Allowed', { Allow: 'GET' });
        return containerLogs(res, r, url.searchParams);
      case 'statsSummary':
      case 'metricsResource':
      case 'metrics': {
        if (!o.stats) return writeText(res, 404, '404 page not found');
        if (req.method !== 'GET') return writeText(res, 405, 'Method Not Allowed', { Allow: 'GET' });
        const summary = await o.stats.summary();
        if (r.kind === 'statsSummary') return writeText(res, 200, JSON.stringify(summary, null, 2), { 'Content-Type': 'application/json' });
        if (r.kind === 'metrics') return writeText(res, 200, kubeletMetricsText(summary), { 'Content-Type': PROMETHEUS_TEXT });
        return writeText(res, 200, resourceMetricsText(summary, o.statsComment), { 'Content-Type': PROMETHEUS_TEXT });
      }
      default:
        return writeText(res, 400, 'Upgrade request required');
    }
  }

  /**
   * Completes the WebSocket handshake with `protocol` (already negotiated). `ws` only
   * accepts RFC 7230 tokens as offered subprotocols, and `SPDY/3.1+portforward.k8s.io`
   * is not one (it contains '/'), so the offer is replaced by a token before `ws`
   * parses it and the negotiated name is answered unchanged.
   */
  function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string, serve: (ws: WebSocket) => void): void {
    if (protocol) {
      req.headers['sec-websocket-protocol'] = 'negotiated';
      chosenProtocol.set(req, protocol);
    }
    wss.handleUpgrade(req, socket, head, serve);
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const r = route(url.pathname);
    if (!r || r.kind === 'healthz' || r.kind === 'containerLogs' || r.kind === 'statsSummary' || r.kind === 'metricsResource' || r.kind === 'metrics')
      return writeRawText(socket, r ? 400 : 404, r ? 'upgrade not supported on this endpoint' : '404 page not found');
    const refused = await admit(req, r);
    if (refused) return writeRawText(socket, refused.status, refused.text);
    const upgrade = (req.headers.upgrade ?? '').toLowerCase();
    const websocket = upgrade === 'websocket';
    if (!websocket && upgrade !== 'spdy/3.1') return writeRawText(socket, 400, `unsupported upgrade ${JSON.stringify(req.headers.upgrade ?? '')}`);

    if (r.kind === 'portForward') {
      let chosen: string | undefined;
      let channels: ChannelProtocol | undefined;
      let ports: number[] = [];
      if (websocket) {
        const offered = parseSubprotocols(req.headers['sec-websocket-protocol']);
        if (offered.includes(PortForwardTunnelProtocol)) chosen = PortForwardTunnelProtocol;
        else {
          // the channel protocol of client libraries: the first offered one served, or none offered
          const name = offered.length ? WEBSOCKET_PORT_FORWARD_PROTOCOLS.find((x) => offered.includes(x)) : '';
          channels = name === undefined ? undefined : negotiateChannelProtocol(name ? [name] : []);
          if (!channels) {
            return writeRawText(
              socket,
              400,
              `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${[PortForwardTunnelProtocol, ...WEBSOCKET_PORT_FORWARD_PROTOCOLS].join(' ')}]`,
            );
          }
          try {
            ports = parsePortForwardPorts(url.searchParams);
          } catch (e) {
            return writeRawText(socket, 400, (e as Error).message);
          }
          chosen = channels.name;
        }
      } else {
        const offered = headerList(req, 'x-stream-protocol-version');
        if (!offered.includes(PortForwardProtocol)) {
          return writeRawText(socket, 403, `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${PortForwardProtocol}]`, {
            'X-Accepted-Stream-Protocol-Versions': PortForwardProtocol,
          });
        }
        chosen = PortForwardProtocol;
      }
      const pod = lookupPod(r.ns, r.pod, r.uid);
      const forwarder = await preparePortForward(o.runtime, await readySandboxId(o.runtime, pod));
      if (channels) {
        const ch = channels;
        acceptWebSocket(req, socket, head, chosen, (ws) => serveWebSocketPortForward(ws, ch, ports, forwarder));
      } else if (websocket) {
        acceptWebSocket(req, socket, head, chosen, (ws) => servePortForward(spdyOverWebSocket(ws, { role: 'server' }), forwarder, o.streamCreationTimeoutMs));
      } else {
        writeSpdyUpgrade(socket, chosen);
        servePortForward(spdyOverSocket(socket, { role: 'server' }, head), forwarder, o.streamCreationTimeoutMs);
      }
      return;
    }

    // exec / attach
    const q = url.searchParams;
    let proto: ChannelProtocol | undefined;
    let spdyProtocol: string | undefined;
    if (websocket) {
      const offered = parseSubprotocols(req.headers['sec-websocket-protocol']);
      proto = negotiateChannelProtocol(offered);
      if (!proto) return writeRawText(socket, 400, `requested protocol(s) are not supported: [${offered.join(' ')}]`);
    } else {
      const offered = headerList(req, 'x-stream-protocol-version');
      if (!offered.length) return writeRawText(socket, 400, 'unable to upgrade: X-Stream-Protocol-Version is required');
      spdyProtocol = offered.find((p) => SPDY_REMOTE_COMMAND_PROTOCOLS.includes(p));
      if (!spdyProtocol) {
        return writeRawText(
          socket,
          403,
          `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${SPDY_REMOTE_COMMAND_PROTOCOLS.join(' ')}]`,
        );
      }
    }
    const opts = streamOptions(q);
    const pod = lookupPod(r.ns, r.pod, r.uid);
    let runner: RemoteCommandRunner;
    if (r.kind === 'exec') {
      const id = await runningContainerId(o.runtime, pod, r.container);
      runner = await prepareExec(o.runtime, id, q.getAll('command'), opts);
    } else {
      const spec = containerSpec(pod, r.container);
      if (!spec) throw new KubeletHTTPError(500, `container ${r.container} not found in pod ${r.pod}_${r.ns}`);
      // the terminal setting is the container's: it cannot change after the process started
      opts.tty = !!spec.tty;
      if (opts.tty) opts.stderr = false;
      const id = await runningContainerId(o.runtime, pod, r.container);
      runner = await prepareAttach(o.runtime, id, opts);
    }
    if (proto) {
      const p = proto;
      acceptWebSocket(req, socket, head, p.name, (ws) => void serveWebSocketRemoteCommand(ws, p, opts, runner));
    } else {
      writeSpdyUpgrade(socket, spdyProtocol!);
      void serveSpdyRemoteCommand(spdyOverSocket(socket, { role: 'server' }, head), spdyProtocol!, opts, runner, o.streamCreationTimeoutMs);
    }
  }

  const server: Server = createServer({ cert: o.tls.cert, key: o.tls.key, ca: o.tls.clientCA, requestCert: true, rejectUnauthorized: false, requestTimeout: 0 }, (req, res) => {
    onRequest(req, res).catch((e: unknown) => {
      if (e instanceof KubeletHTTPError) writeText(res, e.status, e.message);
      else if (!res.headersSent) writeText(res, 500, e instanceof Error ? e.message : String(e));
      else res.destroy();
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    onUpgrade(req, socket, head).catch((e: unknown) => {
      if (e instanceof KubeletHTTPError) writeRawText(socket, e.status, e.message);
      else writeRawText(socket, 500, e instanceof Error ? e.message : String(e));
    });
  });
  server.on('clientError', (_e, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  });
  const address = o.address ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 10250, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address,
    async close() {
      for (const s of sockets) s.destroy();
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      wss.close();
    },
  };
}
