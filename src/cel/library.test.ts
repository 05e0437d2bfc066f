/**
 * The Kubernetes CEL libraries, with upstream's results and error texts
 * (cases after upstream's library tests).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compile } from './index.js';

function ev(expr: string, activation: Record<string, unknown> = {}): unknown {
  const r = compile(expr, { variables: Object.keys(activation).map((name) => ({ name })) });
  if (!r.program) throw r.error;
  const out = r.program.evaluate(activation);
  if (out.error) return `error: ${out.error.detail}`;
  return out.value;
}

describe('CEL: ip and cidr libraries', () => {
  it('parses and classifies addresses', () => {
    assert.equal(ev('ip("192.168.0.1").family()'), 4n);
    assert.equal(ev('ip("2001:db8::68").family()'), 6n);
    assert.equal(ev('isIP("1.2.3.4")'), true);
    assert.equal(ev('isIP("1.2.3")'), false);
    assert.equal(ev('ip("127.0.0.1").isLoopback()'), true);
    assert.equal(ev('ip("::1").isLoopback()'), true);
    assert.equal(ev('ip("0.0.0.0").isUnspecified()'), true);
    assert.equal(ev('ip("224.0.0.1").isLinkLocalMulticast()'), true);
    assert.equal(ev('ip("ff02::1").isLinkLocalMulticast()'), true);
    assert.equal(ev('ip("169.254.1.1").isLinkLocalUnicast()'), true);
    assert.equal(ev('ip("fe80::1").isLinkLocalUnicast()'), true);
    assert.equal(ev('ip("10.0.0.1").isGlobalUnicast()'), true);
    assert.equal(ev('ip("255.255.255.255").isGlobalUnicast()'), false);
    assert.equal(ev('string(ip("2001:0db8:0000:0000:0000:0000:0000:0068"))'), '2001:db8::68');
    assert.equal(ev('ip.isCanonical("2001:db8::68")'), true);
    assert.equal(ev('ip.isCanonical("2001:DB8::68")'), false);
    assert.equal(ev('ip("1.2.3.4") == ip("1.2.3.4")'), true);
  });
  it('reports upstream parse errors', () => {
    assert.equal(ev('ip("192.168.0.1.0")'), 'error: IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long');
    assert.equal(ev('ip("1.2.3")'), 'error: IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short');
    assert.equal(ev('ip("fe80::1%en0")'), 'error: IP address "fe80::1%en0" with zone value is not allowed');
    assert.equal(ev('ip("::ffff:1.2.3.4")'), 'error: IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
    assert.equal(ev('ip("010.0.0.1")'), 'error: IP Address "010.0.0.1" parse error during conversion from string: ParseAddr("010.0.0.1"): IPv4 field has octet with leading zero');
  });
  it('handles prefixes', () => {
    assert.equal(ev('cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))'), true);
    assert.equal(ev('cidr("192.168.0.0/24").containsIP("192.168.1.1")'), false);
    assert.equal(ev('cidr("192.168.0.0/16").containsCIDR("192.168.10.0/24")'), true);
    assert.equal(ev('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/16"))'), false);
    assert.equal(ev('string(cidr("192.168.0.1/24").masked())'), '192.168.0.0/24');
    assert.equal(ev('cidr("192.168.0.1/24").prefixLength()'), 24n);
    assert.equal(ev('string(cidr("192.168.0.1/24").ip())'), '192.168.0.1');
    assert.equal(ev('cidr("2001:db8::/32").containsIP("2001:db8::1")'), true);
    assert.equal(ev('isCIDR("10.0.0.0/33")'), false);
    assert.equal(ev('cidr("10.0.0.0")'), 'error: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no \'/\'');
  });
});

describe('CEL: quantity library', () => {
  it('compares and computes exactly', () => {
    assert.equal(ev('quantity("1Gi").isGreaterThan(quantity("1G"))'), true);
    assert.equal(ev('quantity("500m").isLessThan(quantity("1"))'), true);
    assert.equal(ev('quantity("1Ki").compareTo(quantity("1024"))'), 0n);
    assert.equal(ev('quantity("1.5").isInteger()'), false);
    assert.equal(ev('quantity("1k").asInteger()'), 1000n);
    assert.equal(ev('quantity("1.5").asInteger()'), 'error: cannot convert value to integer');
    assert.equal(ev('quantity("50M").asApproximateFloat()'), 50_000_000);
    assert.equal(ev('quantity("-1").sign()'), -1n);
    assert.equal(ev('quantity("1Gi").add(quantity("1Gi")) == quantity("2Gi")'), true);
    assert.equal(ev('quantity("1").sub(1).sign()'), 0n);
    assert.equal(ev('isQuantity("1Zi")'), false);
    assert.equal(ev('quantity("x")'), "error: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });
});

describe('CEL: lists, sets, regex, strings', () => {
  it('lists', () => {
    assert.equal(ev('[1, 2, 3].isSorted()'), true);
    assert.equal(ev('["b", "a"].isSorted()'), false);
    assert.equal(ev('[1, 2, 3].sum()'), 6n);
    assert.equal(ev('[1.5, 2.0].sum()'), 3.5);
    assert.equal(ev('[3, 1, 2].min()'), 1n);
    assert.equal(ev('[3, 1, 2].max()'), 3n);
    assert.equal(ev('x.min()', { x: [] }), 'error: min called on empty list');
    assert.equal(ev('[1, 2, 1].indexOf(1)'), 0n);
    assert.equal(ev('[1, 2, 1].lastIndexOf(1)'), 2n);
    assert.equal(ev('["a"].indexOf("b")'), -1n);
  });
  it('sets', () => {
    assert.equal(ev('sets.contains([1, 2, 3], [2, 3])'), true);
    assert.equal(ev('sets.equivalent([1, 2], [2, 1, 1])'), true);
    assert.equal(ev('sets.intersects([1], [2])'), false);
  });
  it('regex (RE2)', () => {
    assert.equal(ev('"abc 123".find("[0-9]+")'), '123');
    assert.deepEqual(ev('"123 abc 456".findAll("[0-9]+")'), ['123', '456']);
    assert.deepEqual(ev('"123 abc 456".findAll("[0-9]+", 1)'), ['123']);
    assert.equal(ev('"abc".find("x")'), '');
    assert.equal(ev('"abc".matches("^a.c$")'), true);
    assert.equal(ev('"abc".matches("[")'), 'error: error parsing regexp: missing closing ]: `[`');
    assert.equal(ev('"aa".matches("(a)\\\\1")'), 'error: error parsing regexp: invalid escape sequence: `\\1`');
  });
  it('strings extension', () => {
    assert.equal(ev('"hello".charAt(1)'), 'e');
    assert.equal(ev('"a-b-c".replace("-", "+")'), 'a+b+c');
    assert.equal(ev('"a-b-c".replace("-", "+", 1)'), 'a+b-c');
    assert.equal(ev('"%s has %d items".format(["x", "3"].map(s, dyn(s)))'), 'error: error during formatting: decimal clause can only be used on integers, was given string');
    assert.equal(ev('"%d items".format([3])'), '3 items');
    assert.equal(ev('"%.2f".format([1.2345])'), '1.23');
    assert.equal(ev('strings.quote("a\\nb")'), '"a\\nb"');
    assert.equal(ev('["a", "b"].join(",")'), 'a,b');
  });
});

describe('CEL: compile errors, runtime errors and cost as upstream words them', () => {
  it('undeclared references and overloads', () => {
    const r = compile('foo == 1', { variables: [{ name: 'object' }] });
    assert.equal(r.error?.detail, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^");
    assert.match(compile('1 + "a"', { variables: [] }).error?.detail ?? '', /found no matching overload for '_\+_' applied to '\(int, string\)'/);
  });
  it('missing keys and division by zero', () => {
    assert.equal(ev('object.spec.x', { object: { spec: {} } }), 'error: no such key: x');
    assert.equal(ev('object.a / 0', { object: { a: 1 } }), 'error: division by zero');
    assert.equal(ev('has(object.spec.x)', { object: { spec: {} } }), false);
    assert.equal(ev('object.?spec.?x.orValue(5)', { object: { spec: {} } }), 5n);
  });
  it('stops at the cost limit', () => {
    const r = compile('x.all(a, x.all(b, x.all(c, a + b + c >= 0)))', { variables: [{ name: 'x' }] });
    const x = Array.from({ length: 40 }, (_, i) => i);
    const out = r.program!.evaluate({ x }, { costLimit: 10_000 });
    assert.equal(out.error?.detail, 'operation cancelled: actual cost limit exceeded');
    const ok = r.program!.evaluate({ x: [1, 2] });
    assert.equal(ok.value, true);
    assert.ok(ok.cost > 8 && ok.cost < 200, `cost ${ok.cost}`);
  });
  it('refuses a non-bool result where bool is required', () => {
    assert.equal(compile('"a"', { variables: [], resultTypes: ['bool'] }).error?.detail, 'must evaluate to bool but got string');
  });
});
