import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InterruptError } from './shell-io.js';
import { StreamStdin, stringStdin } from './stdin.js';
import { onlcr, TtyLineDiscipline } from './tty.js';

function tty() {
  const stdin = new StreamStdin();
  let echoed = '';
  let interrupts = 0;
  const ld = new TtyLineDiscipline({ echo: (t) => (echoed += t), stdin, interrupt: () => interrupts++ });
  return { stdin, ld, echoed: () => echoed, interrupts: () => interrupts };
}

test('canonical mode: echo, Enter (CR) completes a line, Backspace and Ctrl-U edit it, escape sequences are swallowed', async () => {
  const t = tty();
  t.ld.input('ecx\x7fho hi\x1b[A\r');
  assert.equal(await t.stdin.line(), 'echo hi');
  assert.equal(t.echoed(), 'ecx\b \bho hi\r\n');
  t.ld.input('junk\x15ls\n');
  assert.equal(await t.stdin.line(), 'ls');
});

test('Ctrl-D: end of input for the current reader only; inside a line it hands the line over', async () => {
  const t = tty();
  const all = t.stdin.text();
  t.ld.input('a\rb\r\x04');
  assert.equal(await all, 'a\nb\n');
  t.ld.input('next\r');
  assert.equal(await t.stdin.line(), 'next', 'reads go on after a Ctrl-D');
  t.ld.input('part\x04');
  t.ld.input('\x04');
  assert.equal(await t.stdin.line(), 'part');
  assert.equal(await t.stdin.line(), undefined);
});

test('Ctrl-C echoes ^C, drops the line and interrupts', () => {
  const t = tty();
  t.ld.input('sleep 5\x03');
  assert.equal(t.echoed(), 'sleep 5^C\r\n');
  assert.equal(t.interrupts(), 1);
});

test('stdin: a waiting reader fails on interrupt, later reads go on; a killed process never reads again', async () => {
  const s = new StreamStdin();
  const r = s.line();
  s.fail(new InterruptError());
  await assert.rejects(r, InterruptError);
  s.push('x\n');
  assert.equal(await s.line(), 'x');
  s.fail(new Error('killed'), true);
  await assert.rejects(s.text(), /killed/);
  const str = stringStdin('a\nb');
  assert.deepEqual([await str.line(), await str.line(), await str.line()], ['a', 'b', undefined]);
  assert.equal(onlcr('a\nb\r\n'), 'a\r\nb\r\n');
});
