/**
 * pods/binding: what the scheduler's Bind does to a pod, as upstream BindingREST
 * (pkg/registry/core/pod/storage/storage.go). The API server's binding handler validates
 * the Binding, then applies it to the stored pod in a guaranteed update.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/storage/storage.go
 */
import { type FieldError, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { updatePodCondition } from '../helpers/conditions.js';
import type { Pod } from './types.js';

/** A v1 Binding's relevant part. */
interface BindingLike {
  metadata?: { name?: string; annotations?: Record<string, string> };
  target: { kind?: string; name?: string };
}

/** Upstream ValidatePodBinding: target.kind empty or Node, target.name required. */
export function validatePodBinding(b: BindingLike): FieldError[] {
  const errs: FieldError[] = [];
  const t = Path.root('target');
  if (b.target?.kind && b.target.kind !== 'Node') errs.push(notSupported(t.child('kind'), b.target.kind, ['Node', '<empty>']));
  if (!b.target?.name) errs.push(required(t.child('name'), ''));
  return errs;
}

/**
 * The copy of a stored pod that {@link applyPodBinding} may change: new objects for the
 * pod, its metadata, spec and status and a new conditions array — everything else (the
 * containers, volumes, labels, the other conditions…) is shared with `pod`, which stays
 * unchanged. Member order is kept. Saves the deep copy of the whole pod per binding.
 */
export function copyForBinding(pod: Pod): Pod {
  const out: Pod = { ...pod, metadata: { ...pod.metadata }, spec: { ...pod.spec! } };
  if (pod.status !== undefined) {
    out.status = { ...pod.status };
    if (pod.status.conditions !== undefined) out.status.conditions = [...pod.status.conditions];
  }
  return out;
}

/**
 * Assign the pod to `nodeName` in place: spec.nodeName, the binding's annotations, and
 * PodScheduled=True. Returns upstream's error text when the pod cannot be bound (the handler
 * wraps it as a Conflict on pods/binding: `Operation cannot be fulfilled on pods/binding "<name>": <text>`),
 * or undefined on success.
 *
 * @param now injectable clock for the condition's lastTransitionTime
 */
export function applyPodBinding(pod: Pod, nodeName: string, annotations: Record<string, string> | undefined, now: Date): string | undefined {
  const name = pod.metadata?.name ?? '';
  if (pod.metadata?.deletionTimestamp) return `pod ${name} is being deleted, cannot be assigned to a host`;
  if (pod.spec?.nodeName) return `pod ${name} is already assigned to node ${JSON.stringify(pod.spec.nodeName)}`;
  if (pod.spec?.schedulingGates?.length) return `pod ${name} has non-empty .spec.schedulingGates`;
  pod.spec!.nodeName = nodeName;
  if (annotations && Object.keys(annotations).length) {
    const meta = (pod.metadata ??= {});
    meta.annotations = { ...(meta.annotations ?? {}), ...annotations };
  }
  updatePodCondition((pod.status ??= {}), { type: 'PodScheduled', status: 'True', lastProbeTime: null as unknown as string }, now);
  return undefined;
}
