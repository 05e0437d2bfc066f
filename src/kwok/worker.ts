/**
 * The kwok node pool in a worker thread of `k8ts server` (`--kwok-nodes N`), so the
 * simulated nodes' and pods' work (watch handling, status generation, request encoding)
 * runs on the other core while the API server's thread serves their writes. The pool
 * talks to the API server as a remote kwok does — every request and watch through the
 * server's pipeline as its own identity, over a MessagePort instead of a socket
 * (src/apiserver/port-transport.ts) — except lease renewals, which go to the server's
 * lease store in one batch per tick (lease-port.ts), as they do in-thread.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { UserInfo } from '../api/resource.js';
import type { RequestHandler } from '../apiserver/loopback.js';
import { servePort } from '../apiserver/port-transport.js';
import { kwokNodes } from './index.js';
import { serveLeaseRenewer } from './lease-port.js';
import type { LeaseRenewer } from './lease-renewer.js';

/** What the worker is started with (structured-cloned; the ports are transferred). */
export interface KwokWorkerData {
  /** the API server, as PortTransport requests and streams */
  api: MessagePort;
  /** lease renewal batches (absent: renewals are API updates) */
  leases?: MessagePort;
  userAgent: string;
  count: number;
  clusterCIDR: string;
  firstSubnet: number;
  /** --kwok-stages files (read again in the worker) */
  stageFiles: string[];
}
export type ToKwokWorker = { t: 'stop' };
export type FromKwokWorker = { t: 'registered' } | { t: 'error'; message: string };

export interface KwokWorkerOptions {
  api: RequestHandler;
  /** the pool's identity (authorization, admission and audit see it as for an in-thread pool) */
  user: UserInfo;
  userAgent: string;
  count: number;
  clusterCIDR: string;
  firstSubnet: number;
  stageFiles?: string[];
  /** the server's lease store renewer (see lease-renewer.ts) */
  renewer?: LeaseRenewer;
  /** the worker's errors (an uncaught error ends the worker; the server goes on without the pool) */
  onError(message: string): void;
}

export interface KwokWorker {
  /** resolves once every node has been created (or adopted); rejects when registration fails */
  registered: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The worker's entry: dist/kwok-worker.mjs next to the bundle; from the sources (under
 * tsx), a JS trampoline that registers tsx in the worker before loading worker-entry.ts.
 */
function entry(): { url: URL | string; eval: boolean } {
  const bundled = new URL('./kwok-worker.mjs', import.meta.url);
  if (existsSync(fileURLToPath(bundled))) return { url: bundled, eval: false };
  const src = new URL('./worker-entry.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return { url: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(src)}); });`, eval: true };
}

/**
 * Starts the pool in a worker thread.
 * @throws Error when the cluster CIDR cannot give every node a /24 (checked here, before the worker starts)
 */
export function startKwokWorker(o: KwokWorkerOptions): KwokWorker {
  kwokNodes(o.count, o.clusterCIDR, o.firstSubnet);
  const api = new MessageChannel();
  servePort(o.api, o.user, api.port1);
  const leases = o.renewer ? new MessageChannel() : undefined;
  if (leases) serveLeaseRenewer(leases.port1, o.renewer!);
  const data: KwokWorkerData = {
    api: api.port2,
    leases: leases?.port2,
    userAgent: o.userAgent,
    count: o.count,
    clusterCIDR: o.clusterCIDR,
    firstSubnet: o.firstSubnet,
    stageFiles: o.stageFiles ?? [],
  };
  const e = entry();
  const worker = new Worker(e.url, { eval: e.eval, workerData: data, transferList: leases ? [api.port2, leases.port2] : [api.port2], name: 'kwok' });
  let stopping = false;
  let registeredDone!: () => void;
  let registeredFailed!: (e: Error) => void;
  const registered = new Promise<void>((res, rej) => {
    registeredDone = res;
    registeredFailed = rej;
  });
  registered.catch(() => undefined);
  worker.on('message', (m: FromKwokWorker) => {
    if (m.t === 'registered') registeredDone();
    else {
      registeredFailed(new Error(m.message));
      o.onError(m.message);
    }
  });
  worker.on('error', (e) => o.onError(`kwok worker: ${e.stack ?? e.message}`));
  const exited = new Promise<void>((r) => worker.once('exit', () => r()));
  void exited.then(() => {
    api.port1.close();
    leases?.port1.close();
    if (!stopping) {
      registeredFailed(new Error('kwok worker exited'));
      o.onError('kwok worker exited');
    }
  });
  return {
    registered,
    async stop() {
      if (stopping) return exited;
      stopping = true;
      worker.postMessage({ t: 'stop' } satisfies ToKwokWorker);
      // the pool holds nothing to save: a worker slow to wind down is ended
      const t = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(t);
    },
  };
}
