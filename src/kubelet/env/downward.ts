/**
 * Downward API values: pod fields (fieldRef) and container resources
 * (resourceFieldRef), shared by environment variables and downwardAPI volumes.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/fieldpath/fieldpath.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/api/v1/resource/helpers.go (ExtractContainerResourceValue)
 */
import type { Pod, ResourceFieldSelector } from 'kubernetes-types/core/v1.js';
import { milliValue, parseQuantity, value, type Quantity } from '../../apimachinery/quantity.js';

/** Values only the kubelet knows (status is not written yet when containers start). */
export interface RuntimeFieldValues {
  nodeName: string;
  hostIPs: string[];
  podIPs: string[];
}

/** Node allocatable used in place of unset limits (upstream MergeContainerResourceLimits). */
export type NodeAllocatable = Partial<Record<'cpu' | 'memory' | 'ephemeral-storage', Quantity>>;

/** `k="v"` lines, sorted, as upstream FormatMap. */
function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(m![k])}`)
    .join('\n');
}

/**
 * The string value of a fieldRef path.
 * @throws Error `unsupported fieldPath: x` like upstream.
 */
export function fieldRefValue(pod: Pod, fieldPath: string, rt: RuntimeFieldValues): string {
  const md = pod.metadata ?? {};
  const sub = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (sub) return (sub[1] === 'labels' ? md.labels : md.annotations)?.[sub[2]] ?? '';
  switch (fieldPath) {
    case 'metadata.name':
      return md.name ?? '';
    case 'metadata.namespace':
      return md.namespace ?? '';
    case 'metadata.uid':
      return md.uid ?? '';
    case 'metadata.labels':
      return formatMap(md.labels);
    case 'metadata.annotations':
      return formatMap(md.annotations);
    case 'spec.nodeName':
      return pod.spec?.nodeName || rt.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
      return rt.hostIPs[0] ?? '';
    case 'status.hostIPs':
      return rt.hostIPs.join(',');
    case 'status.podIP':
      return rt.podIPs[0] ?? '';
    case 'status.podIPs':
      return rt.podIPs.join(',');
  }
  throw new Error(`unsupported fieldPath: ${fieldPath}`);
}

/**
 * The value of a resourceFieldRef for container `defaultContainer` (or the selector's
 * containerName): cpu as ceil(milli / divisor milli), others as ceil(value / divisor).
 * @throws Error `unsupported container resource : x` / `container x not found`
 */
export function resourceFieldRefValue(pod: Pod, sel: ResourceFieldSelector, defaultContainer: string, alloc: NodeAllocatable): string {
  const name = sel.containerName || defaultContainer;
  const c = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((x) => x.name === name);
  if (!c) throw new Error(`container ${name} not found`);
  const divisor = parseQuantity(sel.divisor === undefined ? '1' : String(sel.divisor));
  const [kind, res] = sel.resource.split(/\.(.*)/s) as ['limits' | 'requests', string];
  const raw = (kind === 'limits' ? c.resources?.limits : kind === 'requests' ? c.resources?.requests : undefined)?.[res];
  let q: Quantity | undefined = raw !== undefined ? parseQuantity(String(raw)) : undefined;
  if (!q && kind === 'limits') q = alloc[res as keyof NodeAllocatable];
  if (kind !== 'limits' && kind !== 'requests') throw new Error(`unsupported container resource : ${sel.resource}`);
  if (!q) return '0';
  if (res === 'cpu') {
    const d = milliValue(divisor) || 1;
    return String(Math.ceil(milliValue(q) / d));
  }
  if (res === 'memory' || res === 'ephemeral-storage' || res.startsWith('hugepages-')) {
    const d = value(divisor) || 1;
    return String(Math.ceil(value(q) / d));
  }
  throw new Error(`unsupported container resource : ${sel.resource}`);
}
