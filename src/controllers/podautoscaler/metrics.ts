/**
 * The resource metrics client of the HPA controller: lists `pods.metrics.k8s.io` in the
 * HPA's namespace through the API server, as upstream's REST metrics client does: per pod
 * the sum of its containers' usage (milli-units), the sample's time and window. Without a
 * metrics API (`--disable metrics-server`) the list fails with upstream's wording:
 * `unable to fetch metrics from resource metrics API: the server could not find the
 * requested resource (get pods.metrics.k8s.io)`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/metrics/client.go
 */
import type { Client } from '../../client/types.js';
import { parseGoDuration } from '../../util/duration.js';
import type { MetricsClient } from './reconcile.js';
import type { PodMetric } from './replica-calculator.js';

/** client-go's message for an error status without a usable Status body (NewGenericServerResponse). */
function genericServerMessage(status: number, body: string): string {
  if (status === 404) return 'the server could not find the requested resource (get pods.metrics.k8s.io)';
  try {
    const s = JSON.parse(body) as { kind?: string; message?: string };
    if (s.kind === 'Status' && s.message) return s.message;
  } catch {
    // not JSON: fall through
  }
  return `an error on the server ("${body.trim().slice(0, 100)}") has prevented the request from succeeding (get pods.metrics.k8s.io)`;
}

/** A {@link MetricsClient} over the API server's `metrics.k8s.io/v1beta1` (milli-units per pod). */
export function restMetricsClient(client: Client): MetricsClient {
  return {
    async getResourceMetric(resource, namespace, selector) {
      const path = `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods?labelSelector=${encodeURIComponent(selector)}`;
      let res: { status: number; body: string };
      try {
        res = await client.raw('GET', path);
      } catch (e) {
        throw new Error(`unable to fetch metrics from resource metrics API: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (res.status !== 200) throw new Error(`unable to fetch metrics from resource metrics API: ${genericServerMessage(res.status, res.body)}`);
      const list = JSON.parse(res.body) as {
        items?: { metadata?: { name?: string }; timestamp?: string; window?: string; containers?: { usage?: Record<string, string> }[] }[];
      };
      const out = new Map<string, PodMetric>();
      for (const p of list.items ?? []) {
        let sum = 0;
        let missing = false;
        for (const c of p.containers ?? []) {
          const v = c.usage?.[resource];
          if (v === undefined) missing = true;
          else sum += milli(v);
        }
        // upstream skips a pod whose containers lack the resource
        if (missing || !p.containers?.length) continue;
        let window = 0;
        try {
          window = p.window ? parseGoDuration(p.window) : 0;
        } catch {
          window = 0;
        }
        out.set(p.metadata?.name ?? '', { value: sum, timestamp: Date.parse(p.timestamp ?? '') || 0, window });
      }
      if (out.size === 0) throw new Error('no metrics returned from resource metrics API');
      return out;
    },
  };
}

/** A quantity string in milli-units (enough for usage values: plain, m, n, u, Ki/Mi/Gi, k/M/G). */
function milli(q: string | undefined): number {
  if (!q) return 0;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q);
  if (!m) return 0;
  const f: Record<string, number> = { '': 1e3, n: 1e-6, u: 1e-3, m: 1, k: 1e6, M: 1e9, G: 1e12, Ki: 1024e3, Mi: 1024 ** 2 * 1e3, Gi: 1024 ** 3 * 1e3 };
  return Number(m[1]) * (f[m[2]!] ?? 0);
}
