/**
 * `k8ts dashboard`: a live web view of pods being created, served on a local address
 * (default 127.0.0.1:8001) with the user's kubeconfig credentials, as `kubectl proxy`
 * does: it watches trace.k8ts.io PodTraces in all namespaces and pushes each change to
 * the page over Server-Sent Events (`/events`), with, for a pod that is not Running, why
 * (src/trace/explain.ts, from the pod and its Events). The page is src/trace/dashboard/page.ts.
 */
import { createServer, type ServerResponse } from 'node:http';
import { Command } from 'commander';
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import type { PodTrace } from '../api/trace/v1alpha1/podtrace/definition.js';
import { R, type Client } from '../client/types.js';
import { dashboardPage } from '../trace/dashboard/page.js';
import { explainStuck, type StuckExplanation } from '../trace/explain.js';
import { clientFromKubeconfig, kubeconfigPath } from './kubeconfig-load.js';
import { PODTRACES } from './trace.js';

/** A running dashboard. */
export interface RunningDashboard {
  url: string;
  stop(): Promise<void>;
}

const keyOf = (t: PodTrace): string => `${t.metadata?.namespace}/${t.metadata?.name}`;

/** Why a pod is not Running (undefined when it is, or is gone). */
async function explain(client: Client, t: PodTrace): Promise<StuckExplanation | undefined> {
  const ns = t.metadata?.namespace ?? '';
  const name = t.metadata?.name ?? '';
  try {
    const pod = (await client.get(R.pods, ns, name)) as Pod;
    const events = (await client.list(R.events, ns, { fieldSelector: `involvedObject.name=${name},involvedObject.namespace=${ns}` })).items as unknown as Event[];
    return explainStuck(pod, t, events);
  } catch {
    return undefined;
  }
}

/**
 * Serves the dashboard on `address:port` (0 = a free port).
 * @throws Error when the kubeconfig cannot be read or the port cannot be bound
 */
export async function runDashboard(o: { kubeconfig?: string; address: string; port: number }): Promise<RunningDashboard> {
  const { client, transport } = clientFromKubeconfig(kubeconfigPath(o.kubeconfig));
  const traces = new Map<string, PodTrace>();
  const stuck = new Map<string, StuckExplanation>();
  const clients = new Set<ServerResponse>();
  const send = (event: string, data: unknown): void => {
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const c of clients) c.write(text);
  };
  const publish = (k: string): void => {
    const t = traces.get(k);
    if (t) send('trace', { trace: t, stuck: stuck.get(k) });
  };
  const recheck = async (k: string): Promise<void> => {
    const t = traces.get(k);
    if (!t) return;
    const why = t.status.phase === 'Running' && t.status.steps.some((s) => s.name === 'Ready') ? undefined : await explain(client, t);
    const before = JSON.stringify(stuck.get(k));
    if (why) stuck.set(k, why);
    else stuck.delete(k);
    if (JSON.stringify(why) !== before) publish(k);
  };
  const watch = client.watch(PODTRACES, '', {}, (e) => {
    const t = e.object as unknown as PodTrace;
    if (!t.metadata?.name) return;
    const k = keyOf(t);
    if (e.type === 'DELETED') {
      traces.delete(k);
      stuck.delete(k);
      send('deleted', { key: k });
      return;
    }
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
    traces.set(k, t);
    publish(k);
    if (t.status.phase !== 'Running') void recheck(k);
  });
  // stuck pods change without new steps (events, back-offs): look again every 2 s
  const timer = setInterval(() => {
    for (const [k, t] of traces) if (t.status.phase !== 'Running' || stuck.has(k)) void recheck(k);
  }, 2000);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(dashboardPage());
      return;
    }
    if (path === '/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
      res.write(': k8ts pod traces\n\n');
      clients.add(res);
      req.on('close', () => clients.delete(res));
      for (const [k, t] of traces) res.write(`event: trace\ndata: ${JSON.stringify({ trace: t, stuck: stuck.get(k) })}\n\n`);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.address, () => resolve());
  });
  const a = server.address();
  const port = typeof a === 'object' && a ? a.port : o.port;
  return {
    url: `http://${o.address.includes(':') ? `[${o.address}]` : o.address}:${port}/`,
    async stop() {
      clearInterval(timer);
      watch.stop();
      for (const c of clients) c.end();
      server.closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
      transport.close();
    },
  };
}

/** The `dashboard` command. */
export function dashboardCommand(): Command {
  return new Command('dashboard')
    .description('serve a live web view of pods being created (their steps, waterfalls, step latencies, stuck pods) on a local address')
    .option('--address <ip>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: a free one)', (v) => parseInt(v, 10), 8001)
    .option('--kubeconfig <file>', 'kubeconfig (default $KUBECONFIG, else ~/.kube/config)')
    .action(async (o: { address: string; port: number; kubeconfig?: string }) => {
      const d = await runDashboard(o);
      console.log(`Serving the pod creation dashboard on ${d.url}`);
      const stop = (): void => void d.stop().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}
