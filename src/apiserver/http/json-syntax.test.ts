import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { depthExceededAt, goJSONSyntaxError, MAX_JSON_DEPTH } from './json-syntax.js';

describe('JSON syntax as encoding/json checks it', () => {
  it("words syntax errors as Go's scanner", () => {
    const cases: [string, string | undefined][] = [
      ['{"a":1}', undefined],
      [' [1, 2.5e3, -0, "x\\u00e9", true, false, null] ', undefined],
      ['', 'unexpected end of JSON input'],
      ['{', 'unexpected end of JSON input'],
      ['{"kind":', 'unexpected end of JSON input'],
      ['}', "invalid character '}' looking for beginning of value"],
      ["{'single':1}", "invalid character '\\'' looking for beginning of object key string"],
      ['{"a":1}{"b":2}', "invalid character '{' after top-level value"],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
      ['[1 2]', "invalid character '2' after array element"],
      ['[1,]', "invalid character ']' looking for beginning of value"],
      ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
      ['tru', 'unexpected end of JSON input'],
      ['trux', "invalid character 'x' in literal true (expecting 'e')"],
      ['"a\u0001"', "invalid character '\\x01' in string literal"],
      ['"\\q"', "invalid character 'q' in string escape code"],
      ['01', "invalid character '1' after top-level value"],
      ['-x', "invalid character 'x' in numeric literal"],
      ['1.x', "invalid character 'x' after decimal point in numeric literal"],
      ['\u0000\u0001', "invalid character '\\x00' looking for beginning of value"],
    ];
    for (const [text, want] of cases) assert.equal(goJSONSyntaxError(text), want, JSON.stringify(text));
  });

  it('limits nesting to MAX_JSON_DEPTH levels, counting brackets outside strings only', () => {
    const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    assert.equal(goJSONSyntaxError(deep(MAX_JSON_DEPTH)), undefined);
    assert.equal(goJSONSyntaxError(deep(MAX_JSON_DEPTH + 1)), "invalid character '[' exceeded max depth");
    assert.equal(depthExceededAt(Buffer.from(deep(MAX_JSON_DEPTH))), -1);
    assert.equal(depthExceededAt(Buffer.from(deep(MAX_JSON_DEPTH + 1))), MAX_JSON_DEPTH);
    assert.equal(depthExceededAt(Buffer.from(`["${'['.repeat(MAX_JSON_DEPTH * 2)}", "\\"["]`)), -1);
  });
});
