/**
 * `metrics.k8s.io/v1beta1` served in the API server, as metrics-server serves it: NodeMetrics
 * (`nodes`, cluster-scoped) and PodMetrics (`pods`, namespaced, also across namespaces),
 * verbs get and list, with labelSelector (the node's or pod's labels) and fieldSelector
 * (`metadata.name`, and `metadata.namespace` for pods); a node or pod without two samples
 * yet is left out of lists and is NotFound by name (`nodemetrics.metrics.k8s.io "x" not
 * found`, `podmetrics.metrics.k8s.io "ns/x" not found`); a name that is no node or pod is
 * `nodes "x" not found` / `pods "x" not found`. Tables (kubectl get) have metrics-server's
 * columns: Name, cpu, memory, Window.
 *
 * @see https://github.com/kubernetes-sigs/metrics-server/blob/v0.7.2/pkg/api/node.go
 * @see https://github.com/kubernetes-sigs/metrics-server/blob/v0.7.2/pkg/api/pod.go
 * @see https://github.com/kubernetes/metrics/blob/v0.32.0/pkg/apis/metrics/v1beta1/types.go
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { KObject, ObjectLookup, ResourceDefinition } from '../../api/resource.js';
import { formatDuration } from '../../apimachinery/duration.js';
import { newBadRequest, newMethodNotSupported, newNotFound } from '../../apimachinery/errors.js';
import { parseFieldSelector } from '../../apimachinery/fields.js';
import { parseSelector } from '../../apimachinery/labels.js';
import { addQuantity, formatQuantity, parseQuantity, type Quantity } from '../../apimachinery/quantity.js';
import type { Handler } from '../filters/types.js';
import { splitURL } from '../filters/request-info.js';
import { negotiateOutput } from '../http/negotiate.js';
import { writeError, writeJSON } from '../http/respond.js';
import type { MetricsStorage } from './storage.js';

export const GROUP = 'metrics.k8s.io';
export const VERSION = 'v1beta1';
const GV = `${GROUP}/${VERSION}`;

/** Discovery definitions of the two kinds (they have no store). */
export const METRICS_DEFINITIONS: ResourceDefinition[] = [
  { group: GROUP, version: VERSION, kind: 'NodeMetrics', listKind: 'NodeMetricsList', resource: 'nodes', singular: '', namespaced: false, verbs: ['get', 'list'] },
  { group: GROUP, version: VERSION, kind: 'PodMetrics', listKind: 'PodMetricsList', resource: 'pods', singular: '', namespaced: true, verbs: ['get', 'list'] },
];

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function nodeMetrics(n: Node, s: MetricsStorage, now: Date): KObject | undefined {
  const u = s.node(n.metadata?.name ?? '');
  if (!u) return undefined;
  return {
    kind: 'NodeMetrics',
    apiVersion: GV,
    metadata: { name: n.metadata?.name, creationTimestamp: rfc3339(now.getTime()), ...(n.metadata?.labels ? { labels: n.metadata.labels } : {}) },
    timestamp: rfc3339(u.timestamp),
    window: formatDuration(u.window),
    usage: { cpu: u.cpu, memory: u.memory },
  };
}

function podMetrics(p: Pod, s: MetricsStorage, now: Date): KObject | undefined {
  const u = s.pod(p.metadata?.namespace ?? '', p.metadata?.name ?? '');
  if (!u) return undefined;
  return {
    kind: 'PodMetrics',
    apiVersion: GV,
    metadata: { name: p.metadata?.name, namespace: p.metadata?.namespace, creationTimestamp: rfc3339(now.getTime()), ...(p.metadata?.labels ? { labels: p.metadata.labels } : {}) },
    timestamp: rfc3339(u.timestamp),
    window: formatDuration(u.window),
    containers: u.containers,
  };
}

/** metrics-server's table: Name, then the usage names sorted (cpu, memory), then Window. */
function table(items: KObject[], usageOf: (o: KObject) => Record<string, string>): Record<string, unknown> {
  const columnDefinitions = [
    { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0 },
    { name: 'cpu', type: 'string', format: 'quantity', description: '', priority: 0 },
    { name: 'memory', type: 'string', format: 'quantity', description: '', priority: 0 },
    { name: 'Window', type: 'string', format: 'duration', description: '', priority: 0 },
  ];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions,
    rows: items.map((o) => {
      const u = usageOf(o);
      const m = o.metadata as { name?: string };
      return { cells: [m.name, u.cpu, u.memory, o.window], object: o };
    }),
  };
}

function podUsage(o: KObject): Record<string, string> {
  const sum: Record<string, Quantity> = {};
  for (const c of (o.containers as { usage: Record<string, string> }[]) ?? []) {
    for (const [k, v] of Object.entries(c.usage)) sum[k] = sum[k] ? addQuantity(sum[k]!, parseQuantity(v)) : parseQuantity(v);
  }
  return Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, formatQuantity(v)]));
}

/** Parses `/apis/metrics.k8s.io/v1beta1[/namespaces/<ns>]/<resource>[/<name>]`. */
function parsePath(path: string): { namespace?: string; resource?: string; name?: string } | undefined {
  const rest = path.slice(`/apis/${GV}`.length).split('/').filter(Boolean).map(decodeURIComponent);
  if (rest.length === 0) return {};
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest.splice(0, 2);
  }
  if (rest.length > 2) return undefined;
  return { namespace, resource: rest[0], name: rest[1] };
}

/**
 * The group-version's handler (registered with the aggregator as a local API).
 * @param lookup the API server's stores (nodes and pods)
 */
export function metricsAPIHandler(lookup: ObjectLookup, storage: MetricsStorage): Handler {
  return async (req, res) => {
    try {
      const { path, query } = splitURL(req.url);
      const p = parsePath(path.replace(/\/$/, ''));
      const neg = negotiateOutput(req.headers.accept, true);
      if (!p || (p.resource !== undefined && p.resource !== 'nodes' && p.resource !== 'pods') || (p.resource === 'nodes' && p.namespace !== undefined)) {
        throw newNotFound({ group: '', resource: '' }, '');
      }
      if (req.method !== 'GET') throw newMethodNotSupported({ group: GROUP, resource: p.resource ?? '' }, req.method.toLowerCase());
      if (p.resource === undefined) {
        return writeJSON(res, 200, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: GV,
          resources: [
            { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
            { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
          ],
        });
      }
      const now = new Date();
      let labelSel;
      let fieldSel;
      try {
        labelSel = parseSelector(query.get('labelSelector') ?? '');
        fieldSel = parseFieldSelector(query.get('fieldSelector') ?? '');
      } catch (e) {
        throw newBadRequest(e instanceof Error ? e.message : String(e));
      }
      const asTable = neg.transform === 'Table';
      if (p.resource === 'nodes') {
        if (p.name) {
          const n = (await lookup.get(NODES, '', p.name)) as Node | undefined;
          if (!n) throw newNotFound({ group: '', resource: 'nodes' }, p.name);
          const m = nodeMetrics(n, storage, now);
          if (!m) throw newNotFound({ group: GROUP, resource: 'nodemetrics' }, p.name);
          return writeJSON(res, 200, asTable ? table([m], (o) => o.usage as Record<string, string>) : m);
        }
        const nodes = ((await lookup.list(NODES, '')) as Node[])
          .filter((n) => labelSel.matches(n.metadata?.labels) && fieldSel.matches({ 'metadata.name': n.metadata?.name ?? '' }))
          .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
        const items = nodes.flatMap((n): KObject[] => {
          const m = nodeMetrics(n, storage, now);
          return m ? [m] : [];
        });
        return writeJSON(res, 200, asTable ? table(items, (o) => o.usage as Record<string, string>) : { kind: 'NodeMetricsList', apiVersion: GV, metadata: {}, items });
      }
      const ns = p.namespace ?? '';
      if (p.name) {
        const pod = (await lookup.get(PODS, ns, p.name)) as Pod | undefined;
        if (!pod) throw newNotFound({ group: '', resource: 'pods' }, p.name);
        const m = podMetrics(pod, storage, now);
        if (!m) throw newNotFound({ group: GROUP, resource: 'podmetrics' }, `${ns}/${p.name}`);
        return writeJSON(res, 200, asTable ? table([m], podUsage) : m);
      }
      const pods = ((await lookup.list(PODS, ns)) as Pod[]).filter(
        (x) => labelSel.matches(x.metadata?.labels) && fieldSel.matches({ 'metadata.name': x.metadata?.name ?? '', 'metadata.namespace': x.metadata?.namespace ?? '' }),
      );
      const items = pods.flatMap((x): KObject[] => {
        const m = podMetrics(x, storage, now);
        return m ? [m] : [];
      });
      return writeJSON(res, 200, asTable ? table(items, podUsage) : { kind: 'PodMetricsList', apiVersion: GV, metadata: {}, items });
    } catch (e) {
      writeError(res, e);
    }
  };
}
