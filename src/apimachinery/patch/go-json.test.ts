import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GoJsonError, goJsonDecode, goJsonSyntaxError } from './go-json.js';
import { goFloatG, goSprint, goSprintS, goTypeName } from './go-format.js';

const syntax = (s: string): string | null => goJsonSyntaxError(Buffer.from(s, 'utf8'));

describe('goJsonSyntaxError: Go encoding/json messages', () => {
  const cases: [string, string | null][] = [
    ['{"a":1}', null],
    [' [1, -2.5e+3, true, false, null, "x\\u00e9\\n"] ', null],
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['{"a"', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{} {}', "invalid character '{' after top-level value"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['1.e5', "invalid character 'e' after decimal point in numeric literal"],
    ['1e+', 'unexpected end of JSON input'],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['01', "invalid character '1' after top-level value"],
    ['tru', 'unexpected end of JSON input'],
    ['trUe', "invalid character 'U' in literal true (expecting 'u')"],
    ['nul1', "invalid character '1' in literal null (expecting 'l')"],
    ['fals', 'unexpected end of JSON input'],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => assert.equal(syntax(input), want));
  }

  it('goJsonDecode throws GoJsonError and reports duplicate keys by path in strict mode', () => {
    assert.throws(
      () => goJsonDecode('{'),
      (e) => e instanceof GoJsonError && e.message === 'unexpected end of JSON input',
    );
    assert.deepEqual(goJsonDecode('{"a":{"b":1,"b":2},"l":[{"x":1,"x":2}],"a":3}', { strict: true }), {
      value: { a: 3, l: [{ x: 2 }] },
      strictErrors: ['duplicate field "a.b"', 'duplicate field "l[0].x"', 'duplicate field "a"'],
    });
    assert.deepEqual(goJsonDecode('{"a":1,"a":2}').strictErrors, []);
  });
});

describe('Go %v rendering of decoded JSON', () => {
  it('prints maps with sorted keys, slices, nil and numbers as Go does', () => {
    assert.equal(goSprint({ b: [1, 'x'], a: null, c: { d: true } }), 'map[a:<nil> b:[1 x] c:map[d:true]]');
    assert.equal(goFloatG(1.5), '1.5');
    assert.equal(goFloatG(1234567.5), '1.2345675e+06');
    assert.equal(goFloatG(0.00001), '1e-05');
    assert.equal(goSprint(1000000), '1000000');
    assert.equal(goSprintS(1), '%!s(int64=1)');
    assert.equal(goTypeName([]), '[]interface {}');
    assert.equal(goTypeName(null), '%!s(<nil>)');
  });
});
