/**
 * Decoding of patch bodies with the error texts of Go's encoding/json (as vendored in
 * sigs.k8s.io/json, which kube-apiserver uses): `invalid character 'x' looking for
 * beginning of value`, `unexpected end of JSON input`, `json: cannot unmarshal array
 * into Go value of type map[string]interface {}`; and, in strict mode, the
 * `duplicate field "a.b"` errors the API server turns into strict-decoding failures.
 *
 * @see https://github.com/kubernetes-sigs/json/blob/main/internal/golang/encoding/json/scanner.go
 * @see https://github.com/kubernetes-sigs/json/blob/main/internal/golang/encoding/json/kubernetes_patch.go
 */
import type { Json } from './json-value.js';

/** A body Go's decoder rejects; `message` is Go's error text. */
export class GoJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoJsonError';
  }
}

/** Result of decoding a body. */
export interface GoJsonDecoded {
  value: Json;
  /** Strict-mode findings, e.g. `duplicate field "metadata.name"` (only with `strict`). */
  strictErrors: string[];
}

const maxNestingDepth = 10000;

/**
 * Decodes a JSON body as Go would: throws GoJsonError with Go's syntax error text for
 * invalid input; with `strict`, reports duplicate object keys by path.
 */
export function goJsonDecode(
  body: string | Uint8Array,
  opts: {
    strict?: boolean;
    /** Strict mode, decoding into a struct: the JSON fields known at an object path (`''`, `[0]`), undefined for maps. */
    knownFields?: (path: string) => ReadonlySet<string> | undefined;
  } = {},
): GoJsonDecoded {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const text = typeof body === 'string' ? body : Buffer.from(bytes).toString('utf8');
  // JSON.parse accepts exactly the texts Go's scanner accepts, except nesting deeper than
  // Go's limit, which needs more bytes than the limit: Go's scanner (slower) runs only
  // for texts JSON.parse rejects, for their error message, and for long ones.
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (e) {
    const syntax = goJsonSyntaxError(bytes);
    if (syntax) throw new GoJsonError(syntax);
    throw e;
  }
  if (bytes.length > maxNestingDepth) {
    const syntax = goJsonSyntaxError(bytes);
    if (syntax) throw new GoJsonError(syntax);
  }
  const strictErrors = opts.strict ? findStrictErrors(text, opts.knownFields) : [];
  return { value, strictErrors };
}

/** The word Go's UnmarshalTypeError uses for a JSON value's kind. */
export function goJsonKindWord(v: Json): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'object':
      return 'object';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    default:
      return 'bool';
  }
}

/** `json: cannot unmarshal array into Go value of type map[string]interface {}` */
export function goUnmarshalTypeError(v: Json, goType: string): string {
  return `json: cannot unmarshal ${goJsonKindWord(v)} into Go value of type ${goType}`;
}

/** `json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string` */
export function goUnmarshalFieldTypeError(v: Json, struct: string, field: string, goType: string): string {
  return `json: cannot unmarshal ${goJsonKindWord(v)} into Go struct field ${struct}.${field} of type ${goType}`;
}

// ---- syntax check: Go's scanner state machine, reporting its first error ----

function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const ch = String.fromCharCode(c); // Go's string(byte) is the rune U+00XX
  let q: string;
  if (c === 0x5c) q = '\\\\';
  else if (c === 0x07) q = '\\a';
  else if (c === 0x08) q = '\\b';
  else if (c === 0x0c) q = '\\f';
  else if (c === 0x0a) q = '\\n';
  else if (c === 0x0d) q = '\\r';
  else if (c === 0x09) q = '\\t';
  else if (c === 0x0b) q = '\\v';
  else if (c < 0x20 || c === 0x7f) q = `\\x${c.toString(16).padStart(2, '0')}`;
  else if (c >= 0x80 && c < 0xa0) q = `\\u00${c.toString(16).padStart(2, '0')}`;
  else if (c === 0xa0 || c === 0xad) q = `\\u00${c.toString(16)}`;
  else q = ch;
  return `'${q}'`;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's checkValid: the first syntax error in `b`, or null. */
export function goJsonSyntaxError(b: Uint8Array): string | null {
  let i = 0;
  const n = b.length;
  const err = (context: string): string => `invalid character ${quoteChar(b[i]!)} ${context}`;
  const skip = (): void => {
    while (i < n && isSpace(b[i]!)) i++;
  };
  const eof = 'unexpected end of JSON input';
  // Parse states on a stack: 'k' object key expected, 'v' object value, 'a' array value.
  const stack: number[] = [];
  const OBJ_KEY = 0;
  const OBJ_VALUE = 1;
  const ARR = 2;

  // Scans one value starting at b[i] (non-space). Returns an error or null; containers push state.
  const beginValue = (): string | null => {
    const c = b[i]!;
    if (c === 0x7b /* { */) {
      if (stack.length + 1 > maxNestingDepth) return err('exceeded max depth');
      i++;
      skip();
      if (i >= n) return eof;
      if (b[i] === 0x7d /* } */) {
        i++;
        return null;
      }
      stack.push(OBJ_KEY);
      return beginKey();
    }
    if (c === 0x5b /* [ */) {
      if (stack.length + 1 > maxNestingDepth) return err('exceeded max depth');
      i++;
      skip();
      if (i >= n) return eof;
      if (b[i] === 0x5d /* ] */) {
        i++;
        return null;
      }
      stack.push(ARR);
      return beginNested();
    }
    if (c === 0x22) return scanString();
    if (c === 0x2d || isDigit(c)) return scanNumber();
    if (c === 0x74) return scanLiteral('true');
    if (c === 0x66) return scanLiteral('false');
    if (c === 0x6e) return scanLiteral('null');
    return err('looking for beginning of value');
  };
  const beginKey = (): string | null => {
    skip();
    if (i >= n) return eof;
    if (b[i] !== 0x22) return err('looking for beginning of object key string');
    return scanString();
  };
  const beginNested = (): string | null => {
    skip();
    if (i >= n) return eof;
    return beginValue();
  };
  const scanString = (): string | null => {
    i++; // opening quote
    while (i < n) {
      const c = b[i]!;
      if (c === 0x22) {
        i++;
        return null;
      }
      if (c === 0x5c) {
        i++;
        if (i >= n) return eof;
        const e = b[i]!;
        if (e === 0x75 /* u */) {
          for (let k = 0; k < 4; k++) {
            i++;
            if (i >= n) return eof;
            if (!isHex(b[i]!)) return err('in \\u hexadecimal character escape');
          }
        } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
          return err('in string escape code');
        }
        i++;
        continue;
      }
      if (c < 0x20) return err('in string literal');
      i++;
    }
    return eof;
  };
  const scanNumber = (): string | null => {
    if (b[i] === 0x2d) {
      i++;
      if (i >= n) return eof;
      if (!isDigit(b[i]!)) return err('in numeric literal');
    }
    if (b[i] === 0x30) i++;
    else while (i < n && isDigit(b[i]!)) i++;
    if (i < n && b[i] === 0x2e) {
      i++;
      if (i >= n) return eof;
      if (!isDigit(b[i]!)) return err('after decimal point in numeric literal');
      while (i < n && isDigit(b[i]!)) i++;
    }
    if (i < n && (b[i] === 0x65 || b[i] === 0x45)) {
      i++;
      if (i < n && (b[i] === 0x2b || b[i] === 0x2d)) i++;
      if (i >= n) return eof;
      if (!isDigit(b[i]!)) return err('in exponent of numeric literal');
      while (i < n && isDigit(b[i]!)) i++;
    }
    return null;
  };
  const scanLiteral = (word: string): string | null => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (i >= n) return eof;
      if (b[i] !== word.charCodeAt(k)) return err(`in literal ${word} (expecting '${word[k]}')`);
    }
    i++;
    return null;
  };

  skip();
  if (i >= n) return eof;
  let e = beginValue();
  if (e) return e;
  // After each complete value: continue the enclosing container.
  while (stack.length > 0) {
    skip();
    if (i >= n) return eof;
    const c = b[i]!;
    const top = stack[stack.length - 1]!;
    if (top === OBJ_KEY) {
      if (c !== 0x3a /* : */) return err('after object key');
      stack[stack.length - 1] = OBJ_VALUE;
      i++;
      e = beginNested();
    } else if (top === OBJ_VALUE) {
      if (c === 0x2c) {
        stack[stack.length - 1] = OBJ_KEY;
        i++;
        e = beginKey();
      } else if (c === 0x7d) {
        stack.pop();
        i++;
        continue;
      } else return err('after object key:value pair');
    } else {
      if (c === 0x2c) {
        i++;
        e = beginNested();
      } else if (c === 0x5d) {
        stack.pop();
        i++;
        continue;
      } else return err('after array element');
    }
    if (e) return e;
  }
  skip();
  if (i < n) return err('after top-level value');
  return null;
}

// ---- strict mode: duplicate (and unknown struct) fields by path, in document order ----

function findStrictErrors(text: string, knownFields?: (path: string) => ReadonlySet<string> | undefined): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const report = (msg: string): void => {
    if (!seen.has(msg) && out.length < 100) {
      seen.add(msg);
      out.push(msg);
    }
  };
  let i = 0;
  const skip = (): void => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  };
  /** Reads the string at `i`: its value (a key), or nothing (a value: skipped). */
  const readString = (decode: boolean): string => {
    const start = i;
    let escaped = false;
    i++;
    for (let c = text.charCodeAt(i); c !== 0x22; c = text.charCodeAt(i)) {
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else i++;
    }
    i++;
    if (!decode) return '';
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  const value = (path: string): void => {
    skip();
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      i++;
      const keys = new Set<string>();
      const known = knownFields?.(path);
      skip();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        return;
      }
      for (;;) {
        skip();
        const key = readString(true);
        skip();
        i++; // ':'
        const at = path ? `${path}.${key}` : key;
        if (known && !known.has(key)) report(`unknown field ${JSON.stringify(at)}`);
        else if (keys.has(key)) report(`duplicate field ${JSON.stringify(at)}`);
        keys.add(key);
        value(at);
        skip();
        if (text.charCodeAt(i++) === 0x7d) return;
      }
    } else if (c === 0x5b) {
      i++;
      skip();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        return;
      }
      for (let idx = 0; ; idx++) {
        value(`${path}[${idx}]`);
        skip();
        if (text.charCodeAt(i++) === 0x5d) return;
      }
    } else if (c === 0x22) {
      readString(false);
    } else {
      while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
    }
  };
  value('');
  return out;
}
