/**
 * storage.k8s.io/v1 StorageClass (cluster-scoped, short name `sc`): defaults
 * (reclaimPolicy Delete, volumeBindingMode Immediate), validation as upstream
 * ValidateStorageClass / ValidateStorageClassUpdate (provisioner a qualified name,
 * parameters ≤ 512 entries and 256 KiB, provisioner/parameters/reclaimPolicy/
 * volumeBindingMode fixed after create, allowed topologies), printer NAME PROVISIONER
 * RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE with ` (default)` after the
 * default class's name.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/storage/storageclass/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/validation/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/v1/defaults.go
 */
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { duplicate, type FieldError, forbidden, invalid, notSupported, Path, required, tooLong } from '../../../../apimachinery/field-errors.js';
import { jsonEqual, validateImmutableField } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { validateProvisioner, validateTopologySelectorTerm } from '../shared.js';

/** Upstream maxProvisionerParameterLen (entries) and maxProvisionerParameterSize (bytes). */
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

/** The annotations that mark the cluster's default class (upstream storageutil.IsDefaultAnnotation). */
const IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

/** Whether the class carries the default-class annotation set to "true". */
function isDefaultStorageClass(sc: { metadata?: { annotations?: Record<string, string> } }): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a[IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true' || a[BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true';
}

/** Upstream validateParameters (allowEmpty): entry count, empty keys, total size. */
function validateProvisionerParameters(params: Record<string, string> | undefined, path: Path): FieldError[] {
  const entries = Object.entries(params ?? {});
  if (entries.length > MAX_PARAMETERS) return [tooLong(path, '', MAX_PARAMETERS)];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(invalid(path, k, 'field can not be empty.'));
    size += Buffer.byteLength(k) + Buffer.byteLength(v ?? '');
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong(path, '', MAX_PARAMETERS_SIZE));
  return errs;
}

/** Upstream ValidateStorageClass (without ObjectMeta). */
function validateStorageClass(sc: O<StorageClass>): FieldError[] {
  const errs = validateProvisioner(sc.provisioner, Path.root('provisioner'));
  errs.push(...validateProvisionerParameters(sc.parameters, Path.root('parameters')));
  const rp = sc.reclaimPolicy ?? '';
  if (rp.length > 0 && !RECLAIM_POLICIES.includes(rp)) errs.push(notSupported('reclaimPolicy', rp, RECLAIM_POLICIES));
  if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) errs.push(required('volumeBindingMode', ''));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  const seen: Map<string, string[]>[] = [];
  (sc.allowedTopologies ?? []).forEach((term, i) => {
    const p = Path.root('allowedTopologies').index(i);
    const { exprs, errs: termErrs } = validateTopologySelectorTerm(term, p);
    errs.push(...termErrs);
    const key = JSON.stringify([...exprs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (seen.some((m) => JSON.stringify([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) === key)) {
      errs.push(duplicate(p.child('matchLabelExpressions'), ''));
    }
    seen.push(exprs);
  });
  return errs;
}

/** Upstream ValidateStorageClassUpdate (without ObjectMeta). */
function validateStorageClassUpdate(sc: O<StorageClass>, old: O<StorageClass>): FieldError[] {
  const errs: FieldError[] = [];
  if (!jsonEqual(sc.parameters ?? null, old.parameters ?? null)) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== old.provisioner) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if ((sc.reclaimPolicy ?? '') !== (old.reclaimPolicy ?? '')) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  errs.push(...validateImmutableField(sc.volumeBindingMode ?? null, old.volumeBindingMode ?? null, 'volumeBindingMode'));
  return errs;
}

/** storage.k8s.io/v1 storageclasses. */
export const storageClassDefinition: ResourceDefinition<K<StorageClass>> = {
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'StorageClass',
  listKind: 'StorageClassList',
  resource: 'storageclasses',
  singular: 'storageclass',
  namespaced: false,
  shortNames: ['sc'],
  schemaRef: 'storage/v1#StorageClass',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    if (obj.reclaimPolicy === undefined || obj.reclaimPolicy === null) obj.reclaimPolicy = 'Delete';
    if (obj.volumeBindingMode === undefined || obj.volumeBindingMode === null) obj.volumeBindingMode = 'Immediate';
  },
  validate(obj) {
    return validateStorageClass(obj);
  },
  validateUpdate(obj, old) {
    return [...validateStorageClass(obj), ...validateStorageClassUpdate(obj, old)];
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
      column('ReclaimPolicy', 'string', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.'),
      column(
        'VolumeBindingMode',
        'string',
        'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
      ),
      column('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      const name = (obj.metadata.name ?? '') + (isDefaultStorageClass(obj) ? ' (default)' : '');
      return [
        name,
        obj.provisioner ?? '',
        obj.reclaimPolicy ?? 'Delete',
        obj.volumeBindingMode ?? 'Immediate',
        obj.allowVolumeExpansion ?? false,
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};
