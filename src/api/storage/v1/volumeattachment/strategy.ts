/**
 * storage.k8s.io/v1 VolumeAttachment (cluster-scoped) with its status subresource: the
 * spec is immutable, create clears the status and spec updates keep it (the attacher
 * writes it through `volumeattachments/status`); validation as upstream
 * ValidateVolumeAttachment + ValidateVolumeAttachmentV1 (attacher required and a DNS
 * subdomain, exactly one source, a valid node name, status sizes); printer NAME ATTACHER
 * PV NODE ATTACHED AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/storage/volumeattachment/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/validation/validation.go
 */
import type { VolumeAttachment, VolumeAttachmentStatus, VolumeError } from 'kubernetes-types/storage/v1.js';
import { type FieldError, forbidden, invalid, Path, required, tooLong } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Subdomain, jsonEqual } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { clone, type K, type O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { validateCSIDriverName } from '../shared.js';

const SPEC = Path.root('spec');
const STATUS = Path.root('status');
/** Upstream maxAttachedVolumeMetadataSize and maxVolumeErrorMessageSize. */
const MAX_METADATA_SIZE = 256 * 1024;
const MAX_ERROR_MESSAGE_SIZE = 1024;

function validateVolumeError(e: VolumeError | undefined, p: Path): FieldError[] {
  if (!e) return [];
  const errs: FieldError[] = [];
  // upstream reports the metadata limit here too
  if ((e.message ?? '').length > MAX_ERROR_MESSAGE_SIZE) errs.push(tooLong(p.child('message'), '', MAX_METADATA_SIZE));
  return errs;
}

function validateStatus(st: VolumeAttachmentStatus | undefined): FieldError[] {
  const s = st ?? ({} as VolumeAttachmentStatus);
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(s.attachmentMetadata ?? {})) size += Buffer.byteLength(k) + Buffer.byteLength(v ?? '');
  if (size > MAX_METADATA_SIZE) errs.push(tooLong(STATUS.child('attachmentMetadata'), '', MAX_METADATA_SIZE));
  errs.push(...validateVolumeError(s.attachError, STATUS.child('attachError')));
  errs.push(...validateVolumeError(s.detachError, STATUS.child('detachError')));
  return errs;
}

/** Upstream ValidateVolumeAttachment + ValidateVolumeAttachmentV1 (without ObjectMeta). */
function validateVolumeAttachment(obj: O<VolumeAttachment>): FieldError[] {
  const spec = obj.spec ?? ({} as VolumeAttachment['spec']);
  const errs: FieldError[] = [];
  const attacher = spec.attacher ?? '';
  if (attacher.length === 0) errs.push(required(SPEC.child('attacher'), ''));
  const src = spec.source ?? {};
  const pvName = src.persistentVolumeName;
  const hasPV = pvName !== undefined && pvName !== null;
  const hasInline = src.inlineVolumeSpec !== undefined && src.inlineVolumeSpec !== null;
  const srcPath = SPEC.child('source');
  if (!hasPV && !hasInline) errs.push(required(srcPath, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV && hasInline) errs.push(forbidden(srcPath, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV && pvName.length === 0) errs.push(required(srcPath.child('persistentVolumeName'), 'must specify non empty persistentVolumeName'));
  const node = spec.nodeName ?? '';
  errs.push(...isDNS1123Subdomain(node).map((m) => invalid(SPEC.child('nodeName'), node, m)));
  errs.push(...validateStatus(obj.status));
  // v1 extras: the attacher is a CSI driver name, the PV name a valid PV name
  errs.push(...validateCSIDriverName(attacher, SPEC.child('attacher')));
  if (hasPV) errs.push(...isDNS1123Subdomain(pvName).map((m) => invalid(srcPath.child('persistentVolumeName'), pvName, m)));
  return errs;
}

/** storage.k8s.io/v1 volumeattachments (and volumeattachments/status). */
export const volumeAttachmentDefinition: ResourceDefinition<K<VolumeAttachment>> = {
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  listKind: 'VolumeAttachmentList',
  resource: 'volumeattachments',
  singular: 'volumeattachment',
  namespaced: false,
  schemaRef: 'storage/v1#VolumeAttachment',
  allowUnconditionalUpdate: true,

  prepareForCreate(obj) {
    delete obj.status;
  },
  prepareForUpdate(obj, old) {
    if (old.status === undefined) delete obj.status;
    else obj.status = clone(old.status);
  },
  validate(obj) {
    return validateVolumeAttachment(obj);
  },
  validateUpdate(obj, old) {
    const errs = validateVolumeAttachment(obj);
    if (!jsonEqual(obj.spec ?? null, old.spec ?? null)) errs.push(invalid('spec', obj.spec, 'field is immutable'));
    return errs;
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = clone(old.spec);
    },
    validateUpdate(obj, old) {
      const errs = validateVolumeAttachment(obj);
      if (!jsonEqual(obj.spec ?? null, old.spec ?? null)) errs.push(invalid('spec', obj.spec, 'field is immutable'));
      return errs;
    },
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Attacher', 'string', 'attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().', 0, 'name'),
      column('PV', 'string', 'persistentVolumeName represents the name of the persistent volume to attach.'),
      column('Node', 'string', 'nodeName represents the node that the volume should be attached to.'),
      column(
        'Attached',
        'boolean',
        'attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.',
      ),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [
        obj.metadata.name ?? '',
        obj.spec?.attacher ?? '',
        obj.spec?.source?.persistentVolumeName ?? '',
        obj.spec?.nodeName ?? '',
        obj.status?.attached ?? false,
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};
