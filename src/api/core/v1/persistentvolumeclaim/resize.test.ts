/** The claim status helpers of an expansion (upstream MergeResizeConditionOnPVC and the resize status maps). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaimCondition } from 'kubernetes-types/core/v1.js';
import { mergeResizeConditions, resizeCondition, withConditions, withStorageResizeStatus } from './resize.js';

const T1 = '2025-01-01T00:00:00Z';
const T2 = '2025-01-01T00:01:00Z';
const other: PersistentVolumeClaimCondition = { type: 'ModifyingVolume', status: 'True' };

describe('PVC resize status helpers', () => {
  it('merges resize conditions as upstream: others kept, same type replaced, old resize ones kept only on request', () => {
    const old = [other, resizeCondition('Resizing', T1), resizeCondition('NodeResizeError', T1, 'x')];
    const pending = resizeCondition('FileSystemResizePending', T2, 'm');
    assert.deepEqual(
      mergeResizeConditions(old, [pending], false).map((c) => c.type),
      ['ModifyingVolume', 'FileSystemResizePending'],
    );
    assert.deepEqual(
      mergeResizeConditions(old, [pending], true).map((c) => c.type),
      ['ModifyingVolume', 'Resizing', 'NodeResizeError', 'FileSystemResizePending'],
    );
    // the external-resizer replaces a condition of the same type; the kubelet keeps it when its status is unchanged
    assert.equal(mergeResizeConditions(old, [resizeCondition('Resizing', T2)], true)[1]!.lastTransitionTime, T2);
    assert.equal(mergeResizeConditions(old, [resizeCondition('Resizing', T2)], true, true)[1]!.lastTransitionTime, T1);
    assert.deepEqual(mergeResizeConditions(old, [], false), [other]);
  });

  it('sets and clears allocatedResourceStatuses.storage, dropping empty maps and condition lists', () => {
    const st = withStorageResizeStatus({ capacity: { storage: '1Gi' } }, 'NodeResizePending');
    assert.deepEqual(st.allocatedResourceStatuses, { storage: 'NodeResizePending' });
    assert.deepEqual(withStorageResizeStatus(st, undefined), { capacity: { storage: '1Gi' } });
    assert.deepEqual(withStorageResizeStatus({ allocatedResourceStatuses: { storage: 'x', 'example.com/r': 'y' } }, undefined), {
      allocatedResourceStatuses: { 'example.com/r': 'y' },
    });
    assert.deepEqual(withConditions({ phase: 'Bound', conditions: [other] }, []), { phase: 'Bound' });
  });
});
