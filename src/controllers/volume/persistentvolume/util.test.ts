import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { findMatchingVolume } from './util.js';

const pv = (name: string, size: string, extra: Partial<NonNullable<PersistentVolume['spec']>> = {}, labels?: Record<string, string>): PersistentVolume => ({
  metadata: { name, labels },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: 'slow', ...extra },
  status: { phase: 'Available' },
});
const claim = (spec: Partial<NonNullable<PersistentVolumeClaim['spec']>> = {}): PersistentVolumeClaim => ({
  metadata: { name: 'data', namespace: 'default', uid: 'u1' },
  spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'slow', resources: { requests: { storage: '1Gi' } }, ...spec },
});
const names = (v: PersistentVolume | undefined): string | undefined => v?.metadata?.name;

describe('findMatchingVolume (upstream FindMatchingVolume)', () => {
  it('the smallest available volume that is large enough, of the claim’s class, modes and volume mode', () => {
    const vols = [
      pv('big', '10Gi'),
      pv('small', '500Mi'),
      pv('fit', '2Gi'),
      pv('other-class', '1Gi', { storageClassName: 'fast' }),
      pv('rox', '1Gi', { accessModes: ['ReadOnlyMany'] }),
      pv('block', '1Gi', { volumeMode: 'Block' }),
    ];
    assert.equal(names(findMatchingVolume(claim(), vols, false)), 'fit');
    assert.equal(names(findMatchingVolume(claim({ accessModes: ['ReadOnlyMany'] }), vols, false)), 'rox');
    assert.equal(names(findMatchingVolume(claim({ volumeMode: 'Block' }), vols, false)), 'block');
    assert.equal(findMatchingVolume(claim({ resources: { requests: { storage: '20Gi' } } }), vols, false), undefined);
  });

  it('honours the selector, skips claimed volumes, and takes a volume pre-bound to the claim first', () => {
    const vols = [
      pv('a', '1Gi', {}, { tier: 'gold' }),
      pv('b', '1Gi', {}, { tier: 'silver' }),
      pv('mine', '5Gi', { claimRef: { namespace: 'default', name: 'data' } }),
      pv('theirs', '1Gi', { claimRef: { namespace: 'default', name: 'other', uid: 'x' } }),
    ];
    assert.equal(names(findMatchingVolume(claim({ selector: { matchLabels: { tier: 'silver' } } }), vols.slice(0, 2), false)), 'b');
    assert.equal(names(findMatchingVolume(claim(), vols, false)), 'mine');
    assert.equal(names(findMatchingVolume(claim(), [vols[3]!], false)), undefined);
  });

  it('delayed binding (WaitForFirstConsumer without a selected node): only pre-bound volumes', () => {
    assert.equal(findMatchingVolume(claim(), [pv('a', '1Gi')], true), undefined);
    assert.equal(names(findMatchingVolume(claim(), [pv('a', '1Gi', { claimRef: { namespace: 'default', name: 'data', uid: 'u1' } })], true)), 'a');
  });
});
