/**
 * Node selector and node affinity matching, compiled once per pod: `nodeSelector`
 * (all labels equal), required NodeSelectorTerms (ORed; expressions within a term
 * ANDed; `matchFields` on `metadata.name`), and preferred terms (sum of the weights
 * of matching terms). A term that fails to parse (e.g. `Gt` with a non-integer) never
 * matches, as upstream ignores parse errors in the scheduler.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
 */
import type { Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm } from 'kubernetes-types/core/v1.js';

type Matcher = (labels: Record<string, string>, name: string) => boolean;

const INT_RE = /^[+-]?\d+$/;

function compileRequirement(r: NodeSelectorRequirement): Matcher | null {
  const key = r.key;
  const vals = r.values ?? [];
  switch (r.operator) {
    case 'In': {
      if (vals.length === 0) return null;
      const set = new Set(vals);
      return (l) => Object.hasOwn(l, key) && set.has(l[key]!);
    }
    case 'NotIn': {
      if (vals.length === 0) return null;
      const set = new Set(vals);
      return (l) => !Object.hasOwn(l, key) || !set.has(l[key]!);
    }
    case 'Exists':
      if (vals.length) return null;
      return (l) => Object.hasOwn(l, key);
    case 'DoesNotExist':
      if (vals.length) return null;
      return (l) => !Object.hasOwn(l, key);
    case 'Gt':
    case 'Lt': {
      if (vals.length !== 1 || !INT_RE.test(vals[0]!)) return null;
      const bound = Number(vals[0]);
      const gt = r.operator === 'Gt';
      return (l) => {
        const v = l[key];
        if (v === undefined || !INT_RE.test(v)) return false;
        const n = Number(v);
        return gt ? n > bound : n < bound;
      };
    }
    default:
      return null;
  }
}

function compileField(r: NodeSelectorRequirement): Matcher | null {
  if (r.key !== 'metadata.name') return null;
  const vals = r.values ?? [];
  if (vals.length !== 1) return null;
  const v = vals[0]!;
  if (r.operator === 'In') return (_l, name) => name === v;
  if (r.operator === 'NotIn') return (_l, name) => name !== v;
  return null;
}

/** A term's matcher, or null when the term is empty or invalid (it matches nothing). */
function compileTerm(t: NodeSelectorTerm): Matcher | null {
  const exprs = t.matchExpressions ?? [];
  const fields = t.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return null;
  const ms: Matcher[] = [];
  for (const e of exprs) {
    const m = compileRequirement(e);
    if (!m) return null;
    ms.push(m);
  }
  for (const f of fields) {
    const m = compileField(f);
    if (!m) return null;
    ms.push(m);
  }
  return (l, n) => {
    for (const m of ms) if (!m(l, n)) return false;
    return true;
  };
}

/** A compiled NodeSelector: matches when any term matches. */
export class CompiledNodeSelector {
  private readonly terms: Matcher[];

  constructor(ns: NodeSelector) {
    this.terms = [];
    for (const t of ns.nodeSelectorTerms ?? []) {
      const m = compileTerm(t);
      if (m) this.terms.push(m);
    }
  }

  match(node: Node): boolean {
    const l = node.metadata?.labels ?? {};
    const n = node.metadata?.name ?? '';
    for (const t of this.terms) if (t(l, n)) return true;
    return false;
  }
}

/** The pod's hard node constraints: spec.nodeSelector AND required node affinity. */
export class RequiredNodeAffinity {
  private readonly selector: [string, string][] | null;
  private readonly affinity: CompiledNodeSelector | null;

  constructor(pod: Pod) {
    const ns = pod.spec?.nodeSelector;
    this.selector = ns && Object.keys(ns).length ? Object.entries(ns) : null;
    const req = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    this.affinity = req ? new CompiledNodeSelector(req) : null;
  }

  /** Whether the pod has neither a nodeSelector nor required node affinity (every node matches). */
  isEmpty(): boolean {
    return this.selector === null && this.affinity === null;
  }

  match(node: Node): boolean {
    if (this.selector) {
      const l = node.metadata?.labels;
      if (!l) return false;
      for (const [k, v] of this.selector) if (l[k] !== v) return false;
    }
    return this.affinity ? this.affinity.match(node) : true;
  }
}

/** Preferred terms with weights; score = sum of the weights of matching terms. */
export class PreferredSchedulingTerms {
  private readonly terms: { weight: number; m: Matcher }[] = [];

  constructor(terms: PreferredSchedulingTerm[]) {
    for (const t of terms) {
      if (!t.weight) continue;
      const m = compileTerm(t.preference);
      if (m) this.terms.push({ weight: t.weight, m });
    }
  }

  get length(): number {
    return this.terms.length;
  }

  score(node: Node): number {
    const l = node.metadata?.labels ?? {};
    const n = node.metadata?.name ?? '';
    let s = 0;
    for (const t of this.terms) if (t.m(l, n)) s += t.weight;
    return s;
  }
}
