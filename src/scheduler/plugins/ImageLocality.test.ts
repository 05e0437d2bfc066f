import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cache } from '../cache/cache.js';
import { Snapshot } from '../framework/snapshot.js';
import { scoreNodes, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { calculatePriority, MIN_THRESHOLD, New, normalizedImageName } from './ImageLocality.js';

const MB = 1024 * 1024;

describe('ImageLocality', () => {
  it('normalizes image names without a tag', () => {
    assert.equal(normalizedImageName('nginx'), 'nginx:latest');
    assert.equal(normalizedImageName('gcr.io/x/nginx:1.2'), 'gcr.io/x/nginx:1.2');
    assert.equal(normalizedImageName('localhost:5000/nginx'), 'localhost:5000/nginx:latest');
  });

  it('scores by image size scaled by spread, clamped between 23 MiB and 1000 MiB per container', () => {
    assert.equal(calculatePriority(0, 1), 0);
    assert.equal(calculatePriority(MIN_THRESHOLD, 1), 0);
    assert.equal(calculatePriority(1000 * MB, 1), 100);
    assert.equal(calculatePriority(5000 * MB, 1), 100);
    assert.equal(calculatePriority(250 * MB, 1), Math.trunc((100 * (250 * MB - MIN_THRESHOLD)) / (1000 * MB - MIN_THRESHOLD)));
  });

  it('favors the node that has the image (node.status.images through the cache)', () => {
    const cache = new Cache({ now: () => 0 });
    const withImg = makeNode().name('a').obj();
    withImg.status!.images = [{ names: ['registry.k8s.io/big:1.0'], sizeBytes: 500 * MB }];
    cache.addNode(withImg);
    cache.addNode(makeNode().name('b').obj());
    const snap = new Snapshot();
    cache.updateSnapshot(snap);
    const pl = New(undefined, testHandle(snap));
    const scores = scoreNodes(pl, makePod().image('registry.k8s.io/big:1.0').obj(), snap.list());
    // 500 MiB on 1 of 2 nodes: 250 MiB effective
    const byName = Object.fromEntries(snap.list().map((ni, i) => [ni.name, scores[i]]));
    assert.deepEqual(byName, { a: calculatePriority(250 * MB, 1), b: 0 });
  });
});
