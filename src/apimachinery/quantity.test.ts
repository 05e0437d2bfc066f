// Cases ported from upstream apimachinery/pkg/api/resource/quantity_test.go (v0.32.0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addQuantity,
  canonicalizeQuantityString,
  compareQuantity,
  formatQuantity,
  milliValue,
  mulQuantity,
  negQuantity,
  newScaledQuantity,
  parseQuantity,
  parseQuantityJSON,
  QuantityParseError,
  QUANTITY_ERR_FORMAT,
  QUANTITY_ERR_SUFFIX,
  roundUpQuantity,
  scaledValue,
  subQuantity,
  value,
  type Quantity,
  type QuantityFormat,
} from './quantity.js';

const dq = (m: number | bigint, scale: number, format: QuantityFormat): Quantity => ({ mantissa: BigInt(m), scale, format });
const MAX = (1n << 63n) - 1n;

test('canonical strings from the brief', () => {
  const cases: [string, string][] = [
    ['0.1', '100m'],
    ['1000m', '1'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['100M', '100M'],
    ['1e3', '1e3'], // DecimalExponent keeps its format upstream
    ['1.5', '1500m'],
    ['0.5', '500m'],
    ['128974848', '128974848'],
    ['129e6', '129e6'],
    ['129M', '129M'],
    ['123Mi', '123Mi'],
    ['2Gi', '2Gi'],
    ['500Mi', '500Mi'],
    ['250m', '250m'],
    ['1', '1'],
    ['2000m', '2'],
    ['1200m', '1200m'],
    ['0.001', '1m'],
    ['+1Ki', '+1Ki'], // canonical input kept verbatim, sign and all
    ['10Gi', '10Gi'],
  ];
  for (const [inp, want] of cases) assert.equal(canonicalizeQuantityString(inp), want, inp);
});

const parseTable: [string, Quantity][] = [
  ['0', dq(0, 0, 'DecimalSI')],
  ['0n', dq(0, 0, 'DecimalSI')],
  ['0u', dq(0, 0, 'DecimalSI')],
  ['0m', dq(0, 0, 'DecimalSI')],
  ['0Ki', dq(0, 0, 'BinarySI')],
  ['0k', dq(0, 0, 'DecimalSI')],
  ['0Mi', dq(0, 0, 'BinarySI')],
  ['0M', dq(0, 0, 'DecimalSI')],
  ['0Gi', dq(0, 0, 'BinarySI')],
  ['0G', dq(0, 0, 'DecimalSI')],
  ['0Ti', dq(0, 0, 'BinarySI')],
  ['0T', dq(0, 0, 'DecimalSI')],
  ['1', dq(1, 0, 'DecimalSI')],
  ['1Ki', dq(1024, 0, 'BinarySI')],
  ['8Ki', dq(8 * 1024, 0, 'BinarySI')],
  ['7Mi', dq(7 * 1024 * 1024, 0, 'BinarySI')],
  ['6Gi', dq(6n * 1024n ** 3n, 0, 'BinarySI')],
  ['5Ti', dq(5n * 1024n ** 4n, 0, 'BinarySI')],
  ['4Pi', dq(4n * 1024n ** 5n, 0, 'BinarySI')],
  ['3Ei', dq(3n * 1024n ** 6n, 0, 'BinarySI')],
  ['10Ti', dq(10n * 1024n ** 4n, 0, 'BinarySI')],
  ['100Ti', dq(100n * 1024n ** 4n, 0, 'BinarySI')],
  ['5n', dq(5, -9, 'DecimalSI')],
  ['4u', dq(4, -6, 'DecimalSI')],
  ['3m', dq(3, -3, 'DecimalSI')],
  ['9', dq(9, 0, 'DecimalSI')],
  ['8k', dq(8, 3, 'DecimalSI')],
  ['50k', dq(5, 4, 'DecimalSI')],
  ['7M', dq(7, 6, 'DecimalSI')],
  ['6G', dq(6, 9, 'DecimalSI')],
  ['5T', dq(5, 12, 'DecimalSI')],
  ['40T', dq(4, 13, 'DecimalSI')],
  ['300T', dq(3, 14, 'DecimalSI')],
  ['2P', dq(2, 15, 'DecimalSI')],
  ['1E', dq(1, 18, 'DecimalSI')],
  ['1E-3', dq(1, -3, 'DecimalExponent')],
  ['1e3', dq(1, 3, 'DecimalExponent')],
  ['1E6', dq(1, 6, 'DecimalExponent')],
  ['1e9', dq(1, 9, 'DecimalExponent')],
  ['1E12', dq(1, 12, 'DecimalExponent')],
  ['1e15', dq(1, 15, 'DecimalExponent')],
  ['1E18', dq(1, 18, 'DecimalExponent')],
  ['1e14', dq(1, 14, 'DecimalExponent')],
  ['1e13', dq(1, 13, 'DecimalExponent')],
  ['100.035k', dq(100035, 0, 'DecimalSI')],
  ['0.001', dq(1, -3, 'DecimalSI')],
  ['0.0005k', dq(5, -1, 'DecimalSI')],
  ['0.005', dq(5, -3, 'DecimalSI')],
  ['0.05', dq(5, -2, 'DecimalSI')],
  ['0.5', dq(5, -1, 'DecimalSI')],
  ['0.00050k', dq(5, -1, 'DecimalSI')],
  ['0.00500', dq(5, -3, 'DecimalSI')],
  ['0.05000', dq(5, -2, 'DecimalSI')],
  ['0.50000', dq(5, -1, 'DecimalSI')],
  ['0.5e0', dq(5, -1, 'DecimalExponent')],
  ['0.5e-1', dq(5, -2, 'DecimalExponent')],
  ['0.5e-2', dq(5, -3, 'DecimalExponent')],
  ['10.035M', dq(10035, 3, 'DecimalSI')],
  ['1.2e3', dq(12, 2, 'DecimalExponent')],
  ['1.3E+6', dq(13, 5, 'DecimalExponent')],
  ['1.40e9', dq(14, 8, 'DecimalExponent')],
  ['1.53E12', dq(153, 10, 'DecimalExponent')],
  ['1.6e15', dq(16, 14, 'DecimalExponent')],
  ['1.7E18', dq(17, 17, 'DecimalExponent')],
  ['9.01', dq(901, -2, 'DecimalSI')],
  ['8.1k', dq(81, 2, 'DecimalSI')],
  ['7.123456M', dq(7123456, 0, 'DecimalSI')],
  ['6.987654321G', dq(6987654321, 0, 'DecimalSI')],
  ['5.444T', dq(5444, 9, 'DecimalSI')],
  ['40.1T', dq(401, 11, 'DecimalSI')],
  ['300.2T', dq(3002, 11, 'DecimalSI')],
  ['2.5P', dq(25, 14, 'DecimalSI')],
  ['1.01E', dq(101, 16, 'DecimalSI')],
  ['3.001n', dq(4, -9, 'DecimalSI')],
  ['1.1E-9', dq(2, -9, 'DecimalExponent')],
  ['0.0000000001', dq(1, -9, 'DecimalSI')],
  ['0.0000000005', dq(1, -9, 'DecimalSI')],
  ['0.00000000050', dq(1, -9, 'DecimalSI')],
  ['0.5e-9', dq(1, -9, 'DecimalExponent')],
  ['0.9n', dq(1, -9, 'DecimalSI')],
  ['0.00000012345', dq(124, -9, 'DecimalSI')],
  ['0.00000012354', dq(124, -9, 'DecimalSI')],
  ['9Ei', dq(MAX, 0, 'BinarySI')],
  ['9223372036854775807Ki', dq(MAX, 0, 'BinarySI')],
  ['12E', dq(12, 18, 'DecimalSI')],
  ['100.035Ki', dq(10243584, -2, 'BinarySI')],
  ['0.5Mi', dq(0.5 * 1024 * 1024, 0, 'BinarySI')],
  ['0.05Gi', dq(536870912, -1, 'BinarySI')],
  ['0.025Ti', dq(274877906944, -1, 'BinarySI')],
  ['0.000000000001Ki', dq(2, -9, 'DecimalSI')],
  ['.001', dq(1, -3, 'DecimalSI')],
  ['.0001k', dq(100, -3, 'DecimalSI')],
  ['1.', dq(1, 0, 'DecimalSI')],
  ['1.G', dq(1, 9, 'DecimalSI')],
];

test('parseQuantity: upstream table, with -, + and exact value and format', () => {
  for (const [inp, want] of parseTable) {
    for (const [prefix, sign] of [
      ['', 1n],
      ['-', -1n],
      ['+', 1n],
    ] as const) {
      const got = parseQuantity(prefix + inp);
      const exp = { ...want, mantissa: want.mantissa * sign };
      assert.equal(compareQuantity(got, exp), 0, `${prefix}${inp}: got ${formatQuantity(got)} want ${formatQuantity(exp)}`);
      assert.equal(got.format, want.format, `${prefix}${inp} format`);
    }
  }
});

test('parseQuantity: invalid inputs throw upstream messages', () => {
  const invalid = ['1.1.M', '1+1.0M', '0.1mi', '0.1am', 'aoeu', '.5i', '1i', '-3.01i', '-3.01e-', ' 1', '1 ', '', 'Non-Numeric', '1K'];
  for (const s of invalid) assert.throws(() => parseQuantity(s), QuantityParseError, s);
  assert.throws(() => parseQuantity('abc'), { message: QUANTITY_ERR_FORMAT });
  assert.throws(() => parseQuantity('0.1mi'), { message: QUANTITY_ERR_SUFFIX });
  assert.throws(() => parseQuantity('1 '), {
    message: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  });
});

test('formatQuantity: upstream TestQuantityString', () => {
  const table: [Quantity, string, string][] = [
    [dq(1024 * 1024 * 1024, 0, 'BinarySI'), '1Gi', '1024Mi'],
    [dq(300 * 1024 * 1024, 0, 'BinarySI'), '300Mi', '307200Ki'],
    [dq(6 * 1024, 0, 'BinarySI'), '6Ki', ''],
    [dq(1001 * 1024 * 1024 * 1024, 0, 'BinarySI'), '1001Gi', '1025024Mi'],
    [dq(1024 ** 4, 0, 'BinarySI'), '1Ti', '1024Gi'],
    [dq(5, 0, 'BinarySI'), '5', '5000m'],
    [dq(500, -3, 'BinarySI'), '500m', '0.5'],
    [dq(1, 9, 'DecimalSI'), '1G', '1000M'],
    [dq(1000, 6, 'DecimalSI'), '1G', '0.001T'],
    [dq(1000000, 3, 'DecimalSI'), '1G', ''],
    [dq(1000000000, 0, 'DecimalSI'), '1G', ''],
    [dq(1, -3, 'DecimalSI'), '1m', '1000u'],
    [dq(80, -3, 'DecimalSI'), '80m', ''],
    [dq(1080, -3, 'DecimalSI'), '1080m', '1.08'],
    [dq(108, -2, 'DecimalSI'), '1080m', '1080000000n'],
    [dq(10800, -4, 'DecimalSI'), '1080m', ''],
    [dq(300, 6, 'DecimalSI'), '300M', ''],
    [dq(1, 12, 'DecimalSI'), '1T', ''],
    [dq(1234567, 6, 'DecimalSI'), '1234567M', ''],
    [dq(1234567, -3, 'BinarySI'), '1234567m', ''],
    [dq(3, 3, 'DecimalSI'), '3k', ''],
    [dq(1025, 0, 'BinarySI'), '1025', ''],
    [dq(0, 0, 'DecimalSI'), '0', ''],
    [dq(0, 0, 'BinarySI'), '0', ''],
    [dq(1, 9, 'DecimalExponent'), '1e9', '.001e12'],
    [dq(1, -3, 'DecimalExponent'), '1e-3', '0.001e0'],
    [dq(1, -9, 'DecimalExponent'), '1e-9', '1000e-12'],
    [dq(80, -3, 'DecimalExponent'), '80e-3', ''],
    [dq(300, 6, 'DecimalExponent'), '300e6', ''],
    [dq(1, 12, 'DecimalExponent'), '1e12', ''],
    [dq(1, 3, 'DecimalExponent'), '1e3', ''],
    [dq(3, 3, 'DecimalExponent'), '3e3', ''],
    [dq(3, 3, 'DecimalSI'), '3k', ''],
    [dq(0, 0, 'DecimalExponent'), '0', '00'],
    [dq(1, -9, 'DecimalSI'), '1n', ''],
    [dq(80, -9, 'DecimalSI'), '80n', ''],
    [dq(1080, -9, 'DecimalSI'), '1080n', ''],
    [dq(108, -8, 'DecimalSI'), '1080n', ''],
    [dq(10800, -10, 'DecimalSI'), '1080n', ''],
    [dq(1, -6, 'DecimalSI'), '1u', ''],
    [dq(80, -6, 'DecimalSI'), '80u', ''],
    [dq(1080, -6, 'DecimalSI'), '1080u', ''],
  ];
  for (const [q, expect, alternate] of table) {
    assert.equal(formatQuantity(q), expect, `${q.mantissa}e${q.scale} ${q.format}`);
    const parsed = parseQuantity(expect);
    assert.equal(parsed.s, expect, `${expect}: canonical input is kept`);
    if (alternate) {
      const alt = parseQuantity(alternate);
      assert.equal(alt.s, undefined, `${alternate}: non-canonical input is not kept`);
      assert.equal(formatQuantity(alt), expect, alternate);
    }
    if (q.mantissa !== 0n) assert.equal(formatQuantity(negQuantity(q)), '-' + expect);
  }
});

test('formatQuantity: upstream TestQuantityParseEmit', () => {
  const table: [string, string][] = [
    ['1Ki', '1Ki'],
    ['1Mi', '1Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1000M', '1G'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
  ];
  for (const [inp, want] of table) {
    assert.equal(canonicalizeQuantityString(inp), want, inp);
    assert.equal(canonicalizeQuantityString('-' + inp), '-' + want, '-' + inp);
  }
});

test('compare, add, sub, mul', () => {
  const cmp: [string, string, number][] = [
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1],
    ['1', '1000m', 0],
    ['1Gi', '1073741824', 0],
  ];
  for (const [x, y, want] of cmp) assert.equal(compareQuantity(parseQuantity(x), parseQuantity(y)), want, `${x} vs ${y}`);

  // add/sub of zero preserve the non-zero operand's suffix
  const zero = parseQuantity('0');
  for (const v of ['100m', '1Gi']) {
    const q = parseQuantity(v);
    assert.equal(formatQuantity(addQuantity(q, zero)), v);
    assert.equal(formatQuantity(addQuantity(zero, q)), v);
    assert.equal(formatQuantity(subQuantity(q, zero)), v);
    assert.equal(formatQuantity(subQuantity(zero, q)), formatQuantity(negQuantity(q)));
  }
  assert.equal(formatQuantity(addQuantity(dq(10, 0, 'DecimalSI'), dq(1, 1, 'DecimalSI'))), '20');
  assert.equal(formatQuantity(addQuantity(dq(10, 0, 'BinarySI'), dq(1, 0, 'DecimalSI'))), '11');
  assert.equal(addQuantity(dq(10, 0, 'BinarySI'), dq(1, 0, 'DecimalSI')).format, 'BinarySI');
  assert.equal(formatQuantity(subQuantity(dq(10, 0, 'DecimalSI'), dq(1, 1, 'DecimalSI'))), '0');
  assert.equal(formatQuantity(addQuantity(parseQuantity('1.5Gi'), parseQuantity('512Mi'))), '2Gi');
  assert.equal(formatQuantity(addQuantity(parseQuantity('100m'), parseQuantity('900m'))), '1');
  // exact beyond int64
  const big = mulQuantity(dq(MAX, 0, 'DecimalSI'), 2);
  assert.equal(big.mantissa, MAX * 2n);
  assert.equal(formatQuantity(mulQuantity(dq(-50, 0, 'DecimalSI'), -50)), '2500');
});

test('value, milliValue, scaledValue round up away from zero', () => {
  assert.equal(milliValue(parseQuantity('0.1')), 100);
  assert.equal(milliValue(parseQuantity('2')), 2000);
  assert.equal(milliValue(parseQuantity('1n')), 1);
  assert.equal(value(parseQuantity('100m')), 1);
  assert.equal(value(parseQuantity('1Ki')), 1024);
  assert.equal(value(parseQuantity('-9.01')), -10);
  assert.equal(value(parseQuantity('128974848')), 128974848);
  const scales: [number, number, number][] = [
    [-9, -9, 1],
    [-9, -6, 1],
    [-9, -3, 1],
    [-9, 0, 1],
    [-6, -9, 1000],
    [-6, -6, 1],
    [-6, -3, 1],
    [-6, 0, 1],
    [-3, -9, 1000000],
    [-3, -6, 1000],
    [-3, -3, 1],
    [-3, 0, 1],
    [0, -9, 1000000000],
    [0, -6, 1000000],
    [0, -3, 1000],
    [0, 0, 1],
    [2, -2, 10000],
  ];
  for (const [from, to, want] of scales) assert.equal(scaledValue(newScaledQuantity(1, from), to), want, `${from}->${to}`);
});

test('roundUpQuantity: upstream TestQuantityRoundUp', () => {
  const table: [string, number, Quantity, boolean][] = [
    ['9.01', -3, dq(901, -2, 'DecimalSI'), true],
    ['9.01', -2, dq(901, -2, 'DecimalSI'), true],
    ['9.01', -1, dq(91, -1, 'DecimalSI'), false],
    ['9.01', 0, dq(10, 0, 'DecimalSI'), false],
    ['9.01', 1, dq(10, 0, 'DecimalSI'), false],
    ['9.01', 2, dq(100, 0, 'DecimalSI'), false],
    ['-9.01', -3, dq(-901, -2, 'DecimalSI'), true],
    ['-9.01', -2, dq(-901, -2, 'DecimalSI'), true],
    ['-9.01', -1, dq(-91, -1, 'DecimalSI'), false],
    ['-9.01', 0, dq(-10, 0, 'DecimalSI'), false],
    ['-9.01', 1, dq(-10, 0, 'DecimalSI'), false],
    ['-9.01', 2, dq(-100, 0, 'DecimalSI'), false],
  ];
  for (const [inp, scale, want, exact] of table) {
    const [got, ok] = roundUpQuantity(parseQuantity(inp), scale);
    assert.equal(ok, exact, `${inp}@${scale}`);
    assert.equal(compareQuantity(got, want), 0, `${inp}@${scale}: ${formatQuantity(got)}`);
  }
});

test('parseQuantityJSON accepts numbers and trims strings', () => {
  assert.equal(formatQuantity(parseQuantityJSON(0.1)), '100m');
  assert.equal(formatQuantity(parseQuantityJSON(2)), '2');
  assert.equal(formatQuantity(parseQuantityJSON(' 1Gi ')), '1Gi');
});
