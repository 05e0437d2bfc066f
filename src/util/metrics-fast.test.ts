import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FastCounter, FastHistogram } from './metrics-fast.js';

describe('metrics-fast label children', () => {
  it('resolves one child per label set, whatever string objects carry the values', async () => {
    const c = new FastCounter('x_total', 'help', ['result', 'profile']);
    const a = c.labels('scheduled', 'default-scheduler');
    assert.equal(c.labels('scheduled', ['default', 'scheduler'].join('-')), a);
    // values that would collide if joined naively stay apart
    const b = c.labels('a\x00b', 'c');
    const d = c.labels('a', 'b\x00c');
    assert.notEqual(b, d);
    a.inc();
    a.inc(2);
    b.inc();
    const data = await c.get();
    const byLabels = new Map(data.values.map((v) => [JSON.stringify(v.labels), v.value]));
    assert.equal(byLabels.get(JSON.stringify({ result: 'scheduled', profile: 'default-scheduler' })), 3);
    assert.equal(byLabels.get(JSON.stringify({ result: 'a\x00b', profile: 'c' })), 1);
    assert.equal(c.total(), 4);
  });

  it('histogram children by one label and without labels', async () => {
    const h = new FastHistogram('y_seconds', 'help', ['attempts'], [1, 2]);
    h.labels('1').observe(0.5);
    h.labels(String(1)).observe(1.5);
    h.labels('2').observe(3);
    const data = await h.get();
    const count = (attempts: string) => data.values.find((v) => v.metricName === 'y_seconds_count' && v.labels.attempts === attempts)?.value;
    assert.equal(count('1'), 2);
    assert.equal(count('2'), 1);
    const u = new FastHistogram('z_seconds', 'help', [], [1]);
    u.observe(0.1);
    assert.equal((await u.get()).values.find((v) => v.metricName === 'z_seconds_count')?.value, 1);
  });
});
