import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { csiAccessModeOf } from './access-modes.js';

describe('csiAccessModeOf', () => {
  it('maps each PersistentVolumeAccessMode to its CSI access mode, SINGLE_NODE_WRITER otherwise', () => {
    assert.equal(csiAccessModeOf('ReadWriteOnce'), 'SINGLE_NODE_WRITER');
    assert.equal(csiAccessModeOf('ReadOnlyMany'), 'MULTI_NODE_READER_ONLY');
    assert.equal(csiAccessModeOf('ReadWriteMany'), 'MULTI_NODE_MULTI_WRITER');
    assert.equal(csiAccessModeOf('ReadWriteOncePod'), 'SINGLE_NODE_SINGLE_WRITER');
    assert.equal(csiAccessModeOf(undefined), 'SINGLE_NODE_WRITER');
    assert.equal(csiAccessModeOf(''), 'SINGLE_NODE_WRITER');
  });
});
