import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EndpointSlice } from './reconciler.js';
import { EndpointSliceTracker } from './tracker.js';

const slice = (uid: string, generation: number): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: `web-${uid}`, namespace: 'default', uid, generation, labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  endpoints: [],
});

describe('EndpointSliceTracker', () => {
  it('stale while a written slice is missing or older in the cache, or a deleted one still there', () => {
    const t = new EndpointSliceTracker();
    assert.equal(t.staleSlices('default/web', []), false, 'nothing tracked');
    t.update(slice('a', 2));
    assert.equal(t.staleSlices('default/web', []), true, 'our new slice not in the cache yet');
    assert.equal(t.staleSlices('default/web', [slice('a', 1)]), true, 'cache holds an older generation');
    assert.equal(t.staleSlices('default/web', [slice('a', 2)]), false);
    t.expectDeletion(slice('a', 2));
    assert.equal(t.staleSlices('default/web', [slice('a', 2)]), true, 'deleted slice still cached');
    assert.equal(t.staleSlices('default/web', []), false);
  });

  it('only changes by others call for a sync; unexpected deletions too', () => {
    const t = new EndpointSliceTracker();
    assert.equal(t.shouldSync(slice('a', 1)), true, 'unknown slice');
    t.update(slice('a', 1));
    assert.equal(t.shouldSync(slice('a', 1)), false, 'our own write');
    assert.equal(t.shouldSync(slice('a', 2)), true, 'someone else changed it');
    assert.equal(t.has(slice('a', 1)), true);
    assert.equal(t.handleDeletion(slice('a', 1)), false, 'deleted by someone else');
    assert.equal(t.has(slice('a', 1)), false);
    t.update(slice('b', 1));
    t.expectDeletion(slice('b', 1));
    assert.equal(t.handleDeletion(slice('b', 1)), true, 'our own deletion');
    t.update(slice('c', 1));
    t.deleteService('default/web');
    assert.equal(t.staleSlices('default/web', []), false);
  });
});
