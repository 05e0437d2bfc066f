/**
 * storage.k8s.io/v1 CSIStorageCapacity (namespaced): validation as upstream
 * ValidateCSIStorageCapacity / …Update (nodeTopology a valid label selector,
 * storageClassName a DNS subdomain, capacity ≥ 0; nodeTopology and storageClassName
 * immutable), printer NAME STORAGECLASSNAME CAPACITY.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/storage/csistoragecapacity/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/validation/validation.go
 */
import type { CSIStorageCapacity } from 'kubernetes-types/storage/v1.js';
import { type FieldError, invalid, Path } from '../../../../apimachinery/field-errors.js';
import { formatQuantity, parseQuantityJSON, quantitySign } from '../../../../apimachinery/quantity.js';
import { IS_NEGATIVE_ERROR_MSG, isDNS1123Subdomain, jsonEqual, validateLabelSelector } from '../../../../apimachinery/validation.js';
import { column, NAME_COLUMN } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { canonicalizeQuantityMap, checkQuantityMap } from '../../../core/v1/shared/decode.js';

/** Rejects unparsable quantities as the decoder does (400 BadRequest). */
function decode(obj: O<CSIStorageCapacity>): void {
  checkQuantityMap('CSIStorageCapacity', 'storage.k8s.io/v1', { capacity: obj.capacity, maximumVolumeSize: obj.maximumVolumeSize });
}

/** The capacity in canonical form, or the raw text when it does not parse. */
function canonicalQuantity(v: string | number): string {
  try {
    return formatQuantity(parseQuantityJSON(v));
  } catch {
    return String(v);
  }
}

/** Upstream ValidateCSIStorageCapacity (without ObjectMeta). */
function validateCSIStorageCapacity(obj: O<CSIStorageCapacity>): FieldError[] {
  const errs = validateLabelSelector(obj.nodeTopology, Path.root('nodeTopology'));
  const sc = obj.storageClassName ?? '';
  errs.push(...isDNS1123Subdomain(sc).map((m) => invalid('storageClassName', sc, m)));
  if (obj.capacity !== undefined && obj.capacity !== null) {
    const q = parseQuantityJSON(obj.capacity);
    if (quantitySign(q) < 0) errs.push(invalid('capacity', formatQuantity(q), IS_NEGATIVE_ERROR_MSG));
  }
  return errs;
}

/** storage.k8s.io/v1 csistoragecapacities. */
export const csiStorageCapacityDefinition: ResourceDefinition<K<CSIStorageCapacity>> = {
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIStorageCapacity',
  listKind: 'CSIStorageCapacityList',
  resource: 'csistoragecapacities',
  singular: 'csistoragecapacity',
  namespaced: true,
  schemaRef: 'storage/v1#CSIStorageCapacity',
  allowUnconditionalUpdate: true,

  prepareForCreate(obj) {
    decode(obj);
  },
  prepareForUpdate(obj) {
    decode(obj);
  },
  validate(obj) {
    return validateCSIStorageCapacity(obj);
  },
  validateUpdate(obj, old) {
    const errs = validateCSIStorageCapacity(obj);
    if (!jsonEqual(obj.nodeTopology ?? null, old.nodeTopology ?? null)) errs.push(invalid('nodeTopology', obj.nodeTopology, 'field is immutable'));
    if (obj.storageClassName !== old.storageClassName) errs.push(invalid('storageClassName', obj.storageClassName, 'field is immutable'));
    return errs;
  },
  canonicalize(obj) {
    const m: Record<string, unknown> = { capacity: obj.capacity, maximumVolumeSize: obj.maximumVolumeSize };
    canonicalizeQuantityMap(m);
    if (obj.capacity !== undefined) obj.capacity = m.capacity as string;
    if (obj.maximumVolumeSize !== undefined) obj.maximumVolumeSize = m.maximumVolumeSize as string;
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('StorageClassName', 'string', 'storageClassName represents the name of the StorageClass that the reported capacity applies to.'),
      column(
        'Capacity',
        'string',
        'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.',
      ),
    ],
    cells(obj) {
      return [obj.metadata.name ?? '', obj.storageClassName ?? '', obj.capacity === undefined || obj.capacity === null ? '<unset>' : canonicalQuantity(obj.capacity)];
    },
  },
};
