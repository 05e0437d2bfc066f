/**
 * The metrics clients of the HPA controller, through the API server, as upstream's REST
 * metrics client:
 * - resource metrics: `pods.metrics.k8s.io` in the HPA's namespace — per pod the sum of its
 *   containers' usage (or one container's, for ContainerResource metrics), the sample's
 *   time and window;
 * - custom metrics (`custom.metrics.k8s.io/v1beta2`, served by an adapter's APIService):
 *   a metric of every pod matching a selector (Pods metrics), or of one object (Object
 *   metrics, `namespaces/<ns>/<resource>/<name>/<metric>`, `…/metrics/<metric>` for a Namespace);
 * - external metrics (`external.metrics.k8s.io/v1beta1`): the values of a metric.
 *
 * Failures read as upstream's: `unable to fetch metrics from resource metrics API: the server
 * could not find the requested resource (get pods.metrics.k8s.io)`, `unable to fetch metrics
 * from custom metrics API: …`, `unable to fetch metrics from external metrics API: …`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/metrics/client.go
 */
import type { Client } from '../../client/types.js';
import { parseGoDuration } from '../../util/duration.js';
import type { MetricsClient } from './reconcile.js';
import type { PodMetric } from './replica-calculator.js';

/** client-go's message for an error status without a usable Status body (NewGenericServerResponse). */
function genericServerMessage(status: number, body: string, what = 'pods.metrics.k8s.io'): string {
  if (status === 404) return `the server could not find the requested resource (get ${what})`;
  try {
    const s = JSON.parse(body) as { kind?: string; message?: string };
    if (s.kind === 'Status' && s.message) return s.message;
  } catch {
    // not JSON: fall through
  }
  return `an error on the server ("${body.trim().slice(0, 100)}") has prevented the request from succeeding (get ${what})`;
}

/** A {@link MetricsClient} over the API server's `metrics.k8s.io/v1beta1` (milli-units per pod). */
export function restMetricsClient(client: Client): MetricsClient {
  return {
    async getResourceMetric(resource, namespace, selector, container = '') {
      const path = `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods?labelSelector=${encodeURIComponent(selector)}`;
      let res: { status: number; body: string };
      try {
        res = await client.raw('GET', path);
      } catch (e) {
        throw new Error(`unable to fetch metrics from resource metrics API: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (res.status !== 200) throw new Error(`unable to fetch metrics from resource metrics API: ${genericServerMessage(res.status, res.body)}`);
      const list = JSON.parse(res.body) as {
        items?: { metadata?: { name?: string }; timestamp?: string; window?: string; containers?: { name?: string; usage?: Record<string, string> }[] }[];
      };
      const out = new Map<string, PodMetric>();
      for (const p of list.items ?? []) {
        let sum = 0;
        let missing = false;
        let found = false;
        for (const c of p.containers ?? []) {
          if (container !== '' && c.name !== container) continue;
          found = true;
          const v = c.usage?.[resource];
          if (v === undefined) missing = true;
          else sum += milli(v);
        }
        // upstream skips a pod whose containers lack the resource (or that lacks the container)
        if (missing || !found) continue;
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

/** custom.metrics.k8s.io/v1beta2 MetricValue. */
interface MetricValue {
  describedObject?: { kind?: string; name?: string; namespace?: string };
  timestamp?: string;
  windowSeconds?: number;
  value?: string;
}

const selectorQuery = (labelSelector: string, metricSelector: string): string => {
  const q = new URLSearchParams();
  if (labelSelector) q.set('labelSelector', labelSelector);
  if (metricSelector) q.set('metricLabelSelector', metricSelector);
  const t = q.toString();
  return t ? `?${t}` : '';
};

async function getList<T>(client: Client, path: string, api: string, what: string): Promise<T[]> {
  let res: { status: number; body: string };
  try {
    res = await client.raw('GET', path);
  } catch (e) {
    throw new Error(`unable to fetch metrics from ${api} API: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (res.status !== 200) throw new Error(`unable to fetch metrics from ${api} API: ${genericServerMessage(res.status, res.body, what)}`);
  return ((JSON.parse(res.body) as { items?: T[] }).items ?? []) as T[];
}

/**
 * Custom and external metrics over the API server (upstream customMetricsClient,
 * externalMetricsClient). `resourceOf(kind, apiVersion)` names an object's resource
 * (the REST mapping) for Object metrics.
 */
export function restCustomMetricsClient(
  client: Client,
  resourceOf: (apiVersion: string, kind: string) => Promise<string>,
): Pick<MetricsClient, 'getRawMetric' | 'getObjectMetric' | 'getExternalMetric'> {
  return {
    async getRawMetric(metricName, namespace, selector, metricSelector) {
      const path = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${encodeURIComponent(namespace)}/pods/*/${encodeURIComponent(metricName)}${selectorQuery(selector, metricSelector)}`;
      const items = await getList<MetricValue>(client, path, 'custom metrics', `pods.custom.metrics.k8s.io *`);
      if (items.length === 0) throw new Error('no metrics returned from custom metrics API');
      const out = new Map<string, PodMetric>();
      for (const m of items) {
        out.set(m.describedObject?.name ?? '', { value: milli(m.value), timestamp: Date.parse(m.timestamp ?? '') || 0, window: (m.windowSeconds ?? 0) * 1000 });
      }
      return out;
    },
    async getObjectMetric(metricName, namespace, ref, metricSelector) {
      const resource = await resourceOf(ref.apiVersion ?? '', ref.kind);
      const path =
        ref.kind === 'Namespace' && (ref.apiVersion ?? 'v1') === 'v1'
          ? `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${encodeURIComponent(ref.name)}/metrics/${encodeURIComponent(metricName)}`
          : `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${encodeURIComponent(namespace)}/${resource}/${encodeURIComponent(ref.name)}/${encodeURIComponent(metricName)}`;
      const items = await getList<MetricValue>(client, path + selectorQuery('', metricSelector), 'custom metrics', `${resource}.custom.metrics.k8s.io ${ref.name}`);
      if (items.length === 0) throw new Error('no metrics returned from custom metrics API');
      return { value: milli(items[0]!.value), timestamp: Date.parse(items[0]!.timestamp ?? '') || 0 };
    },
    async getExternalMetric(metricName, namespace, metricSelector) {
      const q = metricSelector ? `?labelSelector=${encodeURIComponent(metricSelector)}` : '';
      const path = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/${encodeURIComponent(metricName)}${q}`;
      const items = await getList<{ value?: string; timestamp?: string }>(client, path, 'external metrics', `${metricName}.external.metrics.k8s.io`);
      if (items.length === 0) throw new Error('no metrics returned from external metrics API');
      return { values: items.map((i) => milli(i.value)), timestamp: Date.parse(items[0]!.timestamp ?? '') || 0 };
    },
  };
}

/**
 * A quantity string in whole milli-units, rounded up as upstream's Quantity.MilliValue()
 * (`199999999n` is 200m), enough for usage values: plain, m, n, u, Ki/Mi/Gi, k/M/G.
 */
export function milli(q: string | undefined): number {
  if (!q) return 0;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q);
  if (!m) return 0;
  const f: Record<string, number> = { '': 1e3, n: 1e-6, u: 1e-3, m: 1, k: 1e6, M: 1e9, G: 1e12, Ki: 1024e3, Mi: 1024 ** 2 * 1e3, Gi: 1024 ** 3 * 1e3 };
  const v = Number(m[1]) * (f[m[2]!] ?? 0);
  // the epsilon keeps binary fractions (0.2 × 1000 = 200.00000000000003) from rounding up
  return Math.ceil(v - 1e-9);
}
