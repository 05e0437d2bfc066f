import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatKlogLine, KLogger, kObj, Verbosity } from './klog.js';

describe('klog-style logging', () => {
  test('the text format: header, quoted message, key=value pairs', () => {
    const ms = new Date(2026, 11, 1, 13, 37, 43, 768).getTime(); // local time, as klog
    assert.equal(
      formatKlogLine('I', ms, 3854, 'schedule_one.ts:296', 'Successfully bound pod to node', { pod: 'default/nginx', node: 'n1', evaluatedNodes: 1, ok: true, skipped: undefined }),
      'I1201 13:37:43.768000    3854 schedule_one.ts:296] "Successfully bound pod to node" pod="default/nginx" node="n1" evaluatedNodes=1 ok=true',
    );
    assert.equal(formatKlogLine('E', ms, 1, 'x.ts:1', 'failed', { err: 'boom "q"' }), 'E1201 13:37:43.768000       1 x.ts:1] "failed" err="boom \\"q\\""');
  });

  test('V(n) lines appear only at verbosity n or more; the verbosity changes at run time', () => {
    const lines: string[] = [];
    const v = new Verbosity(0);
    const log = new KLogger({ write: (l) => lines.push(l), verbosity: v, now: () => 0, pid: 7 });
    log.V(2).info('hidden');
    log.info('shown');
    assert.equal(v.set('2'), 'successfully set klog.logging.verbosity to 2');
    log.V(2).info('now shown', { pod: kObj({ metadata: { namespace: 'default', name: 'p' } }) });
    log.error(new Error('bad'), 'oops', { pod: 'default/p' });
    assert.deepEqual(
      lines.map((l) => l.replace(/^(\w)\S+ \S+ +7 (\S+):\d+\]/, '$1 $2]')),
      ['I klog.test.ts] "shown"', 'I klog.test.ts] "now shown" pod="default/p"', 'E klog.test.ts] "oops" err="bad" pod="default/p"'],
    );
  });

  test('Verbosity.set refuses what klog cannot parse, with its message', () => {
    const v = new Verbosity(3);
    assert.throws(() => v.set('x'), { message: 'failed set klog.logging.verbosity x: strconv.ParseInt: parsing "x": invalid syntax' });
    assert.throws(() => v.set('2\n'), { message: 'failed set klog.logging.verbosity 2\n: strconv.ParseInt: parsing "2\\n": invalid syntax' });
    assert.throws(() => v.set('99999999999'), /value out of range/);
    assert.equal(v.level, 3);
  });
});
