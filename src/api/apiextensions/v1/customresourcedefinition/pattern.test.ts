import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern, patternError } from './pattern.js';

describe('CRD schema pattern bounds', () => {
  it('accepts ordinary patterns, Go-only syntax included', () => {
    for (const p of ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', '^\\d{1,3}(\\.\\d{1,3}){3}$', '[a-z]{1,63}', '(?i)^abc$', '\\p{L}+', 'a|b|c']) {
      assert.equal(patternError(p), undefined, p);
    }
    assert.ok(compilePattern('^[a-z]{1,63}$')!.test('abc'));
    assert.equal(compilePattern('(?i)^abc$'), undefined); // not JavaScript: not checked
  });

  it('rejects repeat counts over 1000, nesting over 1000 and oversized expansions with Go texts', () => {
    assert.equal(patternError('a{1001}'), 'error parsing regexp: invalid repeat count: `{1001}`');
    assert.equal(patternError('a{2,1}'), 'error parsing regexp: invalid repeat count: `{2,1}`');
    assert.equal(patternError('('.repeat(1002) + ')'.repeat(1002)), 'error parsing regexp: expression nests too deeply');
    assert.equal(patternError('(?:(?:a{1000}){1000}){1000}'), 'error parsing regexp: expression too large');
    assert.equal(patternError('[^a]{1,300}'.repeat(400)), 'error parsing regexp: expression too large');
    assert.equal(patternError('x'.repeat(200_000)), 'error parsing regexp: expression too large');
    assert.equal(compilePattern('a{1001}'), undefined);
  });

  it('checks a megabyte pattern in linear time', () => {
    const t = process.hrtime.bigint();
    patternError('('.repeat(999) + 'a|'.repeat(300_000) + ')'.repeat(999));
    assert.ok(Number(process.hrtime.bigint() - t) / 1e6 < 2000);
  });
});
