import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import { StatusError } from '../../../../apimachinery/errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { persistentVolumeClaimDefinition as def, pvcStatusStrategy } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
// the claim of the task-pv-claim doc example (configure-persistent-volume-storage)
const pvc = (spec: PersistentVolumeClaim['spec'] = {}, extra: Partial<PersistentVolumeClaim> = {}): O<PersistentVolumeClaim> =>
  ({
    metadata: { name: 'task-pv-claim', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { storageClassName: 'manual', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '3Gi' } }, ...spec },
    ...extra,
  }) as O<PersistentVolumeClaim>;

test('defaults, create resets status to Pending, quantities checked and canonicalised', () => {
  const c = pvc({}, { status: { phase: 'Bound' } });
  def.defaults!(c);
  assert.equal(c.spec?.volumeMode, 'Filesystem');
  def.prepareForCreate!(c, ctx);
  assert.deepEqual(c.status, { phase: 'Pending' });
  assert.throws(
    () => def.prepareForCreate!(pvc({ resources: { requests: { storage: 'lots' } } }), ctx),
    (e: unknown) => e instanceof StatusError && e.code === 400,
  );
  const c2 = pvc({ resources: { requests: { storage: '3072Mi' } } });
  def.canonicalize!(c2);
  assert.equal(c2.spec?.resources?.requests?.storage, '3Gi');
});

test('validation messages', () => {
  assert.deepEqual(msgs(def.validate!(pvc(), ctx)), []);
  assert.deepEqual(msgs(def.validate!(pvc({ accessModes: [], resources: {} }), ctx)), [
    'spec.accessModes: Required value: at least 1 access mode is required',
    'spec.resources[storage]: Required value',
  ]);
  assert.deepEqual(msgs(def.validate!(pvc({ accessModes: ['ReadWriteOncePod', 'ReadOnlyMany', 'Sometimes'] }), ctx)), [
    'spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
  ]);
  assert.deepEqual(msgs(def.validate!(pvc({ resources: { requests: { storage: '0' } } }), ctx)), ['spec.resources[storage]: Invalid value: "0": must be greater than zero']);
  assert.deepEqual(msgs(def.validate!(pvc({ volumeMode: 'Raw' as 'Block' }), ctx)), ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']);
});

test('updates: spec immutable except storage for bound claims and the first volumeName', () => {
  const old = pvc({ volumeMode: 'Filesystem' }, { status: { phase: 'Pending' } });
  const bind = pvc({ volumeMode: 'Filesystem', volumeName: 'task-pv-volume' });
  def.prepareForUpdate!(bind, old, ctx);
  assert.deepEqual(msgs(def.validateUpdate!(bind, old, ctx)), []);
  const boundOld = pvc({ volumeMode: 'Filesystem', volumeName: 'task-pv-volume' }, { status: { phase: 'Bound', capacity: { storage: '3Gi' } } });
  const grow = pvc({ volumeMode: 'Filesystem', volumeName: 'task-pv-volume', resources: { requests: { storage: '5Gi' } } });
  def.prepareForUpdate!(grow, boundOld, ctx);
  assert.deepEqual(msgs(def.validateUpdate!(grow, boundOld, ctx)), []);
  const other = pvc({ volumeMode: 'Filesystem', volumeName: 'other' });
  def.prepareForUpdate!(other, boundOld, ctx);
  assert.deepEqual(msgs(def.validateUpdate!(other, boundOld, ctx)), [
    'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
  ]);
  const shrink = pvc({ volumeMode: 'Filesystem', volumeName: 'task-pv-volume', resources: { requests: { storage: '1Gi' } } });
  def.prepareForUpdate!(shrink, boundOld, ctx);
  assert.deepEqual(msgs(def.validateUpdate!(shrink, boundOld, ctx)), ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
});

test('status strategy keeps the spec', () => {
  const old = pvc();
  const st = pvc({ accessModes: ['ReadWriteMany'] }, { status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] } });
  pvcStatusStrategy.prepareForUpdate(st, old, ctx);
  assert.deepEqual(st.spec?.accessModes, ['ReadWriteOnce']);
  assert.deepEqual(msgs(pvcStatusStrategy.validateUpdate!(st, old, ctx)), []);
});

test('status: the expansion bookkeeping (allocatedResources, allocatedResourceStatuses) is kept and checked', () => {
  const old = pvc();
  const ok = pvc({}, { status: { phase: 'Bound', allocatedResources: { storage: '4Gi' }, allocatedResourceStatuses: { storage: 'NodeResizePending' } } });
  pvcStatusStrategy.prepareForUpdate(ok, old, ctx);
  assert.deepEqual(msgs(pvcStatusStrategy.validateUpdate!(ok, old, ctx)), []);
  const bad = pvc({}, { status: { phase: 'Bound', allocatedResourceStatuses: { storage: 'Resizing' } } });
  assert.deepEqual(msgs(pvcStatusStrategy.validateUpdate!(bad, old, ctx)), [
    'status.allocatedResourceStatus[storage]: Unsupported value: "Resizing": supported values: "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"',
  ]);
  const canon = pvc({}, { status: { phase: 'Bound', allocatedResources: { storage: '4096Mi' } } });
  def.canonicalize!(canon);
  assert.deepEqual(canon.status?.allocatedResources, { storage: '4Gi' });
});

test('table rows', () => {
  const now = new Date('2024-01-01T00:05:00Z');
  assert.deepEqual(
    def.table!.columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Status:0', 'Volume:0', 'Capacity:0', 'Access Modes:0', 'StorageClass:0', 'VolumeAttributesClass:0', 'Age:0', 'VolumeMode:1'],
  );
  const pending = pvc({}, { status: { phase: 'Pending' } });
  assert.deepEqual(def.table!.cells(pending, now), ['task-pv-claim', 'Pending', '', '', '', 'manual', '<unset>', '5m', '<unset>']);
  const bound = pvc({ volumeName: 'task-pv-volume', volumeMode: 'Filesystem' }, { status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] } });
  assert.deepEqual(def.table!.cells(bound, now), ['task-pv-claim', 'Bound', 'task-pv-volume', '10Gi', 'RWO', 'manual', '<unset>', '5m', 'Filesystem']);
  assert.deepEqual(def.shortNames, ['pvc']);
});
