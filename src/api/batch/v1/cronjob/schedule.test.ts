import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSchedule } from './schedule.js';

test('next(): minutes above 40 and every minute (the * marker does not collide with minute bits)', () => {
  const at = (spec: string, from: string): string => new Date(parseSchedule(spec).next(Date.parse(from))!).toISOString();
  assert.equal(at('* * * * *', '2026-11-30T09:58:10Z'), '2026-11-30T09:59:00.000Z');
  assert.equal(at('40 * * * *', '2026-11-30T09:58:10Z'), '2026-11-30T10:40:00.000Z');
  assert.equal(at('59 23 * * *', '2026-11-30T09:58:10Z'), '2026-11-30T23:59:00.000Z');
  assert.equal(at('*/15 * * * *', '2026-11-30T09:58:10Z'), '2026-11-30T10:00:00.000Z');
  assert.equal(at('0 0 1 * mon', '2026-11-30T09:58:10Z'), '2026-12-01T00:00:00.000Z');
  assert.equal(at('0 0 * * mon', '2026-11-30T09:58:10Z'), '2026-12-07T00:00:00.000Z');
});
