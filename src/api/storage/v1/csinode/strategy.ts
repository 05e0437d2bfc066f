/**
 * storage.k8s.io/v1 CSINode (cluster-scoped, named after its Node): validation as
 * upstream ValidateCSINode / ValidateCSINodeUpdate (driver names DNS subdomains and
 * unique, nodeID required and ≤ 256 characters, allocatable count ≥ 0, topology keys
 * qualified names and unique; an existing driver entry may not change), printer NAME
 * DRIVERS AGE. Kubelets create these objects as CSI drivers register.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/storage/csinode/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/validation/validation.go
 */
import type { CSINode, CSINodeDriver } from 'kubernetes-types/storage/v1.js';
import { duplicate, type FieldError, invalid, Path, required } from '../../../../apimachinery/field-errors.js';
import { validateImmutableField, validateNonnegativeField } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { validateQualifiedName } from '../../../core/v1/shared/validation.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { validateCSIDriverName } from '../shared.js';

const DRIVERS = Path.root('spec').child('drivers');
/** Upstream csiNodeIDLongerMaxLength (the strategy allows long node IDs). */
const MAX_NODE_ID_LENGTH = 256;

function validateDriver(d: CSINodeDriver, names: Set<string>, p: Path): FieldError[] {
  const errs = validateCSIDriverName(d.name, p.child('name'));
  const nodeID = d.nodeID ?? '';
  if (nodeID.length === 0) errs.push(required(p.child('nodeID'), ''));
  if (nodeID.length > MAX_NODE_ID_LENGTH) errs.push(invalid(p.child('nodeID'), nodeID, `must be ${MAX_NODE_ID_LENGTH} characters or less`));
  if (d.allocatable?.count !== undefined && d.allocatable.count !== null) {
    errs.push(...validateNonnegativeField(d.allocatable.count, p.child('allocatable').child('count')));
  }
  if (names.has(d.name)) errs.push(duplicate(p.child('name'), d.name));
  names.add(d.name);
  const keys = new Set<string>();
  for (const key of d.topologyKeys ?? []) {
    if (key.length === 0) errs.push(required(p, ''));
    if (keys.has(key)) errs.push(duplicate(p, key));
    keys.add(key);
    errs.push(...validateQualifiedName(key, p));
  }
  return errs;
}

/** Upstream ValidateCSINode (without ObjectMeta). */
function validateCSINode(obj: O<CSINode>): FieldError[] {
  const names = new Set<string>();
  return (obj.spec?.drivers ?? []).flatMap((d, i) => validateDriver(d, names, DRIVERS.index(i)));
}

/** storage.k8s.io/v1 csinodes. */
export const csiNodeDefinition: ResourceDefinition<K<CSINode>> = {
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSINode',
  listKind: 'CSINodeList',
  resource: 'csinodes',
  singular: 'csinode',
  namespaced: false,
  schemaRef: 'storage/v1#CSINode',
  allowUnconditionalUpdate: true,

  validate(obj) {
    return validateCSINode(obj);
  },
  validateUpdate(obj, old) {
    const errs = validateCSINode(obj);
    for (const o of old.spec?.drivers ?? []) {
      for (const n of obj.spec?.drivers ?? []) {
        if (o.name === n.name) errs.push(...validateImmutableField(n, o, DRIVERS));
      }
    }
    return errs;
  },
  table: {
    columns: [NAME_COLUMN, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), AGE_COLUMN],
    cells(obj, now) {
      return [obj.metadata.name ?? '', (obj.spec?.drivers ?? []).length, translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
