/**
 * Taint/toleration matching.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/api/core/v1/toleration.go (ToleratesTaint)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go
 */
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';

/**
 * Whether the toleration tolerates the taint: same effect (or any when empty), same
 * key (or any with an empty key and Exists), and Exists or an equal value.
 */
export function toleratesTaint(tol: Toleration, taint: Taint): boolean {
  if (tol.effect && tol.effect !== taint.effect) return false;
  if (tol.key && tol.key !== taint.key) return false;
  switch (tol.operator ?? '') {
    case 'Exists':
      return true;
    case '':
    case 'Equal':
      return (tol.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tols: Toleration[] | undefined, taint: Taint): boolean {
  if (!tols) return false;
  for (const t of tols) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** The first taint passing `filter` that no toleration tolerates, or undefined. */
export function findMatchingUntoleratedTaint(taints: Taint[] | undefined, tols: Toleration[] | undefined, filter: (t: Taint) => boolean): Taint | undefined {
  if (!taints) return undefined;
  for (const t of taints) {
    if (!filter(t)) continue;
    if (!tolerationsTolerateTaint(tols, t)) return t;
  }
  return undefined;
}

/** NoSchedule and NoExecute taints (the ones Filter enforces). */
export const doNotScheduleTaintsFilter = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';
