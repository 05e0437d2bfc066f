/**
 * Node validation as upstream ValidateNode / ValidateNodeUpdate (ObjectMeta is validated
 * by the store). Note upstream reports spec taints under `metadata.taints[i]`; kept.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 */
import type { Node, Taint } from 'kubernetes-types/core/v1.js';
import { type FieldError, duplicate, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { isValidCIDR, isValidLabelValue, validateLabelName } from '../../../../apimachinery/validation.js';
import { quantityOf } from '../shared/decode.js';
import { validateResourceQuantityValue } from '../shared/validation.js';
import type { O } from '../shared/types.js';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Upstream validateTaintEffect (allowEmpty = false). */
function validateTaintEffect(effect: string | undefined, allowEmpty: boolean, path: Path): FieldError[] {
  if (!allowEmpty && !effect) return [required(path, '')];
  if (effect && !TAINT_EFFECTS.includes(effect)) return [notSupported(path, effect, TAINT_EFFECTS)];
  return [];
}

/** Upstream validateNodeTaints: key, value, effect, unique by (key, effect). */
function validateNodeTaints(taints: Taint[], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  taints.forEach((t, i) => {
    const p = path.index(i);
    errs.push(...validateLabelName(t.key ?? '', p.child('key')));
    const vErrs = isValidLabelValue(t.value ?? '');
    if (vErrs.length > 0) errs.push(invalid(p.child('value'), t.value ?? '', vErrs.join(';')));
    errs.push(...validateTaintEffect(t.effect, false, p.child('effect')));
    const keys = seen.get(t.effect ?? '') ?? new Set<string>();
    if (keys.has(t.key ?? '')) {
      errs.push({ ...duplicate(p, t), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    keys.add(t.key ?? '');
    seen.set(t.effect ?? '', keys);
  });
  return errs;
}

/** Upstream ValidateNodeResources: capacity and allocatable quantities. */
function validateNodeResources(node: O<Node>): FieldError[] {
  const errs: FieldError[] = [];
  for (const which of ['capacity', 'allocatable'] as const) {
    for (const [k, v] of Object.entries(node.status?.[which] ?? {})) {
      const q = quantityOf(v);
      if (q) errs.push(...validateResourceQuantityValue(k, q, Path.root('status').child(which, k)));
    }
  }
  return errs;
}

function family(cidr: string): 4 | 6 {
  return cidr.includes(':') ? 6 : 4;
}

/** Upstream ValidateNode (spec + status quantities; status is otherwise free-form). */
export function validateNode(node: O<Node>): FieldError[] {
  const errs: FieldError[] = [];
  const taints = node.spec?.taints ?? [];
  if (taints.length > 0) errs.push(...validateNodeTaints(taints, Path.root('metadata').child('taints')));
  errs.push(...validateNodeResources(node));
  const cidrs = node.spec?.podCIDRs ?? [];
  if (cidrs.length > 0) {
    const p = Path.root('spec').child('podCIDRs');
    let anyInvalid = false;
    cidrs.forEach((c, i) => {
      const m = isValidCIDR(c);
      if (m.length > 0) anyInvalid = true;
      for (const msg of m) errs.push(invalid(p.index(i), c, msg));
    });
    if (cidrs.length > 1) {
      if (anyInvalid) {
        errs.push({
          type: 'InternalError',
          field: p.toString(),
          badValue: '',
          detail: 'invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR',
        });
      }
      const dual = cidrs.length === 2 && family(cidrs[0]!) !== family(cidrs[1]!);
      if (!dual || cidrs.length > 2) errs.push(invalid(p, cidrs, 'may specify no more than one CIDR for each IP family'));
      const seen = new Set<string>();
      cidrs.forEach((c, i) => {
        if (seen.has(c)) errs.push(duplicate(p.index(i), c));
        seen.add(c);
      });
    }
  }
  return errs;
}

const POD_CIDR_MSG = 'node updates may not change podCIDR except from "" to valid';

/** Upstream ValidateNodeUpdate (also used for nodes/status). */
export function validateNodeUpdate(node: O<Node>, old: O<Node>): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateNodeResources(node));
  const seen = new Set<string>();
  (node.status?.addresses ?? []).forEach((a, i) => {
    const key = `${a.type}\u0000${a.address}`;
    if (seen.has(key)) errs.push(duplicate(Path.root('status').child('addresses').index(i), a));
    seen.add(key);
  });
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  const newCIDRs = node.spec?.podCIDRs ?? [];
  if (oldCIDRs.length > 0) {
    if (oldCIDRs.length !== newCIDRs.length) errs.push(forbidden('spec.podCIDRs', POD_CIDR_MSG));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(forbidden('spec.podCIDRs', POD_CIDR_MSG)));
  }
  const oldProvider = old.spec?.providerID ?? '';
  if (oldProvider && oldProvider !== (node.spec?.providerID ?? '')) {
    errs.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  const taints = node.spec?.taints ?? [];
  if (taints.length > 0) errs.push(...validateNodeTaints(taints, Path.root('metadata').child('taints')));
  if ((node.spec?.externalID ?? '') !== (old.spec?.externalID ?? '')) errs.push(forbidden('spec.externalID', 'may not be updated'));
  return errs;
}
