import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoDuration } from './duration.js';

describe('parseGoDuration', () => {
  it('parses Go durations into milliseconds', () => {
    assert.equal(parseGoDuration('5m0s'), 300_000);
    assert.equal(parseGoDuration('1h0m0s'), 3_600_000);
    assert.equal(parseGoDuration('1.5h'), 5_400_000);
    assert.equal(parseGoDuration('300ms'), 300);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('2s'), 2000);
  });
  it('rejects what Go rejects, with its message', () => {
    for (const s of ['', '5', '5x', 'm', '1h 2m']) assert.throws(() => parseGoDuration(s), { message: `time: invalid duration ${JSON.stringify(s)}` });
  });
});
