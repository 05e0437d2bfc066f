import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cidrContains, formatIP, parseCIDR, parseIP, specialKind } from './ip.js';

test('parse and format addresses', () => {
  assert.deepEqual(parseIP('10.96.0.1'), { family: 4, value: 0x0a600001n });
  assert.deepEqual(parseIP('010.096.000.001'), { family: 4, value: 0x0a600001n }, 'sloppy leading zeros');
  assert.equal(parseIP('256.0.0.1'), undefined);
  assert.equal(parseIP('1.2.3'), undefined);
  assert.deepEqual(parseIP('::ffff:127.0.0.1'), { family: 4, value: 0x7f000001n }, 'IPv4-mapped is IPv4');
  assert.equal(formatIP(parseIP('2001:0db8:0000:0000:0000:ff00:0042:8329')!), '2001:db8::ff00:42:8329');
  assert.equal(formatIP(parseIP('fd00::')!), 'fd00::');
  assert.equal(formatIP(parseIP('::1')!), '::1');
  assert.equal(formatIP(parseIP('1:0:0:2:0:0:0:3')!), '1:0:0:2::3', 'longest zero run');
  assert.equal(formatIP(parseIP('1:0:2:3:4:5:6:7')!), '1:0:2:3:4:5:6:7', 'single zero group not compressed');
  assert.equal(parseIP('1::2::3'), undefined);
  assert.equal(parseIP('fe80::1%eth0'), undefined);
});

test('CIDRs', () => {
  const c = parseCIDR('10.96.0.5/12');
  assert.equal(c.text, '10.96.0.0/12');
  assert.equal(c.size, 1n << 20n);
  assert.ok(cidrContains(c, parseIP('10.111.255.255')!));
  assert.ok(!cidrContains(c, parseIP('10.112.0.0')!));
  assert.equal(parseCIDR('fd00:10:96::/108').text, 'fd00:10:96::/108');
  assert.throws(() => parseCIDR('10.0.0.0'), /invalid CIDR address: 10.0.0.0/);
  assert.throws(() => parseCIDR('10.0.0.0/33'), /invalid CIDR address/);
});

test('special addresses', () => {
  const k = (s: string): string | undefined => specialKind(parseIP(s)!);
  assert.equal(k('0.0.0.0'), 'unspecified');
  assert.equal(k('::'), 'unspecified');
  assert.equal(k('127.1.2.3'), 'loopback');
  assert.equal(k('::1'), 'loopback');
  assert.equal(k('169.254.169.254'), 'link-local');
  assert.equal(k('fe80::1'), 'link-local');
  assert.equal(k('224.0.0.251'), 'link-local-multicast');
  assert.equal(k('ff02::1'), 'link-local-multicast');
  assert.equal(k('10.0.0.1'), undefined);
  assert.equal(k('224.0.1.1'), undefined);
});
