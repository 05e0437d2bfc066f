/**
 * Which StorageClass is the cluster's default: the one the DefaultStorageClass admission
 * plugin gives new claims without a class, and the PV controller gives such claims
 * retroactively once a default exists.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/storageclass.go (GetDefaultClass)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/util/helpers.go (IsDefaultAnnotation)
 */
import type { StorageClass } from 'kubernetes-types/storage/v1.js';

/** The annotation that marks the default class (value `"true"`). */
export const IS_DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
/** Its beta spelling, still honoured. */
export const BETA_IS_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

/** Upstream IsDefaultAnnotation: either annotation is exactly `"true"`. */
export function isDefaultClass(c: StorageClass): boolean {
  const a = c.metadata?.annotations ?? {};
  return a[IS_DEFAULT_CLASS_ANNOTATION] === 'true' || a[BETA_IS_DEFAULT_CLASS_ANNOTATION] === 'true';
}

/**
 * Upstream GetDefaultClass: of the classes marked default, the newest (creationTimestamp),
 * then the smallest name; undefined when none is marked.
 */
export function getDefaultClass(classes: readonly StorageClass[]): StorageClass | undefined {
  const defaults = classes.filter(isDefaultClass);
  defaults.sort((x, y) => {
    const tx = x.metadata?.creationTimestamp ?? '';
    const ty = y.metadata?.creationTimestamp ?? '';
    if (tx !== ty) return tx > ty ? -1 : 1;
    return (x.metadata?.name ?? '') < (y.metadata?.name ?? '') ? -1 : 1;
  });
  return defaults[0];
}
