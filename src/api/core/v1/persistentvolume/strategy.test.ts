import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { persistentVolumeDefinition as def, pvStatusStrategy } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date('2024-02-01T12:00:00.500Z') };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
// the task-pv-volume of the configure-persistent-volume-storage doc
const pv = (spec: PersistentVolume['spec'] = {}, extra: Partial<PersistentVolume> = {}): O<PersistentVolume> =>
  ({
    metadata: { name: 'task-pv-volume', labels: { type: 'local' }, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { storageClassName: 'manual', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/mnt/data' }, ...spec },
    ...extra,
  }) as O<PersistentVolume>;

test('defaults and create status', () => {
  const v = pv();
  def.defaults!(v);
  assert.equal(v.spec?.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(v.spec?.volumeMode, 'Filesystem');
  assert.deepEqual(v.spec?.hostPath, { path: '/mnt/data', type: '' }, 'SetDefaults_HostPathVolumeSource');
  def.prepareForCreate!(v, ctx);
  assert.deepEqual(v.status, { phase: 'Pending', lastPhaseTransitionTime: '2024-02-01T12:00:00Z' });
});

test('validation messages', () => {
  assert.deepEqual(msgs(def.validate!(pv(), ctx)), []);
  const none = pv({ hostPath: undefined });
  assert.deepEqual(msgs(def.validate!(none, ctx)), ['spec: Required value: must specify a volume type']);
  assert.deepEqual(msgs(def.validate!(pv({ nfs: { server: 'nfs', path: 'rel' } }), ctx)), ['spec.nfs: Forbidden: may not specify more than 1 volume type']);
  assert.deepEqual(msgs(def.validate!(pv({ hostPath: { path: '' } }), ctx)), ['spec.hostPath.path: Required value']);
  assert.deepEqual(msgs(def.validate!(pv({ hostPath: undefined, local: { path: '/mnt/disks/a' } }), ctx)), [
    'spec.nodeAffinity: Required value: Local volume requires node affinity',
  ]);
  assert.deepEqual(msgs(def.validate!(pv({ accessModes: [], capacity: { storage: '0' } }), ctx)), [
    'spec.accessModes: Required value',
    'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
  ]);
  assert.deepEqual(msgs(def.validate!(pv({ persistentVolumeReclaimPolicy: 'Keep' }), ctx)), [
    'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
  ]);
});

test('capacity and hostPath type messages', () => {
  assert.deepEqual(msgs(def.validate!(pv({ capacity: undefined }), ctx)), [
    'spec.capacity: Required value',
    'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"',
  ]);
  assert.deepEqual(msgs(def.validate!(pv({ capacity: {} }), ctx)), [
    'spec.capacity: Required value',
    'spec.capacity: Unsupported value: core.ResourceList{}: supported values: "storage"',
  ]);
  assert.deepEqual(msgs(def.validate!(pv({ hostPath: { path: '/mnt/data', type: 'Dir' } }), ctx)), [
    'spec.hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
  ]);
});

test('update: the volume source is immutable', () => {
  const old = pv();
  assert.deepEqual(msgs(def.validateUpdate!(pv({ claimRef: { namespace: 'default', name: 'task-pv-claim' } }), old, ctx)), []);
  // a volume stored before hostPath.type was defaulted
  assert.deepEqual(msgs(def.validateUpdate!(pv({ hostPath: { path: '/mnt/data', type: '' } }), old, ctx)), []);
  assert.deepEqual(msgs(def.validateUpdate!(pv({ hostPath: { path: '/mnt/other' } }), old, ctx)), [
    'spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation',
  ]);
});

test('status strategy stamps lastPhaseTransitionTime on phase changes', () => {
  const old = pv({}, { status: { phase: 'Available', lastPhaseTransitionTime: '2024-01-01T00:00:00Z' } });
  const st = pv({ hostPath: { path: '/changed' } }, { status: { phase: 'Bound', lastPhaseTransitionTime: '2024-01-01T00:00:00Z' } });
  pvStatusStrategy.prepareForUpdate(st, old, ctx);
  assert.equal(st.spec?.hostPath?.path, '/mnt/data');
  assert.equal(st.status?.lastPhaseTransitionTime, '2024-02-01T12:00:00Z');
});

test('table rows', () => {
  const now = new Date('2024-01-01T00:00:07Z');
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode'],
  );
  const bound = pv(
    { persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'default', name: 'task-pv-claim' }, volumeMode: 'Filesystem' },
    { status: { phase: 'Bound' } },
  );
  assert.deepEqual(def.table!.cells(bound, now), ['task-pv-volume', '10Gi', 'RWO', 'Retain', 'Bound', 'default/task-pv-claim', 'manual', '<unset>', '', '7s', 'Filesystem']);
  const deleting = pv({}, { metadata: { name: 'x', deletionTimestamp: '2024-01-01T00:00:00Z' }, status: { phase: 'Released' } });
  assert.equal(def.table!.cells(deleting, now)[4], 'Terminating');
  assert.deepEqual(def.shortNames, ['pv']);
});
