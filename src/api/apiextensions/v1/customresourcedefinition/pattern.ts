/**
 * The `pattern` of a CRD schema: checked when the CRD is written, compiled for custom
 * resource validation through a bounded cache. A pattern is request input that becomes a
 * regular expression, so it is bounded before V8 sees it: repeat counts at most 1000 and
 * nesting at most 1000 deep (Go's regexp/syntax limits, with its error texts), and an
 * estimate of the compiled size (repetitions multiply their operand) at most
 * {@link MAX_PATTERN_SIZE} — V8 unrolls counted repetitions, and unbounded sizes made
 * the server abort (`FATAL ERROR: RegExpCompiler Allocation failed`).
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apis/apiextensions/validation/validation.go (pattern must compile)
 * @see https://pkg.go.dev/regexp/syntax (invalid repeat count, expression nests too deeply, expression too large)
 */

/** Largest repeat count Go's regexp accepts (`{n,m}` with n or m above → invalid repeat count). */
const MAX_REPEAT = 1000;
/** Deepest group nesting Go's regexp accepts. */
const MAX_NESTING = 1000;
/** Budget of the size estimate (atoms, repetitions multiplied out). */
const MAX_PATTERN_SIZE = 100_000;
/** Compiled patterns kept (least recently used dropped first). */
const CACHE_SIZE = 512;

interface Frame {
  /** size of the alternatives closed so far */
  alts: number;
  /** size of the current alternative */
  size: number;
  /** size of the last atom (the operand of a following quantifier) */
  last: number;
}

/**
 * Why `pattern` is not an acceptable regular expression, as Go's regexp phrases it
 * (`error parsing regexp: invalid repeat count: `{1001}``), or undefined when it is within
 * the bounds. Only the bounds and the parentheses are checked: Go syntax JavaScript does
 * not know (`(?i)`) is accepted here, as upstream accepts it. Linear in the pattern's length.
 */
export function patternError(pattern: string): string | undefined {
  const stack: Frame[] = [{ alts: 0, size: 0, last: 0 }];
  let top = stack[0]!;
  const add = (n: number): void => {
    top.last = n;
    top.size += n;
  };
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    switch (ch) {
      case '\\': {
        const next = pattern[i + 1];
        i++;
        // \p{…}, \u{…}, \x{…}: skip the braces
        if ((next === 'p' || next === 'P' || next === 'u' || next === 'x') && pattern[i + 1] === '{') {
          const close = pattern.indexOf('}', i + 2);
          if (close > 0) i = close;
        }
        add(1);
        break;
      }
      case '[': {
        let j = i + 1;
        if (pattern[j] === '^') j++;
        if (pattern[j] === ']') j++;
        while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
        i = j;
        add(1);
        break;
      }
      case '(': {
        if (stack.length > MAX_NESTING) return 'error parsing regexp: expression nests too deeply';
        top = { alts: 0, size: 0, last: 0 };
        stack.push(top);
        break;
      }
      case ')': {
        if (stack.length === 1) return `error parsing regexp: unexpected ): \`${pattern}\``;
        const f = stack.pop()!;
        top = stack[stack.length - 1]!;
        add(f.alts + f.size + 1);
        break;
      }
      case '|':
        top.alts += top.size + 1;
        top.size = 0;
        top.last = 0;
        break;
      case '*':
      case '+':
      case '?':
        top.size += top.last;
        top.last *= 2;
        break;
      case '{': {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
        if (!m) {
          add(1);
          break;
        }
        const lo = Number(m[1]);
        const hi = m[3] ? Number(m[3]) : lo;
        if (lo > MAX_REPEAT || hi > MAX_REPEAT || hi < lo) return `error parsing regexp: invalid repeat count: \`${m[0]}\``;
        const times = Math.max(lo, hi) + 1;
        top.size += top.last * (times - 1);
        top.last *= times;
        i += m[0].length - 1;
        break;
      }
      default:
        add(1);
    }
    // outer frames grow only when an inner one closes, so the innermost is the one to check
    if (top.size + top.alts > MAX_PATTERN_SIZE) {
      return 'error parsing regexp: expression too large';
    }
  }
  if (stack.length > 1) return `error parsing regexp: missing closing ): \`${pattern}\``;
  return undefined;
}

const cache = new Map<string, RegExp | null>();

/**
 * The compiled pattern (flag `u`), or undefined when {@link patternError} rejects it or
 * JavaScript cannot compile it (Go-only syntax: the value is then not checked against it).
 * Kept in a cache of at most 512 patterns, least recently used dropped first.
 */
export function compilePattern(pattern: string): RegExp | undefined {
  let re = cache.get(pattern);
  if (re !== undefined) {
    cache.delete(pattern);
    cache.set(pattern, re);
    return re ?? undefined;
  }
  re = null;
  if (patternError(pattern) === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(pattern, re);
  return re ?? undefined;
}
