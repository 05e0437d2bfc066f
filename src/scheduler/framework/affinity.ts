/**
 * Inter-pod affinity terms compiled once per pod: the label selector, the namespaces
 * the term applies to (the pod's own namespace when neither `namespaces` nor
 * `namespaceSelector` is set) and the namespace selector (`null` stands for upstream's
 * `labels.Nothing()`, i.e. no namespaceSelector given).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/types.go (AffinityTerm, NewPodInfo)
 */
import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
import { labelSelectorAsSelector, type Labels, type Selector } from '../../apimachinery/labels.js';

/** A parsed PodAffinityTerm. */
export class AffinityTerm {
  private keyCache: string | undefined;

  constructor(
    /** namespaces the term applies to */
    public namespaces: Set<string>,
    readonly selector: Selector,
    readonly topologyKey: string,
    /** null when the term has no namespaceSelector (matches no namespace by labels) */
    public namespaceSelector: Selector | null,
  ) {}

  /** A string identifying which pods the term selects (namespaces and selectors; not the topology key). */
  key(): string {
    if (this.keyCache === undefined) {
      const sel = (s: Selector | null) => (s === null ? '-' : s.requirements === undefined ? '!' : `=${s.toString()}`);
      this.keyCache = `${[...this.namespaces].sort().join(',')}\x01${sel(this.namespaceSelector)}\x01${sel(this.selector)}`;
    }
    return this.keyCache;
  }

  /**
   * Whether `pod` (whose namespace carries `nsLabels`) is selected by the term: its
   * namespace is listed or selected, and its labels match (upstream AffinityTerm.Matches).
   */
  matches(pod: Pod, nsLabels: Labels | undefined): boolean {
    const ns = pod.metadata?.namespace ?? '';
    if (this.namespaces.has(ns) || (this.namespaceSelector !== null && this.namespaceSelector.matches(nsLabels ?? EMPTY_LABELS))) {
      return this.selector.matches(pod.metadata?.labels);
    }
    return false;
  }
}

/** A preferred term with its weight (1–100). */
export interface WeightedAffinityTerm {
  term: AffinityTerm;
  weight: number;
}

/**
 * Compiles one PodAffinityTerm of `pod`.
 *
 * @throws StatusError (BadRequest) when a selector is invalid
 */
export function newAffinityTerm(pod: Pod, t: PodAffinityTerm): AffinityTerm {
  const selector = labelSelectorAsSelector(t.labelSelector);
  const namespaces = new Set<string>();
  if ((t.namespaces ?? []).length === 0 && !t.namespaceSelector) namespaces.add(pod.metadata?.namespace ?? '');
  else for (const n of t.namespaces ?? []) namespaces.add(n);
  const nsSel = t.namespaceSelector ? labelSelectorAsSelector(t.namespaceSelector) : null;
  return new AffinityTerm(namespaces, selector, t.topologyKey, nsSel);
}

/** Compiles required terms. @throws StatusError on an invalid selector */
export function affinityTerms(pod: Pod, terms: PodAffinityTerm[] | undefined): AffinityTerm[] {
  if (!terms || terms.length === 0) return NO_TERMS;
  return terms.map((t) => newAffinityTerm(pod, t));
}

/** Compiles preferred terms (weight 0 terms are dropped, as upstream). @throws StatusError on an invalid selector */
export function weightedAffinityTerms(pod: Pod, terms: WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] {
  if (!terms || terms.length === 0) return NO_WEIGHTED;
  const out: WeightedAffinityTerm[] = [];
  for (const t of terms) {
    if (t.weight === 0) continue;
    out.push({ term: newAffinityTerm(pod, t.podAffinityTerm), weight: t.weight });
  }
  return out;
}

/** Whether the pod matches every term (false for no terms), upstream podMatchesAllAffinityTerms. */
export function podMatchesAllAffinityTerms(terms: AffinityTerm[], pod: Pod): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!t.matches(pod, undefined)) return false;
  return true;
}

const EMPTY_LABELS: Labels = {};
export const NO_TERMS: AffinityTerm[] = [];
export const NO_WEIGHTED: WeightedAffinityTerm[] = [];
