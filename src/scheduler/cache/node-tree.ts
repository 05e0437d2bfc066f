/**
 * Node names grouped by zone, listed round-robin across zones so consecutive
 * scheduling cycles (which start where the previous one stopped) spread over zones.
 * The zone is `topology.kubernetes.io/zone` (with the region prefixed) as upstream's
 * utilnode.GetZoneKey.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/backend/cache/node_tree.go
 */
import type { Node } from 'kubernetes-types/core/v1.js';

/** `region:\x00:zone` as upstream's GetZoneKey ('' when neither label is set). */
export function zoneKey(node: Node): string {
  const l = node.metadata?.labels ?? {};
  const zone = l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'] ?? '';
  const region = l['topology.kubernetes.io/region'] ?? l['failure-domain.beta.kubernetes.io/region'] ?? '';
  if (!zone && !region) return '';
  return `${region}:\x00:${zone}`;
}

export class NodeTree {
  private readonly tree = new Map<string, string[]>();
  private readonly names = new Set<string>();
  private readonly zones: string[] = [];
  private count = 0;
  private cached: string[] | null = null;

  get size(): number {
    return this.count;
  }

  add(node: Node): void {
    const z = zoneKey(node);
    const name = node.metadata?.name ?? '';
    let l = this.tree.get(z);
    if (!l) {
      this.tree.set(z, (l = []));
      this.zones.push(z);
    }
    if (this.names.has(name)) return;
    this.names.add(name);
    l.push(name);
    this.count++;
    this.cached = null;
  }

  remove(node: Node): void {
    const z = zoneKey(node);
    const name = node.metadata?.name ?? '';
    const l = this.tree.get(z);
    if (!l) return;
    const i = l.indexOf(name);
    if (i < 0) return;
    l.splice(i, 1);
    this.names.delete(name);
    this.count--;
    if (l.length === 0) {
      this.tree.delete(z);
      this.zones.splice(this.zones.indexOf(z), 1);
    }
    this.cached = null;
  }

  update(old: Node, node: Node): void {
    if (zoneKey(old) === zoneKey(node)) return;
    this.remove(old);
    this.add(node);
  }

  /** All node names, zones interleaved: zone0[0], zone1[0], …, zone0[1], … */
  list(): string[] {
    if (this.cached) return this.cached;
    const out: string[] = [];
    const lists = this.zones.map((z) => this.tree.get(z)!);
    for (let i = 0; out.length < this.count; i++) {
      for (const l of lists) if (i < l.length) out.push(l[i]!);
    }
    this.cached = out;
    return out;
  }
}
