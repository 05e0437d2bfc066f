import { test } from 'node:test';
import assert from 'node:assert/strict';
import { perl, piDigits } from './commands-perl.js';
import type { CmdCtx } from './shell-io.js';
import { stringStdin } from './stdin.js';

/** Pi to 1010 decimals (from `bc -l`: `scale=2020; 4*a(1)`, truncated), the reference for bpi. */
const PI_1010 =
  '3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706' +
  '7982148086513282306647093844609550582231725359408128481117450284102701938521105559644622948954930381' +
  '9644288109756659334461284756482337867831652712019091456485669234603486104543266482133936072602491412' +
  '7372458700660631558817488152092096282925409171536436789259036001133053054882046652138414695194151160' +
  '9433057270365759591953092186117381932611793105118548074462379962749567351885752724891227938183011949' +
  '1298336733624406566430860213949463952247371907021798609437027705392171762931767523846748184676694051' +
  '3200056812714526356082778577134275778960917363717872146844090122495343014654958537105079227968925892' +
  '3542019956112129021960864034418159813629774771309960518707211349999998372978049951059731732816096318' +
  '5950244594553469083026425223082533446850352619311881710100031378387528865875332083814206171776691473' +
  '0359825349042875546873115956286388235378759375195778185778053217122680661300192787661119590921642019' +
  '893809525720';

/** bpi(n) of the reference: n significant digits, rounded half to even at digit n. */
function refRound(n: number): string {
  const digits = PI_1010.replace('.', '');
  let q = BigInt(digits.slice(0, n));
  const rest = digits.slice(n);
  if (rest[0]! > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || q % 2n === 1n))) q += 1n;
  const s = q.toString();
  return n === 1 ? s : `${s[0]}.${s.slice(1)}`;
}

test('piDigits matches pi to n significant digits, rounded at the last one (bpi)', () => {
  assert.equal(PI_1010.length, 1012);
  assert.ok(PI_1010.startsWith('3.14159265358979323846264338327950288419716939937510'));
  for (const n of [1, 2, 3, 10, 50, 77, 100, 500, 999, 1000]) assert.equal(piDigits(n), refRound(n), `n=${n}`);
  assert.equal(piDigits(3), '3.14');
  assert.equal(piDigits(5), '3.1416', 'rounded up: 3.14159…');
  assert.equal(piDigits(1000).length, 1001);
  assert.ok(piDigits(1000).endsWith('1195909216420199'), 'the 1001st digit is a 9: the 1000th rounds up');
  assert.ok(piDigits(2000).startsWith(PI_1010.slice(0, 1000)));
  assert.throws(() => piDigits(0), RangeError);
});

function ctx(): { c: CmdCtx; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const c = { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) }, stdin: stringStdin('') } as unknown as CmdCtx;
  return { c, out: () => out, err: () => err };
}

test('perl: the Job example prints bpi(N) (-l adds the newline); anything else is refused with 255', async () => {
  const a = ctx();
  assert.equal(await perl(['-Mbignum=bpi', '-wle', 'print bpi(10)'], a.c), 0);
  assert.equal(a.out(), '3.141592654\n');
  const b = ctx();
  assert.equal(await perl(['-Mbignum=bpi', '-e', 'print bpi(3);'], b.c), 0);
  assert.equal(b.out(), '3.14');
  const x = ctx();
  assert.equal(await perl(['-e', 'print "hello\\n"'], x.c), 255);
  assert.equal(x.out(), '');
  assert.match(x.err(), /supports only .*bpi/);
  const y = ctx();
  assert.equal(await perl(['script.pl'], y.c), 255);
});
