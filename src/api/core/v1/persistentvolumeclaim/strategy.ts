/**
 * core/v1 PersistentVolumeClaim: defaults (phase Pending, volumeMode Filesystem),
 * dataSource/dataSourceRef back-compat, quantity decoding, validation of the spec, the
 * update rules (immutable except storage requests and the one-time volumeName binding),
 * the status strategy, printer NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS
 * VOLUMEATTRIBUTESCLASS AGE (+ wide VOLUMEMODE), short name `pvc`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/persistentvolumeclaim/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidatePersistentVolumeClaim*)
 */
import type { PersistentVolumeClaim, PersistentVolumeClaimStatus, TypedLocalObjectReference } from 'kubernetes-types/core/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { compareQuantity, value as quantityValue } from '../../../../apimachinery/quantity.js';
import { isDNS1123Subdomain, jsonEqual, nameIsDNSSubdomain, validateImmutableField, validateLabelSelector } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition, StatusStrategy } from '../../../resource.js';
import { canonicalizeQuantityMap, checkQuantityMap, quantityOf } from '../shared/decode.js';
import { accessModesString, AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import { clone, type K, type O } from '../shared/types.js';
import { ClaimResourceStatus } from './resize.js';
import { validatePositiveQuantityValue, validateResourceQuantityValue } from '../shared/validation.js';

/** Supported access modes, in upstream's (sorted) listing order. */
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];
/** The beta annotation that predates spec.storageClassName. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** accessModes required, supported, ReadWriteOncePod alone (shared with PersistentVolume). */
export function validateAccessModes(modes: string[] | undefined, p: Path, requiredMsg: string): FieldError[] {
  const errs: FieldError[] = [];
  const m = modes ?? [];
  if (m.length === 0) errs.push(required(p, requiredMsg));
  let rwop = false;
  let other = false;
  for (const mode of m) {
    if (!ACCESS_MODES.includes(mode)) errs.push(notSupported(p, mode, ACCESS_MODES));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (ACCESS_MODES.includes(mode)) other = true;
  }
  if (rwop && other) errs.push(forbidden(p, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

function validateDataSource(ds: TypedLocalObjectReference & { namespace?: string }, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!ds.name) errs.push(required(p.child('name'), ''));
  if (!ds.kind) errs.push(required(p.child('kind'), ''));
  const group = ds.apiGroup ?? '';
  if (!group && ds.kind !== 'PersistentVolumeClaim') errs.push(invalid(p, ds.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  if (group) for (const m of isDNS1123Subdomain(group)) errs.push(invalid(p.child('apiGroup'), group, m));
  return errs;
}

/** Upstream ValidatePersistentVolumeClaimSpec. */
function validatePVCSpec(pvc: O<PersistentVolumeClaim>): FieldError[] {
  const s = pvc.spec ?? {};
  const p = Path.root('spec');
  const errs = validateAccessModes(s.accessModes, p.child('accessModes'), 'at least 1 access mode is required');
  if (s.selector) errs.push(...validateLabelSelector(s.selector, p.child('selector')));
  const sp = p.child('resources').key('storage');
  const storage = s.resources?.requests?.storage;
  if (storage === undefined) errs.push(required(sp, ''));
  else {
    const q = quantityOf(storage);
    if (q) {
      const pos = validatePositiveQuantityValue(q, sp);
      errs.push(...(pos.length > 0 ? pos : validateResourceQuantityValue('storage', q, sp)));
    }
  }
  if (s.storageClassName) for (const m of nameIsDNSSubdomain(s.storageClassName, false)) errs.push(invalid(p.child('storageClassName'), s.storageClassName, m));
  if (s.volumeMode !== undefined && !VOLUME_MODES.includes(s.volumeMode)) errs.push(notSupported(p.child('volumeMode'), s.volumeMode, VOLUME_MODES));
  if (s.dataSource) errs.push(...validateDataSource(s.dataSource, p.child('dataSource')));
  if (s.dataSourceRef) errs.push(...validateDataSource(s.dataSourceRef, p.child('dataSourceRef')));
  if (s.dataSourceRef?.namespace) {
    if (s.dataSource) errs.push(invalid(p, 'spec.dataSource', 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (s.dataSource && s.dataSourceRef) {
    const a = s.dataSource;
    const b = s.dataSourceRef;
    if ((a.apiGroup ?? null) !== (b.apiGroup ?? null) || a.kind !== b.kind || a.name !== b.name) errs.push(invalid(p, 'spec.dataSource', 'must match dataSourceRef'));
  }
  if (s.volumeAttributesClassName) {
    for (const m of nameIsDNSSubdomain(s.volumeAttributesClassName, false)) errs.push(invalid(p.child('volumeAttributesClassName'), s.volumeAttributesClassName, m));
  }
  return errs;
}

const SPEC_IMMUTABLE = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

/**
 * Upstream ValidatePersistentVolumeClaimUpdate (RecoverVolumeExpansionFailure on, as in
 * v1.32). The "spec is immutable" message omits upstream's trailing Go cmp.Diff.
 */
function validatePVCUpdate(pvc: O<PersistentVolumeClaim>, old: O<PersistentVolumeClaim>): FieldError[] {
  const errs = validatePVCSpec(pvc);
  const newSpec = clone(pvc.spec ?? {});
  const oldSpec = clone(old.spec ?? {});
  if (!oldSpec.volumeName) {
    if (newSpec.volumeName === undefined) delete oldSpec.volumeName;
    else oldSpec.volumeName = newSpec.volumeName;
  }
  const oldAnn = old.metadata.annotations ?? {};
  const newAnn = pvc.metadata.annotations ?? {};
  const oldAnnSC = oldAnn[BETA_STORAGE_CLASS_ANNOTATION];
  if (
    oldAnnSC !== undefined &&
    oldSpec.storageClassName === undefined &&
    newSpec.storageClassName === oldAnnSC &&
    (newAnn[BETA_STORAGE_CLASS_ANNOTATION] === undefined || newAnn[BETA_STORAGE_CLASS_ANNOTATION] === oldAnnSC)
  ) {
    delete newSpec.storageClassName;
  } else {
    errs.push(...validateImmutableField(newAnn[BETA_STORAGE_CLASS_ANNOTATION] ?? '', oldAnnSC ?? '', `metadata.annotations.${BETA_STORAGE_CLASS_ANNOTATION}`));
    if (newSpec.storageClassName !== undefined && oldSpec.storageClassName === undefined && (oldAnnSC === undefined || newSpec.storageClassName === oldAnnSC)) {
      delete newSpec.storageClassName;
    }
  }
  const bound = pvc.status?.phase === 'Bound';
  if (bound && newSpec.resources?.requests) {
    newSpec.resources.requests = { ...newSpec.resources.requests };
    if (oldSpec.resources?.requests?.storage !== undefined) newSpec.resources.requests.storage = oldSpec.resources.requests.storage;
    else delete newSpec.resources.requests.storage;
  }
  if (bound && newSpec.volumeAttributesClassName !== undefined) {
    if (oldSpec.volumeAttributesClassName === undefined) delete newSpec.volumeAttributesClassName;
    else newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  }
  if (!jsonEqual(newSpec, oldSpec)) errs.push(forbidden('spec', SPEC_IMMUTABLE));
  const oldSize = quantityOf(old.spec?.resources?.requests?.storage);
  const newSize = quantityOf(pvc.spec?.resources?.requests?.storage);
  const statusSize = quantityOf(old.status?.capacity?.storage);
  if (oldSize && newSize && compareQuantity(newSize, oldSize) < 0) {
    if (!statusSize || compareQuantity(newSize, statusSize) <= 0) {
      errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
    }
  }
  errs.push(...validateImmutableField(pvc.spec?.volumeMode ?? null, old.spec?.volumeMode ?? null, 'volumeMode'));
  return errs;
}

function decode(pvc: O<PersistentVolumeClaim>): void {
  checkQuantityMap('PersistentVolumeClaim', 'v1', pvc.spec?.resources?.requests);
  checkQuantityMap('PersistentVolumeClaim', 'v1', pvc.spec?.resources?.limits);
  checkQuantityMap('PersistentVolumeClaim', 'v1', pvc.status?.capacity);
  checkQuantityMap('PersistentVolumeClaim', 'v1', pvc.status?.allocatedResources);
}

/** Upstream EnforceDataSourceBackwardsCompatibility: dataSource and dataSourceRef mirror each other. */
function dataSourceCompat(pvc: O<PersistentVolumeClaim>): void {
  const s = pvc.spec;
  if (!s) return;
  if (s.dataSource && !s.dataSourceRef) s.dataSourceRef = { ...s.dataSource };
  else if (s.dataSourceRef && !s.dataSource && !s.dataSourceRef.namespace) {
    const { namespace: _ns, ...ref } = s.dataSourceRef;
    if (ref.apiGroup || ref.kind === 'PersistentVolumeClaim' || ref.kind === 'VolumeSnapshot') s.dataSource = ref;
  }
}

/** The StorageClass a claim asks for: the beta annotation wins over spec.storageClassName (upstream GetPersistentVolumeClaimClass). */
function claimClass(pvc: O<PersistentVolumeClaim>): string {
  return pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] ?? pvc.spec?.storageClassName ?? '';
}

/** The values of status.allocatedResourceStatuses (ClaimResourceStatus), sorted as upstream lists them. */
const RESIZE_STATUSES: string[] = Object.values(ClaimResourceStatus).sort();

/** persistentvolumeclaims/status: keeps the old spec. */
export const pvcStatusStrategy: StatusStrategy<K<PersistentVolumeClaim>> = {
  prepareForUpdate(obj, old) {
    decode(obj);
    obj.spec = clone(old.spec);
  },
  validateUpdate(obj) {
    const errs: FieldError[] = [];
    if ((obj.spec?.accessModes?.length ?? 0) === 0) errs.push(required('Spec.accessModes', ''));
    for (const [r, v] of Object.entries(obj.status?.capacity ?? {})) {
      const q = quantityOf(v);
      if (q && quantityValue(q) < 0) errs.push(invalid(Path.root('status').child('capacity').key(r), quantityValue(q), 'must be a valid resource quantity'));
    }
    // RecoverVolumeExpansionFailure (on in v1.32): the expansion's bookkeeping
    const statusPath = Path.root('status').child('allocatedResourceStatus');
    for (const [r, v] of Object.entries(obj.status?.allocatedResourceStatuses ?? {})) {
      if (!RESIZE_STATUSES.includes(v)) errs.push(notSupported(statusPath.key(r), v, RESIZE_STATUSES));
    }
    for (const [r, v] of Object.entries(obj.status?.allocatedResources ?? {})) {
      const q = quantityOf(v);
      if (q && quantityValue(q) < 0) errs.push(invalid(Path.root('status').child('allocatedResources').key(r), quantityValue(q), 'must be a valid resource quantity'));
    }
    return errs;
  },
};

/** core/v1 persistentvolumeclaims (short name `pvc`). */
export const persistentVolumeClaimDefinition: ResourceDefinition<K<PersistentVolumeClaim>> = {
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  listKind: 'PersistentVolumeClaimList',
  resource: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  namespaced: true,
  shortNames: ['pvc'],
  schemaRef: 'core/v1#PersistentVolumeClaim',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    if (!obj.status?.phase) (obj as { status?: PersistentVolumeClaimStatus }).status = { ...(obj.status ?? {}), phase: 'Pending' };
    const s = (obj.spec ??= {});
    if (s.volumeMode === undefined) s.volumeMode = 'Filesystem';
  },
  prepareForCreate(obj) {
    decode(obj);
    (obj as { status?: PersistentVolumeClaimStatus }).status = { phase: 'Pending' };
    dataSourceCompat(obj);
  },
  prepareForUpdate(obj, old) {
    decode(obj);
    (obj as { status?: PersistentVolumeClaimStatus }).status = clone(old.status);
    dataSourceCompat(obj);
  },
  validate(obj) {
    return validatePVCSpec(obj);
  },
  validateUpdate(obj, old) {
    return validatePVCUpdate(obj, old);
  },
  canonicalize(obj) {
    canonicalizeQuantityMap(obj.spec?.resources?.requests);
    canonicalizeQuantityMap(obj.spec?.resources?.limits);
    canonicalizeQuantityMap(obj.status?.capacity);
    canonicalizeQuantityMap(obj.status?.allocatedResources);
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
      column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
      column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
      column('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has.'),
      column('StorageClass', 'string', 'StorageClass of the pvc'),
      column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
      AGE_COLUMN,
      column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', 1),
    ],
    cells(obj, now) {
      const phase = obj.metadata.deletionTimestamp ? 'Terminating' : (obj.status?.phase ?? '');
      let capacity = '';
      let modes = '';
      if (obj.spec?.volumeName) {
        modes = accessModesString(obj.status?.accessModes);
        capacity = obj.status?.capacity?.storage !== undefined ? String(obj.status.capacity.storage) : '0';
      }
      return [
        obj.metadata.name ?? '',
        phase,
        obj.spec?.volumeName ?? '',
        capacity,
        modes,
        claimClass(obj),
        obj.spec?.volumeAttributesClassName ?? '<unset>',
        translateTimestampSince(obj.metadata.creationTimestamp, now),
        obj.spec?.volumeMode ?? '<unset>',
      ];
    },
  },
  status: pvcStatusStrategy,
};
