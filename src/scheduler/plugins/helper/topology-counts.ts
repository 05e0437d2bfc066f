/**
 * Counters keyed by topology pair (`key`, `value` of a node label), as upstream's
 * `topologyToMatchedTermCount` for InterPodAffinity. Entries dropping to zero are removed.
 * Stored as key → value → count, so lookups hash the label strings the objects already
 * hold instead of building pair strings.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Labels } from '../../../apimachinery/labels.js';
import { podMatchesAllAffinityTerms, type AffinityTerm } from '../../framework/affinity.js';

export class TopologyCounts {
  private readonly m = new Map<string, Map<string, number>>();
  private n = 0;

  /** Number of (key, value) pairs with a non-zero count. */
  get size(): number {
    return this.n;
  }

  get(key: string, value: string): number {
    return this.m.get(key)?.get(value) ?? 0;
  }

  /** The topology keys that have counts. */
  keys(): IterableIterator<string> {
    return this.m.keys();
  }

  /** Adds `delta` to the pair (`tk`, node's value of `tk`) when the node has the label. */
  update(nodeLabels: Labels, tk: string, delta: number): void {
    const tv = nodeLabels[tk];
    if (tv === undefined || delta === 0) return;
    let inner = this.m.get(tk);
    if (!inner) this.m.set(tk, (inner = new Map()));
    const prev = inner.get(tv) ?? 0;
    const n = prev + delta;
    if (n === 0) {
      inner.delete(tv);
      this.n--;
      if (inner.size === 0) this.m.delete(tk);
    } else {
      if (prev === 0) this.n++;
      inner.set(tv, n);
    }
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
    for (const [k, inner] of this.m) c.m.set(k, new Map(inner));
    c.n = this.n;
    return c;
  }
}
