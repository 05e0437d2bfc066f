/**
 * core/v1 PersistentVolume: defaults (phase Pending, reclaim policy Retain, volumeMode
 * Filesystem), lastPhaseTransitionTime on create and phase changes, quantity decoding,
 * validation of the spec (access modes, capacity, exactly one volume source, the common
 * sources checked), the update rules, the status strategy, printer NAME CAPACITY ACCESS
 * MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE
 * (+ wide VOLUMEMODE), short name `pv`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/persistentvolume/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidatePersistentVolume*)
 */
import type { PersistentVolume, PersistentVolumeSpec, PersistentVolumeStatus } from 'kubernetes-types/core/v1.js';
import { type FieldError, forbidden, GoSyntax, invalid, notSupported, Path, required, tooLong } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Subdomain, jsonEqual, nameIsDNSSubdomain, validateImmutableField } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition, StatusStrategy, StrategyContext } from '../../../resource.js';
import { HOST_PATH_TYPES } from '../pod/validation-volumes.js';
import { BETA_STORAGE_CLASS_ANNOTATION, validateAccessModes, VOLUME_MODES } from '../persistentvolumeclaim/strategy.js';
import { canonicalizeQuantityMap, checkQuantityMap, quantityOf } from '../shared/decode.js';
import { accessModesString, AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import { clone, type K, type O } from '../shared/types.js';
import { validatePositiveQuantityValue } from '../shared/validation.js';

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

/** The persistent volume source fields of a PersistentVolumeSpec, in upstream's checking order. */
const VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
] as const;

/**
 * The defaulters of the persistent volume sources (upstream SetDefaults_HostPathVolumeSource,
 * _ISCSIPersistentVolumeSource, _RBDPersistentVolumeSource, _AzureDiskVolumeSource,
 * _ScaleIOPersistentVolumeSource): e.g. a hostPath's `type` becomes `""`.
 */
function defaultPVSource(s: PersistentVolumeSpec): void {
  if (s.hostPath && (s.hostPath.type === undefined || s.hostPath.type === null)) s.hostPath.type = '';
  if (s.iscsi && !s.iscsi.iscsiInterface) s.iscsi.iscsiInterface = 'default';
  if (s.rbd) {
    if (!s.rbd.pool) s.rbd.pool = 'rbd';
    if (!s.rbd.user) s.rbd.user = 'admin';
    if (!s.rbd.keyring) s.rbd.keyring = '/etc/ceph/keyring';
  }
  if (s.azureDisk) {
    s.azureDisk.cachingMode ??= 'ReadWrite';
    s.azureDisk.fsType ??= 'ext4';
    s.azureDisk.readOnly ??= false;
    s.azureDisk.kind ??= 'Shared';
  }
  if (s.scaleIO) {
    if (!s.scaleIO.storageMode) s.scaleIO.storageMode = 'ThinProvisioned';
    if (!s.scaleIO.fsType) s.scaleIO.fsType = 'xfs';
  }
}

const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `must not contain '..'` for any `..` path element (upstream validatePathNoBacksteps). */
function validatePathNoBacksteps(path: string, p: Path): FieldError[] {
  return path.split(/[\\/]/).includes('..') ? [invalid(p, path, "must not contain '..'")] : [];
}

function validateSource(name: string, src: Record<string, unknown>, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const str = (k: string): string => (typeof src[k] === 'string' ? (src[k] as string) : '');
  switch (name) {
    case 'hostPath': {
      if (!str('path')) return [required(p.child('path'), '')];
      errs.push(...validatePathNoBacksteps(str('path'), p.child('path')));
      const t = src.type;
      if (t !== undefined && t !== null && !HOST_PATH_TYPES.includes(t as string)) errs.push(notSupported(p.child('type'), t, HOST_PATH_TYPES));
      break;
    }
    case 'local':
      if (!str('path')) errs.push(required(p.child('path'), ''));
      errs.push(...validatePathNoBacksteps(str('path'), p.child('path')));
      break;
    case 'nfs':
      if (!str('server')) errs.push(required(p.child('server'), ''));
      if (!str('path')) errs.push(required(p.child('path'), ''));
      else if (!str('path').startsWith('/')) errs.push(invalid(p.child('path'), str('path'), 'must be an absolute path'));
      break;
    case 'csi': {
      const driver = str('driver');
      if (!driver) errs.push(required(p.child('driver'), ''));
      if (driver.length > 63) errs.push(tooLong(p.child('driver'), '', 63));
      for (const m of isDNS1123Subdomain(driver.toLowerCase())) errs.push(invalid(p.child('driver'), driver, m));
      if (!str('volumeHandle')) errs.push(required(p.child('volumeHandle'), ''));
      break;
    }
    default:
  }
  return errs;
}

/**
 * The bad value upstream prints for a capacity without `storage`: Go's `%#v` of the
 * internal ResourceList — `core.ResourceList(nil)` when absent, `core.ResourceList{}`
 * when empty; other maps (whose Quantity structs Go prints field by field) as JSON.
 */
function capacityBadValue(cap: Record<string, unknown> | undefined | null): unknown {
  if (cap === undefined || cap === null) return new GoSyntax('core.ResourceList(nil)');
  return Object.keys(cap).length === 0 ? new GoSyntax('core.ResourceList{}') : cap;
}

/** Upstream ValidatePersistentVolumeSpec (not inline) for the common volume sources. */
function validatePVSpec(pv: O<PersistentVolume>): FieldError[] {
  const s = (pv.spec ?? {}) as PersistentVolumeSpec & Record<string, unknown>;
  const p = Path.root('spec');
  const errs = validateAccessModes(s.accessModes, p.child('accessModes'), '');
  const cap = s.capacity ?? {};
  const capKeys = Object.keys(cap);
  if (capKeys.length === 0) errs.push(required(p.child('capacity'), ''));
  if (!('storage' in cap) || capKeys.length > 1) errs.push(notSupported(p.child('capacity'), capacityBadValue(s.capacity), ['storage']));
  for (const [r, v] of Object.entries(cap)) {
    const q = quantityOf(v);
    if (q) errs.push(...validatePositiveQuantityValue(q, p.child('capacity').key(r)));
  }
  if (s.persistentVolumeReclaimPolicy && !RECLAIM_POLICIES.includes(s.persistentVolumeReclaimPolicy)) {
    errs.push(notSupported(p.child('persistentVolumeReclaimPolicy'), s.persistentVolumeReclaimPolicy, RECLAIM_POLICIES));
  }
  let nodeAffinitySpecified = false;
  if (s.nodeAffinity) {
    nodeAffinitySpecified = true;
    if (!s.nodeAffinity.required) errs.push(required(p.child('nodeAffinity').child('required'), 'must specify required node constraints'));
  }
  let n = 0;
  for (const name of VOLUME_SOURCES) {
    const src = s[name];
    if (src === undefined || src === null) continue;
    if (n > 0 && name !== 'flexVolume') {
      errs.push(forbidden(p.child(name === 'cephfs' ? 'cephFS' : name), 'may not specify more than 1 volume type'));
      continue;
    }
    n++;
    errs.push(...validateSource(name, src as Record<string, unknown>, p.child(name)));
    if (name === 'local' && !nodeAffinitySpecified) errs.push(required(p.child('nodeAffinity'), 'Local volume requires node affinity'));
  }
  if (n === 0) errs.push(required(p, 'must specify a volume type'));
  const hp = s.hostPath?.path;
  if (hp !== undefined && hp.replace(/\/+$/, '') === '' && hp.startsWith('/') && s.persistentVolumeReclaimPolicy === 'Recycle') {
    errs.push(forbidden(p.child('persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (s.storageClassName) for (const m of nameIsDNSSubdomain(s.storageClassName, false)) errs.push(invalid(p.child('storageClassName'), s.storageClassName, m));
  if (s.volumeMode !== undefined && !VOLUME_MODES.includes(s.volumeMode)) errs.push(notSupported(p.child('volumeMode'), s.volumeMode, VOLUME_MODES));
  return errs;
}

function sourceOf(pv: O<PersistentVolume>): Record<string, unknown> {
  const s = (pv.spec ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of VOLUME_SOURCES) if (s[k] !== undefined) out[k] = s[k];
  // a volume stored before hostPath.type was defaulted compares as defaulted (upstream defaults on read)
  const hp = out.hostPath as { type?: string | null } | undefined;
  if (hp && (hp.type === undefined || hp.type === null)) out.hostPath = { ...hp, type: '' };
  return out;
}

/**
 * Upstream ValidatePersistentVolumeUpdate: the volume source, volumeMode and a set
 * nodeAffinity are immutable. Messages omit upstream's trailing Go cmp.Diff.
 */
function validatePVUpdate(pv: O<PersistentVolume>, old: O<PersistentVolume>): FieldError[] {
  const errs = validatePVSpec(pv);
  const oldSrc = sourceOf(old);
  const newSrc = sourceOf(pv);
  const oldCSI = oldSrc.csi as Record<string, unknown> | undefined;
  const newCSI = newSrc.csi as Record<string, unknown> | undefined;
  if (oldCSI && newCSI && oldCSI.controllerExpandSecretRef === undefined && newCSI.controllerExpandSecretRef !== undefined) {
    const { controllerExpandSecretRef: _ref, ...rest } = newCSI;
    newSrc.csi = rest;
  }
  if (!jsonEqual(newSrc, oldSrc)) errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  errs.push(...validateImmutableField(pv.spec?.volumeMode ?? null, old.spec?.volumeMode ?? null, 'volumeMode'));
  if (old.spec?.nodeAffinity && !jsonEqual(pv.spec?.nodeAffinity ?? null, old.spec.nodeAffinity)) {
    errs.push(invalid('nodeAffinity', pv.spec?.nodeAffinity ?? null, 'field is immutable, except for updating from beta label to GA'));
  }
  return errs;
}

function decode(pv: O<PersistentVolume>): void {
  checkQuantityMap('PersistentVolume', 'v1', pv.spec?.capacity);
}

const setStatus = (pv: O<PersistentVolume>, st: PersistentVolumeStatus | undefined): void => {
  (pv as { status?: PersistentVolumeStatus }).status = st;
};

/** The StorageClass of a volume: the beta annotation wins over spec.storageClassName. */
function volumeClass(pv: O<PersistentVolume>): string {
  return pv.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] ?? pv.spec?.storageClassName ?? '';
}

/** persistentvolumes/status: keeps the old spec; a phase change stamps lastPhaseTransitionTime. */
export const pvStatusStrategy: StatusStrategy<K<PersistentVolume>> = {
  prepareForUpdate(obj, old, ctx: StrategyContext) {
    decode(obj);
    obj.spec = clone(old.spec);
    const phase = obj.status?.phase;
    if (phase !== old.status?.phase && obj.status && obj.status.lastPhaseTransitionTime === old.status?.lastPhaseTransitionTime) {
      setStatus(obj, { ...obj.status, lastPhaseTransitionTime: rfc3339(ctx.now()) });
    }
  },
  validateUpdate() {
    return [];
  },
};

/** core/v1 persistentvolumes (cluster-scoped, short name `pv`). */
export const persistentVolumeDefinition: ResourceDefinition<K<PersistentVolume>> = {
  group: '',
  version: 'v1',
  kind: 'PersistentVolume',
  listKind: 'PersistentVolumeList',
  resource: 'persistentvolumes',
  singular: 'persistentvolume',
  namespaced: false,
  shortNames: ['pv'],
  schemaRef: 'core/v1#PersistentVolume',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    if (!obj.status?.phase) setStatus(obj, { ...(obj.status ?? {}), phase: 'Pending' });
    const s = (obj.spec ??= {});
    if (!s.persistentVolumeReclaimPolicy) s.persistentVolumeReclaimPolicy = 'Retain';
    if (s.volumeMode === undefined) s.volumeMode = 'Filesystem';
    defaultPVSource(s);
  },
  prepareForCreate(obj, ctx) {
    decode(obj);
    setStatus(obj, { phase: 'Pending', lastPhaseTransitionTime: rfc3339(ctx.now()) });
  },
  prepareForUpdate(obj, old) {
    decode(obj);
    setStatus(obj, clone(old.status));
  },
  validate(obj) {
    return validatePVSpec(obj);
  },
  validateUpdate(obj, old) {
    return validatePVUpdate(obj, old);
  },
  canonicalize(obj) {
    canonicalizeQuantityMap(obj.spec?.capacity);
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity."),
      column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
      column('Reclaim Policy', 'string', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
      column('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
      column('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
      column('StorageClass', 'string', 'StorageClass of the pv'),
      column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
      column('Reason', 'string', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
      AGE_COLUMN,
      column('VolumeMode', 'string', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', 1),
    ],
    cells(obj, now) {
      const claim = obj.spec?.claimRef ? `${obj.spec.claimRef.namespace ?? ''}/${obj.spec.claimRef.name ?? ''}` : '';
      const size = obj.spec?.capacity?.storage;
      return [
        obj.metadata.name ?? '',
        size !== undefined ? String(size) : '0',
        accessModesString(obj.spec?.accessModes),
        obj.spec?.persistentVolumeReclaimPolicy ?? '',
        obj.metadata.deletionTimestamp ? 'Terminating' : (obj.status?.phase ?? ''),
        claim,
        volumeClass(obj),
        obj.spec?.volumeAttributesClassName ?? '<unset>',
        obj.status?.reason ?? '',
        translateTimestampSince(obj.metadata.creationTimestamp, now),
        obj.spec?.volumeMode ?? '<unset>',
      ];
    },
  },
  status: pvStatusStrategy,
};
