/**
 * storage.k8s.io/v1 CSIDriver (cluster-scoped): defaults as upstream SetDefaults_CSIDriver
 * (attachRequired true, podInfoOnMount false, storageCapacity false, requiresRepublish
 * false, fsGroupPolicy ReadWriteOnceWithFSType, volumeLifecycleModes [Persistent],
 * seLinuxMount false), validation as ValidateCSIDriver / ValidateCSIDriverUpdate (the
 * booleans required, fsGroupPolicy and modes enumerated, token request audiences unique
 * and expirations within [10 minutes, 2^32 s], attachRequired and volumeLifecycleModes
 * immutable), generation bumped on spec changes, printer NAME ATTACHREQUIRED
 * PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/storage/csidriver/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/validation/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/v1/defaults.go
 */
import type { CSIDriver, CSIDriverSpec } from 'kubernetes-types/storage/v1.js';
import { duplicate, type FieldError, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { jsonEqual, validateImmutableField } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { type K, mutableMeta } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';

const SPEC = Path.root('spec');
const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
/** Upstream's bounds of tokenRequests[].expirationSeconds. */
const MIN_TOKEN_EXPIRATION_SECONDS = 600;
const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;

/** Upstream validateCSIDriverSpec. */
function validateCSIDriverSpec(spec: CSIDriverSpec | undefined): FieldError[] {
  const s = spec ?? {};
  const errs: FieldError[] = [];
  // upstream names the path `attachedRequired`
  if (s.attachRequired === undefined || s.attachRequired === null) errs.push(required(SPEC.child('attachedRequired'), ''));
  if (s.podInfoOnMount === undefined || s.podInfoOnMount === null) errs.push(required(SPEC.child('podInfoOnMount'), ''));
  if (s.storageCapacity === undefined || s.storageCapacity === null) errs.push(required(SPEC.child('storageCapacity'), ''));
  if (s.fsGroupPolicy !== undefined && s.fsGroupPolicy !== null && !FS_GROUP_POLICIES.includes(s.fsGroupPolicy)) {
    errs.push(notSupported(SPEC.child('fsGroupPolicy'), s.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  const audiences = new Set<string>();
  (s.tokenRequests ?? []).forEach((t, i) => {
    const p = SPEC.child('tokenRequests').index(i);
    const aud = t.audience ?? '';
    if (audiences.has(aud)) {
      errs.push(duplicate(p.child('audience'), aud));
      return;
    }
    audiences.add(aud);
    const exp = t.expirationSeconds;
    if (exp === undefined || exp === null) return;
    if (exp < MIN_TOKEN_EXPIRATION_SECONDS) errs.push(invalid(p.child('expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'));
    if (exp > MAX_TOKEN_EXPIRATION_SECONDS) errs.push(invalid(p.child('expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'));
  });
  for (const m of s.volumeLifecycleModes ?? []) {
    if (!LIFECYCLE_MODES.includes(m)) errs.push(notSupported(SPEC.child('volumeLifecycleModes'), m, LIFECYCLE_MODES));
  }
  if (s.seLinuxMount === undefined || s.seLinuxMount === null) errs.push(required(SPEC.child('seLinuxMount'), ''));
  return errs;
}

/** storage.k8s.io/v1 csidrivers. */
export const csiDriverDefinition: ResourceDefinition<K<CSIDriver>> = {
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIDriver',
  listKind: 'CSIDriverList',
  resource: 'csidrivers',
  singular: 'csidriver',
  namespaced: false,
  schemaRef: 'storage/v1#CSIDriver',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    const s = (obj.spec ??= {});
    s.attachRequired ??= true;
    s.podInfoOnMount ??= false;
    s.storageCapacity ??= false;
    s.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
    if (!s.volumeLifecycleModes || s.volumeLifecycleModes.length === 0) s.volumeLifecycleModes = ['Persistent'];
    s.requiresRepublish ??= false;
    // SELinuxMountReadWriteOncePod is on by default in v1.32
    s.seLinuxMount ??= false;
  },
  // upstream sets no generation on create; spec changes bump it
  prepareForUpdate(obj, old) {
    const gen = old.metadata.generation;
    if (jsonEqual(obj.spec ?? null, old.spec ?? null)) {
      if (gen === undefined) delete mutableMeta(obj).generation;
      else mutableMeta(obj).generation = gen;
    } else mutableMeta(obj).generation = (gen ?? 0) + 1;
  },
  validate(obj) {
    return validateCSIDriverSpec(obj.spec);
  },
  validateUpdate(obj, old) {
    const errs = validateCSIDriverSpec(obj.spec);
    errs.push(...validateImmutableField(obj.spec?.attachRequired ?? null, old.spec?.attachRequired ?? null, SPEC.child('attachedRequired')));
    errs.push(...validateImmutableField(obj.spec?.volumeLifecycleModes ?? null, old.spec?.volumeLifecycleModes ?? null, SPEC.child('volumeLifecycleModes')));
    return errs;
  },
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'AttachRequired',
        'boolean',
        'attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting.',
      ),
      column(
        'PodInfoOnMount',
        'boolean',
        'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.',
      ),
      column(
        'StorageCapacity',
        'boolean',
        'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.',
      ),
      column('TokenRequests', 'string', "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication."),
      column(
        'RequiresRepublish',
        'boolean',
        'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.',
      ),
      column('Modes', 'string', 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      const s = obj.spec ?? {};
      const modes = (s.volumeLifecycleModes ?? []).join(',');
      return [
        obj.metadata.name ?? '',
        s.attachRequired ?? true,
        s.podInfoOnMount ?? false,
        s.storageCapacity ?? false,
        s.tokenRequests ? s.tokenRequests.map((t) => t.audience).join(',') : '<unset>',
        s.requiresRepublish ?? false,
        modes || '<none>',
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};
