import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { fieldErrorString, type FieldError } from '../../../apimachinery/field-errors.js';
import type { StatusError } from '../../../apimachinery/errors.js';
import type { KObject, Obj, ResourceDefinition, StrategyContext } from '../../resource.js';
import type { O } from '../../core/v1/shared/types.js';
import { storageClassDefinition as sc } from './storageclass/strategy.js';
import { csiDriverDefinition as driver } from './csidriver/strategy.js';
import { csiNodeDefinition as csinode } from './csinode/strategy.js';
import { volumeAttachmentDefinition as va } from './volumeattachment/strategy.js';
import { csiStorageCapacityDefinition as cap } from './csistoragecapacity/strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, creationTimestamp: '2024-01-01T00:00:00Z', ...extra });
const NOW = new Date('2024-01-01T00:05:00Z');

/** defaults + prepareForCreate + validate, as the store runs them on create */
function create<T extends KObject>(def: ResourceDefinition<T>, obj: T): string[] {
  const o = obj as Obj<T>;
  def.defaults?.(o);
  def.prepareForCreate?.(o, ctx);
  return msgs(def.validate?.(o, ctx) ?? []);
}

test('StorageClass: defaults, validation messages, update rules, printer with (default)', () => {
  const s = { metadata: meta('fast'), provisioner: 'kubernetes.io/no-provisioner' } as O<StorageClass>;
  assert.deepEqual(create(sc, s), []);
  assert.equal(s.reclaimPolicy, 'Delete');
  assert.equal(s.volumeBindingMode, 'Immediate');
  assert.deepEqual(create(sc, { metadata: meta('x'), provisioner: '', reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' } as O<StorageClass>), [
    'provisioner: Required value',
    'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
    'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
  ]);
  assert.deepEqual(create(sc, { metadata: meta('x'), provisioner: 'bad_name!' } as O<StorageClass>), [
    "provisioner: Invalid value: \"bad_name!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  const topo = { matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a', 'a'] }] };
  assert.deepEqual(create(sc, { metadata: meta('x'), provisioner: 'p', allowedTopologies: [topo, topo] } as O<StorageClass>), [
    'allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"',
    'allowedTopologies[1].matchLabelExpressions[0].values[1]: Duplicate value: "a"',
    'allowedTopologies[1].matchLabelExpressions: Duplicate value: ""',
  ]);
  const next = { ...structuredClone(s), provisioner: 'other', parameters: { a: 'b' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' } as O<StorageClass>;
  assert.deepEqual(msgs(sc.validateUpdate!(next, s, ctx)), [
    'parameters: Forbidden: updates to parameters are forbidden.',
    'provisioner: Forbidden: updates to provisioner are forbidden.',
    'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
  ]);
  assert.deepEqual(
    sc.table!.columns.map((c) => c.name),
    ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age'],
  );
  s.metadata.annotations = { 'storageclass.kubernetes.io/is-default-class': 'true' };
  assert.deepEqual(sc.table!.cells(s, NOW), ['fast (default)', 'kubernetes.io/no-provisioner', 'Delete', 'Immediate', false, '5m']);
  assert.deepEqual(sc.shortNames, ['sc']);
});

test('CSIDriver: defaults, validation, immutable attachRequired, printer', () => {
  const d = { metadata: meta('hostpath.csi.k8s.io'), spec: {} } as O<CSIDriver>;
  assert.deepEqual(create(driver, d), []);
  assert.deepEqual(d.spec, {
    attachRequired: true,
    podInfoOnMount: false,
    storageCapacity: false,
    fsGroupPolicy: 'ReadWriteOnceWithFSType',
    volumeLifecycleModes: ['Persistent'],
    requiresRepublish: false,
    seLinuxMount: false,
  });
  const bad = {
    metadata: meta('d'),
    spec: { fsGroupPolicy: 'Any', volumeLifecycleModes: ['Forever'], tokenRequests: [{ audience: 'a', expirationSeconds: 60 }, { audience: 'a' }] },
  } as O<CSIDriver>;
  assert.deepEqual(create(driver, bad), [
    'spec.fsGroupPolicy: Unsupported value: "Any": supported values: "File", "None", "ReadWriteOnceWithFSType"',
    'spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    'spec.tokenRequests[1].audience: Duplicate value: "a"',
    'spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"',
  ]);
  const next = structuredClone(d);
  next.spec.attachRequired = false;
  driver.prepareForUpdate!(next, d, ctx);
  assert.deepEqual(msgs(driver.validateUpdate!(next, d, ctx)), ['spec.attachedRequired: Invalid value: false: field is immutable']);
  assert.equal(next.metadata.generation, 1);
  assert.deepEqual(driver.table!.cells(d, NOW), ['hostpath.csi.k8s.io', true, false, false, '<unset>', false, 'Persistent', '5m']);
});

test('CSINode: driver validation, entries immutable, DRIVERS column', () => {
  const n = { metadata: meta('node-1'), spec: { drivers: [{ name: 'hostpath.csi.k8s.io', nodeID: 'node-1', topologyKeys: ['topology.hostpath.csi/node'] }] } } as O<CSINode>;
  assert.deepEqual(create(csinode, n), []);
  const bad = {
    metadata: meta('n'),
    spec: {
      drivers: [
        { name: 'd', nodeID: '' },
        { name: 'd', nodeID: 'x'.repeat(257), allocatable: { count: -1 } },
      ],
    },
  } as O<CSINode>;
  assert.deepEqual(create(csinode, bad), [
    'spec.drivers[0].nodeID: Required value',
    `spec.drivers[1].nodeID: Invalid value: "${'x'.repeat(257)}": must be 256 characters or less`,
    'spec.drivers[1].allocatable.count: Invalid value: -1: must be greater than or equal to 0',
    'spec.drivers[1].name: Duplicate value: "d"',
  ]);
  const next = structuredClone(n);
  next.spec.drivers[0]!.nodeID = 'other';
  assert.equal(msgs(csinode.validateUpdate!(next, n, ctx)).length, 1);
  assert.match(msgs(csinode.validateUpdate!(next, n, ctx))[0]!, /^spec\.drivers: Invalid value: .*: field is immutable$/);
  assert.deepEqual(csinode.table!.cells(n, NOW), ['node-1', 1, '5m']);
});

test('VolumeAttachment: source rules, spec immutable, status kept by spec updates and spec by status updates', () => {
  const v = {
    metadata: meta('csi-123'),
    spec: { attacher: 'hostpath.csi.k8s.io', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
    status: { attached: true },
  } as O<VolumeAttachment>;
  assert.deepEqual(create(va, v), []);
  assert.equal(v.status, undefined, 'create clears status');
  assert.deepEqual(create(va, { metadata: meta('x'), spec: { attacher: '', nodeName: 'n', source: {} } } as O<VolumeAttachment>), [
    'spec.attacher: Required value',
    'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    'spec.attacher: Required value',
    `spec.attacher: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]);
  const withStatus = { ...structuredClone(v), status: { attached: true } } as O<VolumeAttachment>;
  const specUpdate = structuredClone(withStatus);
  delete specUpdate.status;
  va.prepareForUpdate!(specUpdate, withStatus, ctx);
  assert.deepEqual(specUpdate.status, { attached: true });
  specUpdate.spec.nodeName = 'node-2';
  assert.match(msgs(va.validateUpdate!(specUpdate, withStatus, ctx))[0]!, /^spec: Invalid value: .*: field is immutable$/);
  const statusUpdate = { ...structuredClone(withStatus), spec: { ...withStatus.spec, nodeName: 'zzz' }, status: { attached: false } } as O<VolumeAttachment>;
  va.status!.prepareForUpdate(statusUpdate, withStatus, ctx);
  assert.equal(statusUpdate.spec.nodeName, 'node-1');
  assert.deepEqual(va.table!.cells(withStatus, NOW), ['csi-123', 'hostpath.csi.k8s.io', 'pv-1', 'node-1', true, '5m']);
});

test('CSIStorageCapacity: namespaced, quantities canonical, validation, immutable class', () => {
  const c = {
    metadata: meta('cap-1', { namespace: 'default' }),
    storageClassName: 'fast',
    capacity: '1024Mi',
    nodeTopology: { matchLabels: { zone: 'a' } },
  } as O<CSIStorageCapacity>;
  assert.deepEqual(create(cap, c), []);
  cap.canonicalize!(c);
  assert.equal(c.capacity, '1Gi');
  assert.deepEqual(create(cap, { metadata: meta('x'), storageClassName: 'Bad_Name', capacity: '-1' } as O<CSIStorageCapacity>), [
    "storageClassName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    'capacity: Invalid value: "-1": must be greater than or equal to 0',
  ]);
  assert.throws(
    () => cap.prepareForCreate!({ metadata: meta('x'), storageClassName: 's', capacity: '1ZZ' } as O<CSIStorageCapacity>, ctx),
    (e: StatusError) =>
      e.status.code === 400 && /CSIStorageCapacity in version "storage.k8s.io\/v1" cannot be handled as a CSIStorageCapacity: quantities must match/.test(e.status.message ?? ''),
  );
  const next = { ...structuredClone(c), storageClassName: 'slow' } as O<CSIStorageCapacity>;
  assert.deepEqual(msgs(cap.validateUpdate!(next, c, ctx)), ['storageClassName: Invalid value: "slow": field is immutable']);
  assert.equal(cap.namespaced, true);
  assert.deepEqual(cap.table!.cells(c, NOW), ['cap-1', 'fast', '1Gi']);
});
