/**
 * Counters keyed by topology pair (`key`, `value` of a node label), as upstream's
 * `topologyToMatchedTermCount` for InterPodAffinity. Entries dropping to zero are removed.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Labels } from '../../../apimachinery/labels.js';
import { podMatchesAllAffinityTerms, type AffinityTerm } from '../../framework/affinity.js';

/** The map key of a topology pair. */
export function tpKey(key: string, value: string): string {
  return `${key}\x00${value}`;
}

export class TopologyCounts {
  readonly m = new Map<string, number>();

  get size(): number {
    return this.m.size;
  }

  get(key: string, value: string): number {
    return this.m.get(tpKey(key, value)) ?? 0;
  }

  /** Adds `delta` to the pair (`tk`, node's value of `tk`) when the node has the label. */
  update(nodeLabels: Labels, tk: string, delta: number): void {
    const tv = nodeLabels[tk];
    if (tv === undefined) return;
    const k = tpKey(tk, tv);
    const n = (this.m.get(k) ?? 0) + delta;
    if (n === 0) this.m.delete(k);
    else this.m.set(k, n);
  }

  /** For each term, when `pod` matches ALL terms, counts the node's pair of the term's key. */
  updateWithAffinityTerms(terms: AffinityTerm[], pod: Pod, nodeLabels: Labels, delta: number): void {
    if (!podMatchesAllAffinityTerms(terms, pod)) return;
    for (const t of terms) this.update(nodeLabels, t.topologyKey, delta);
  }

  /** For each term `pod` matches (namespace with `nsLabels` and selector), counts the node's pair. */
  updateWithAntiAffinityTerms(terms: AffinityTerm[], pod: Pod, nsLabels: Labels | undefined, nodeLabels: Labels, delta: number): void {
    for (const t of terms) if (t.matches(pod, nsLabels)) this.update(nodeLabels, t.topologyKey, delta);
  }

  clone(): TopologyCounts {
    const c = new TopologyCounts();
    for (const [k, v] of this.m) c.m.set(k, v);
    return c;
  }
}
