import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Snapshot } from '../framework/snapshot.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { Cache } from './cache.js';

describe('scheduler Cache', () => {
  const clock = {
    t: 0,
    now() {
      return this.t;
    },
  };

  it('assumes, confirms and forgets pods', () => {
    const c = new Cache(clock);
    c.addNode(makeNode().name('n1').obj());
    const p = makePod().name('p').req({ cpu: '500m' }).node('n1').obj();
    c.assumePod(p);
    assert.equal(c.isAssumedPod(p), true);
    assert.equal(c.nodeInfo('n1')!.requested.milliCPU, 500);
    assert.throws(() => c.assumePod(p), /can't be assumed/);
    c.addPod(p); // bound pod seen
    assert.equal(c.isAssumedPod(p), false);
    assert.equal(c.nodeInfo('n1')!.requested.milliCPU, 500);
    assert.throws(() => c.forgetPod(p), /wasn't assumed/);
    c.removePod(p);
    assert.equal(c.nodeInfo('n1')!.requested.milliCPU, 0);

    const q = makePod().name('q').req({ cpu: '1' }).node('n1').obj();
    c.assumePod(q);
    c.forgetPod(q);
    assert.equal(c.nodeInfo('n1')!.pods.length, 0);
  });

  it('a bound pod landing elsewhere than assumed moves', () => {
    const c = new Cache(clock);
    c.addNode(makeNode().name('n1').obj());
    c.addNode(makeNode().name('n2').obj());
    c.assumePod(makePod().name('p').req({ cpu: '1' }).node('n1').obj());
    c.addPod(makePod().name('p').req({ cpu: '1' }).node('n2').obj());
    assert.equal(c.nodeInfo('n1')!.requested.milliCPU, 0);
    assert.equal(c.nodeInfo('n2')!.requested.milliCPU, 1000);
  });

  it('expires assumed pods only with a TTL, after binding finished', () => {
    const c = new Cache(clock, 30_000);
    c.addNode(makeNode().name('n1').obj());
    const p = makePod().name('p').node('n1').obj();
    c.assumePod(p);
    clock.t = 100_000;
    assert.deepEqual(c.cleanupExpiredAssumedPods(), [], 'binding not finished');
    c.finishBinding(p);
    clock.t += 29_000;
    assert.deepEqual(c.cleanupExpiredAssumedPods(), []);
    clock.t += 2_000;
    assert.equal(c.cleanupExpiredAssumedPods().length, 1);
    assert.equal(c.isAssumedPod(p), false);
    const never = new Cache(clock);
    never.addNode(makeNode().name('n1').obj());
    never.assumePod(p);
    never.finishBinding(p);
    clock.t += 10 ** 9;
    assert.deepEqual(never.cleanupExpiredAssumedPods(), []);
  });

  it('updates snapshots incrementally by generation', () => {
    const c = new Cache(clock);
    for (const n of ['a', 'b', 'c']) c.addNode(makeNode().name(n).obj());
    const s = new Snapshot();
    c.updateSnapshot(s);
    assert.deepEqual(
      s
        .list()
        .map((n) => n.name)
        .sort(),
      ['a', 'b', 'c'],
    );
    const before = new Map(s.list().map((n) => [n.name, n]));
    c.assumePod(makePod().name('p').req({ cpu: '1' }).node('b').obj());
    c.updateSnapshot(s);
    assert.equal(s.get('a'), before.get('a'), 'unchanged node not copied');
    assert.notEqual(s.get('b'), before.get('b'), 'changed node copied');
    assert.equal(s.get('b')!.requested.milliCPU, 1000);
    assert.equal(before.get('b')!.requested.milliCPU, 0, 'old snapshot copy untouched');
    assert.equal(
      s.list().find((n) => n.name === 'b'),
      s.get('b'),
      'list refreshed',
    );
    c.removeNode(makeNode().name('a').obj());
    c.addNode(makeNode().name('d').obj());
    c.updateSnapshot(s);
    assert.deepEqual(
      s
        .list()
        .map((n) => n.name)
        .sort(),
      ['b', 'c', 'd'],
    );
    assert.equal(s.get('a'), undefined);
  });

  it('interleaves zones in the node list', () => {
    const c = new Cache(clock);
    c.addNode(makeNode().name('a1').label('topology.kubernetes.io/zone', 'a').obj());
    c.addNode(makeNode().name('a2').label('topology.kubernetes.io/zone', 'a').obj());
    c.addNode(makeNode().name('b1').label('topology.kubernetes.io/zone', 'b').obj());
    const s = new Snapshot();
    c.updateSnapshot(s);
    assert.deepEqual(
      s.list().map((n) => n.name),
      ['a1', 'b1', 'a2'],
    );
  });
});
