/**
 * JSON syntax as Go's encoding/json checks it, for two jobs: the nesting limit every
 * JSON body is held to before it is parsed ({@link MAX_JSON_DEPTH}), and
 * the text of a syntax error (`invalid character '}' looking for beginning of value`,
 * `unexpected end of JSON input`), which upstream's error messages carry.
 *
 * Both scan the bytes once, without recursion and without allocating per byte, so a
 * 3 MiB body of brackets costs milliseconds and never the stack.
 *
 * @see https://github.com/golang/go/blob/go1.23.0/src/encoding/json/scanner.go
 */

/**
 * The nesting limit of request bodies: deeper documents are a syntax error, worded as
 * Go's encoding/json words its own limit (`invalid character '[' exceeded max depth`).
 * Upstream's limit is 10 000 (Go's `maxNestingDepth`); here it is 1 000, because V8's own
 * JSON.stringify and structuredClone overflow the default stack from about 4 000 levels and
 * the recursive steps behind decoding (patches, managed fields, the YAML parser) from
 * about 1 500 — a deeper body would end in a 500 instead of a 400. No Kubernetes object
 * comes near: the deepest built-in schemas nest about 30 levels.
 */
export const MAX_JSON_DEPTH = 1_000;

const enum C {
  Quote = 0x22,
  Backslash = 0x5c,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
  OpenBracket = 0x5b,
  CloseBracket = 0x5d,
}

/**
 * The offset of the first `{` or `[` that opens a level beyond `limit`, or -1. Only
 * brackets outside strings count; the document is not otherwise checked.
 */
export function depthExceededAt(buf: Uint8Array, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const c = buf[i]!;
    if (c === C.Quote) {
      // skip the string
      for (i++; i < n; i++) {
        const d = buf[i]!;
        if (d === C.Backslash) i++;
        else if (d === C.Quote) break;
      }
    } else if (c === C.OpenBrace || c === C.OpenBracket) {
      if (++depth > limit) return i;
    } else if (c === C.CloseBrace || c === C.CloseBracket) {
      depth--;
    }
  }
  return -1;
}

/** Go's quoteChar: the character as the error texts show it. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  return `'${goQuoteRune(c)}'`;
}

const GO_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\' };

/** A character as Go's strconv.Quote spells it inside the quotes (`\x00`, `\n`, `é`). */
function goQuoteRune(c: string): string {
  const esc = GO_ESCAPES[c];
  if (esc) return esc;
  const code = c.charCodeAt(0);
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  return c;
}

/** a scanner step's expectation after a value, by container */
const enum After {
  Top,
  ObjectValue,
  ArrayElement,
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * The message of Go's `json.Unmarshal` syntax error for `text` (the first error in
 * document order), or undefined when `text` is valid JSON within the nesting limit.
 */
export function goJSONSyntaxError(text: string, limit = MAX_JSON_DEPTH): string | undefined {
  const stack: After[] = [];
  let i = 0;
  const n = text.length;
  const bad = (at: number, context: string): string => `invalid character ${quoteChar(text[at]!)} ${context}`;
  const skipSpace = (): void => {
    while (i < n && isSpace(text[i]!)) i++;
  };
  // expecting a value
  for (;;) {
    skipSpace();
    if (i >= n) return 'unexpected end of JSON input';
    const c = text[i]!;
    let scalarDone = false;
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? After.ObjectValue : After.ArrayElement);
      if (stack.length > limit) return bad(i, 'exceeded max depth');
      i++;
      skipSpace();
      if (i >= n) return 'unexpected end of JSON input';
      if (c === '{') {
        if (text[i] === '}') {
          stack.pop();
          i++;
          scalarDone = true;
        } else {
          const e = objectKey();
          if (e) return e;
          continue;
        }
      } else if (text[i] === ']') {
        stack.pop();
        i++;
        scalarDone = true;
      } else continue;
    } else if (c === '"') {
      const e = string();
      if (e) return e;
      scalarDone = true;
    } else if (c === '-' || isDigit(c)) {
      const e = number();
      if (e) return e;
      scalarDone = true;
    } else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      for (let k = 1; k < word.length; k++) {
        if (i + k >= n) return 'unexpected end of JSON input';
        if (text[i + k] !== word[k]) return bad(i + k, `in literal ${word} (expecting ${quoteChar(word[k]!)})`);
      }
      i += word.length;
      scalarDone = true;
    } else {
      return bad(i, 'looking for beginning of value');
    }
    if (!scalarDone) continue;
    // after a value: close containers or go on to the next element
    for (;;) {
      skipSpace();
      const top = stack.length === 0 ? After.Top : stack[stack.length - 1]!;
      if (top === After.Top) {
        if (i < n) return bad(i, 'after top-level value');
        return undefined;
      }
      if (i >= n) return 'unexpected end of JSON input';
      const d = text[i]!;
      if (top === After.ObjectValue) {
        if (d === ',') {
          i++;
          skipSpace();
          if (i >= n) return 'unexpected end of JSON input';
          const e = objectKey();
          if (e) return e;
          break;
        }
        if (d === '}') {
          stack.pop();
          i++;
          continue;
        }
        return bad(i, 'after object key:value pair');
      }
      if (d === ',') {
        i++;
        break;
      }
      if (d === ']') {
        stack.pop();
        i++;
        continue;
      }
      return bad(i, 'after array element');
    }
  }

  /** at a key: `"key"` then `:`; leaves i at the value */
  function objectKey(): string | undefined {
    if (text[i] !== '"') return bad(i, 'looking for beginning of object key string');
    const e = string();
    if (e) return e;
    skipSpace();
    if (i >= n) return 'unexpected end of JSON input';
    if (text[i] !== ':') return bad(i, 'after object key');
    i++;
    return undefined;
  }

  /** at `"`: to after the closing quote */
  function string(): string | undefined {
    for (i++; i < n; i++) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return undefined;
      }
      if (c < ' ') return bad(i, 'in string literal');
      if (c === '\\') {
        i++;
        if (i >= n) return 'unexpected end of JSON input';
        const e = text[i]!;
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (i + k >= n) return 'unexpected end of JSON input';
            if (!/[0-9a-fA-F]/.test(text[i + k]!)) return bad(i + k, 'in \\u hexadecimal character escape');
          }
          i += 4;
        } else if (!'"\\/bfnrt'.includes(e)) return bad(i, 'in string escape code');
      }
    }
    return 'unexpected end of JSON input';
  }

  /** at `-` or a digit: to after the number */
  function number(): string | undefined {
    if (text[i] === '-') {
      i++;
      if (i >= n) return 'unexpected end of JSON input';
      if (!isDigit(text[i])) return bad(i, 'in numeric literal');
    }
    if (text[i] === '0') i++;
    else while (isDigit(text[i])) i++;
    if (text[i] === '.') {
      i++;
      if (i >= n) return 'unexpected end of JSON input';
      if (!isDigit(text[i])) return bad(i, 'after decimal point in numeric literal');
      while (isDigit(text[i])) i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (i >= n) return 'unexpected end of JSON input';
      if (!isDigit(text[i])) return bad(i, 'in exponent of numeric literal');
      while (isDigit(text[i])) i++;
    }
    return undefined;
  }
}
