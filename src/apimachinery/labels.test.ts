import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from './errors.js';
import { everything, formatLabelSelector, formatLabels, labelSelectorAsSelector, newRequirement, nothing, parseSelector, selectorFromSet, selectorToString } from './labels.js';

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail('expected an error');
}

const LABEL_VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseSelector: syntax', () => {
  const roundTrip: [string, string][] = [
    ['', ''],
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['z=c,x=a', 'x=a,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x==a', 'x==a'],
    ['x=', 'x='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x', 'x'],
    ['x>1,z<5', 'x>1,z<5'],
    ['env in (prod, staging,dev)', 'env in (dev,prod,staging)'],
    ['env notin (b,a,a)', 'env notin (a,b)'],
    ['x in ()', 'x in ()'],
    ['x in (,)', 'x in ()'],
    ['x in (a,,b,)', 'x in (,a,b)'],
    ['notin=in', 'notin=in'],
    ['in in (in)', 'in in (in)'],
    ['example.com/tier , !canary', '!canary,example.com/tier'],
  ];
  for (const [input, want] of roundTrip) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(want)}`, () => assert.equal(parseSelector(input).toString(), want));
  }

  const errors: [string, string][] = [
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    ['x<a', "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['x=a@b', `unable to parse requirement: values[0][x]: Invalid value: "a@b": ${LABEL_VALUE_RULE}`],
    [
      '-x=a',
      "unable to parse requirement: <nil>: Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
  ];
  for (const [input, want] of errors) {
    it(`rejects ${JSON.stringify(input)}`, () =>
      assert.equal(
        badRequest(() => parseSelector(input)),
        want,
      ));
  }
});

describe('Selector.matches', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['x!=y', {}, true],
    ['x', { x: '' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '-3' }, true],
    ['x in (a,b)', { x: 'b' }, true],
    ['x notin (a,b)', { y: 'a' }, true],
    ['x=', { x: '' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '1' }, false],
    ['x>1', { x: 'one' }, false],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x=', {}, false],
    ['constructor', {}, false],
    ['!toString', {}, true],
  ];
  for (const [sel, labels, want] of cases) {
    it(`${JSON.stringify(sel)} ${want ? 'matches' : 'does not match'} ${JSON.stringify(labels)}`, () => assert.equal(parseSelector(sel).matches(labels), want));
  }

  it('treats missing labels as an empty set', () => {
    assert.equal(parseSelector('!x').matches(undefined), true);
    assert.equal(parseSelector('x').matches(null), false);
  });

  it('Everything matches and is empty; Nothing matches nothing and is not empty', () => {
    assert.equal(everything().matches({ a: 'b' }), true);
    assert.equal(everything().empty(), true);
    assert.equal(nothing().matches({}), false);
    assert.equal(nothing().empty(), false);
    assert.equal(nothing().requirements, undefined);
  });

  it('requiresExactMatch finds =, == and single-value in', () => {
    assert.equal(parseSelector('a=1,b in (2),c in (3,4),d!=5').requiresExactMatch('a'), '1');
    assert.equal(parseSelector('b==2').requiresExactMatch('b'), '2');
    assert.equal(parseSelector('b in (2)').requiresExactMatch('b'), '2');
    assert.equal(parseSelector('c in (3,4)').requiresExactMatch('c'), undefined);
    assert.equal(parseSelector('d!=5').requiresExactMatch('d'), undefined);
    assert.equal(parseSelector('a=1').requiresExactMatch('zz'), undefined);
  });

  it('compiles once and matches many label sets', () => {
    const sel = parseSelector('app=web,tier in (frontend,backend),!canary');
    const pods = Array.from({ length: 5000 }, (_, i) => ({ app: i % 2 ? 'web' : 'db', tier: i % 3 ? 'frontend' : 'cache', ...(i % 5 ? {} : { canary: 'y' }) }));
    const n = pods.filter((l) => sel.matches(l)).length;
    const want = pods.filter((_, i) => i % 2 === 1 && i % 3 !== 0 && i % 5 !== 0).length;
    assert.equal(n, want);
  });
});

describe('labelSelectorAsSelector (metav1.LabelSelector)', () => {
  it('nil is Nothing, empty is Everything', () => {
    assert.equal(labelSelectorAsSelector(undefined), nothing());
    assert.equal(labelSelectorAsSelector({}), everything());
    assert.equal(labelSelectorAsSelector({ matchLabels: {}, matchExpressions: [] }).empty(), true);
  });

  it('converts matchLabels and matchExpressions, sorted by key', () => {
    const sel = labelSelectorAsSelector({
      matchLabels: { tier: 'web', app: 'x' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'zone', operator: 'NotIn', values: ['b'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'owner', operator: 'Exists' },
      ],
    });
    assert.equal(selectorToString(sel), 'app=x,!canary,env in (dev,prod),owner,tier=web,zone notin (b)');
    assert.equal(sel.matches({ app: 'x', tier: 'web', env: 'prod', owner: 'me' }), true);
    assert.equal(sel.matches({ app: 'x', tier: 'web', env: 'prod', owner: 'me', canary: '1' }), false);
    assert.equal(sel.matches({ app: 'x', tier: 'web', env: 'prod', owner: 'me', zone: 'b' }), false);
  });

  it('gives upstream validation errors', () => {
    assert.equal(
      badRequest(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })),
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
    assert.equal(
      badRequest(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })),
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    );
    assert.equal(
      badRequest(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Foo' }] })),
      '"Foo" is not a valid label selector operator',
    );
    assert.equal(
      badRequest(() => labelSelectorAsSelector({ matchLabels: { b: 'x y' } })),
      `values[0][b]: Invalid value: "x y": ${LABEL_VALUE_RULE}`,
    );
    assert.equal(
      badRequest(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a b', operator: 'NotIn' }] })),
      "[key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty]",
    );
  });

  it('newRequirement validates operators as upstream', () => {
    assert.equal(
      badRequest(() => newRequirement('a', 'like', ['x'])),
      'operator: Unsupported value: "like": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
    );
    assert.equal(
      badRequest(() => newRequirement('a', '=', ['x', 'y'])),
      'values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value',
    );
  });

  it('formatLabelSelector / formatLabels print as kubectl describe shows them', () => {
    assert.equal(formatLabelSelector({ matchLabels: { app: 'web' } }), 'app=web');
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bad' }] }), '<error>');
    assert.equal(formatLabels({ b: '2', a: '1' }), 'a=1,b=2');
    assert.equal(formatLabels({}), '<none>');
  });

  it('selectorFromSet requires every pair', () => {
    const sel = selectorFromSet({ b: '2', a: '1' });
    assert.equal(sel.toString(), 'a=1,b=2');
    assert.equal(sel.matches({ a: '1', b: '2', c: '3' }), true);
    assert.equal(sel.matches({ a: '1' }), false);
    assert.equal(selectorFromSet({}).empty(), true);
  });
});
