import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareKeys, prefixEnd } from './keys.js';

/** Code-point order, computed the slow, obviously right way. */
function byCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

describe('prefixEnd', () => {
  it('increments the last code point', () => {
    assert.equal(prefixEnd('/registry/pods/'), '/registry/pods0');
    assert.equal(prefixEnd('a'), 'b');
    assert.equal(prefixEnd('a\ud7ff'), 'a\ue000', 'skips the surrogate range');
    assert.equal(prefixEnd('a\u{1f600}'), 'a\u{1f601}');
    assert.equal(prefixEnd('a\u{10ffff}'), 'b', 'carries past the last code point');
  });

  it('has no bound for the empty prefix or only U+10FFFF', () => {
    assert.equal(prefixEnd(''), undefined);
    assert.equal(prefixEnd('\u{10ffff}\u{10ffff}'), undefined);
  });

  it('bounds exactly the keys under the prefix', () => {
    const prefix = '/r/x';
    const end = prefixEnd(prefix)!;
    for (const k of ['/r/x', '/r/x/', '/r/xy', '/r/x\u{10ffff}', '/r/x\uffff']) assert.ok(compareKeys(k, end) < 0, k);
    for (const k of ['/r/y', '/r/y/', '/r/z']) assert.ok(compareKeys(k, end) >= 0, k);
  });
});

describe('compareKeys', () => {
  it('orders by code point (as SQLite orders UTF-8), not by UTF-16 unit', () => {
    const keys = ['a', 'ab', 'b', '', 'a\uffff', 'a\u{10000}', 'a\ue000', 'a\u{1f600}z', 'a\u00e9', 'A'];
    const sorted = [...keys].sort(compareKeys);
    assert.deepEqual(sorted, [...keys].sort(byCodePoints));
    assert.ok(compareKeys('\uffff', '\u{10000}') < 0, 'U+FFFF before U+10000, unlike "<" on JS strings');
    assert.equal(compareKeys('abc', 'abc'), 0);
  });
});
