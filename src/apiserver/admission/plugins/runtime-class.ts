/**
 * RuntimeClass admission (pods, CREATE only): resolves spec.runtimeClassName, rejecting
 * an unknown class; copies the class's overhead.podFixed into spec.overhead (a different
 * overhead already on the pod is rejected), merges the class's scheduling nodeSelector
 * (a conflicting pod value is rejected) and tolerations; in the validating phase rejects a
 * pod overhead that does not match the class's.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/runtimeclass/admission.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/util/tolerations/tolerations.go (MergeTolerations)
 */
import type { PodSpec, Toleration } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { newBadRequest, newForbidden } from '../../../apimachinery/errors.js';
import { jsonEqual } from '../../../apimachinery/validation.js';
import { quantityEquals, tryParseQuantity } from '../../../apimachinery/quantity.js';
import type { ObjectLookup } from '../../../api/resource.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';

const RC = { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses' };

function forbidden(a: AdmissionAttributes, msg: string) {
  return newForbidden({ group: a.resource.group, resource: a.resource.resource }, a.name || (a.object?.metadata?.name ?? ''), msg);
}

function applies(a: AdmissionAttributes): boolean {
  return a.operation === 'CREATE' && !a.subresource && a.resource.group === '' && a.resource.resource === 'pods';
}

/** The pod's spec and its RuntimeClass (undefined when the pod names none). */
async function prepare(a: AdmissionAttributes, lookup: ObjectLookup): Promise<{ spec: PodSpec; rc?: RuntimeClass }> {
  const spec = a.object?.spec as PodSpec | undefined;
  if (!spec) throw newBadRequest('Resource was marked with kind Pod but was unable to be converted');
  const name = spec.runtimeClassName;
  if (name === undefined || name === null) return { spec };
  const rc = (await lookup.get(RC, '', name)) as RuntimeClass | undefined;
  if (!rc) throw forbidden(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
  return { spec, rc };
}

/** Semantic equality of two resource lists (quantities compared by value). */
function sameResources(a: Record<string, string | number>, b: Record<string, string | number>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!(k in b)) return false;
    const qa = tryParseQuantity(String(a[k]));
    const qb = tryParseQuantity(String(b[k]));
    if (!qa || !qb ? String(a[k]) !== String(b[k]) : !quantityEquals(qa, qb)) return false;
  }
  return true;
}

/** Upstream isSuperset: does toleration `ss` tolerate everything `t` does? */
function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (jsonEqual(ss, t)) return true;
  if ((t.key ?? '') !== (ss.key ?? '') && (ss.key ?? '') !== '') return false;
  if ((ss.effect ?? '') !== '' && ss.effect !== t.effect) return false;
  if (ss.effect === 'NoExecute' && ss.tolerationSeconds !== undefined && ss.tolerationSeconds !== null) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ss.operator ?? '') {
    case 'Equal':
    case '':
      return (t.operator ?? 'Equal') === 'Equal' && (t.value ?? '') === (ss.value ?? '') && (t.key ?? '') === (ss.key ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Upstream tolerations.MergeTolerations: both lists, redundant entries dropped. */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((t2) => !jsonEqual(t, t2) && isSuperset(t2, t))) return;
    merged.push(t);
  });
  return merged;
}

export const runtimeClass: AdmissionPlugin = {
  name: 'RuntimeClass',

  async admit(a, lookup) {
    if (!applies(a)) return;
    const { spec, rc } = await prepare(a, lookup);
    if (!rc) return;
    const fixed = rc.overhead?.podFixed as Record<string, string | number> | undefined;
    if (fixed) {
      const cur = spec.overhead as Record<string, string | number> | undefined;
      if (cur && Object.keys(cur).length > 0 && !sameResources(fixed, cur)) throw forbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      (spec as { overhead?: unknown }).overhead = { ...fixed };
    }
    const sched = rc.scheduling;
    if (sched) {
      const classSelector = sched.nodeSelector ?? {};
      let selector = spec.nodeSelector as Record<string, string> | undefined;
      if (!selector) selector = sched.nodeSelector ? { ...classSelector } : undefined;
      else {
        for (const [k, v] of Object.entries(classSelector)) {
          const podValue = selector[k];
          if (podValue !== undefined && podValue !== v)
            throw forbidden(a, `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${podValue}`);
          selector[k] = v;
        }
      }
      const s = spec as { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
      if (selector) s.nodeSelector = selector;
      const tolerations = mergeTolerations(spec.tolerations ?? [], sched.tolerations ?? []);
      if (tolerations.length > 0 || spec.tolerations) s.tolerations = tolerations;
    }
  },

  async validate(a, lookup) {
    if (!applies(a)) return;
    const { spec, rc } = await prepare(a, lookup);
    const cur = spec.overhead as Record<string, string | number> | undefined;
    if (!cur || Object.keys(cur).length === 0) return;
    const fixed = rc?.overhead?.podFixed as Record<string, string | number> | undefined;
    if (!fixed) throw forbidden(a, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    if (!sameResources(fixed, cur)) throw forbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
  },
};
