/**
 * Regular expressions with RE2 syntax and semantics, as CEL requires: `matches` (the
 * standard function, unanchored like Go's `MatchString`) on `@bufbuild/re2`, and the
 * Kubernetes `regex` library's `<string>.find(string)` and `findAll(string[, int])`.
 * Syntax errors carry Go's `regexp/syntax` texts (`error parsing regexp: missing
 * closing ]: \`[\``). `find`/`findAll` need match positions, which the RE2 engine does
 * not give: after RE2 has accepted the pattern it is translated to an equivalent
 * JavaScript RegExp (named groups, `\A`, `\z`, leading flag groups, POSIX classes,
 * `\Q…\E`, Unicode classes); a pattern it cannot translate is reported as unsupported.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/regex.go
 */
import { RE2JS } from '@bufbuild/re2';
import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost, traversalCost } from '../cost.js';
import { celError } from '../errors.js';

const cache = new Map<string, RE2JS>();

/** Compiles an RE2 pattern (cached). @throws the CEL error with Go's syntax message */
export function compileRE2(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      throw celError((e as Error).message);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** An RE2 pattern as a JavaScript RegExp with the same matches (global, Unicode). */
export function toJSRegExp(pattern: string): RegExp {
  compileRE2(pattern);
  let flags = 'gu';
  let p = pattern;
  const lead = /^\(\?([imsU]+)\)/.exec(p);
  if (lead) {
    if (lead[1]!.includes('U')) throw celError(`regular expression ${JSON.stringify(pattern)} uses a flag k8ts cannot translate for find/findAll`);
    for (const f of lead[1]!) if (!flags.includes(f)) flags += f;
    p = p.slice(lead[0].length);
  }
  p = p
    .replace(/\\Q(.*?)(\\E|$)/g, (_m, lit: string) => lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))
    .replace(/\(\?P</g, '(?<')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$(?![\\s\\S])')
    .replace(/\[:(\^?)([a-z]+):\]/g, (_m, neg: string, name: string) => {
      const c = POSIX[name];
      if (c === undefined || neg) throw celError(`regular expression ${JSON.stringify(pattern)} uses a class k8ts cannot translate for find/findAll`);
      return c;
    })
    .replace(/\\([pP])([A-Za-z])(?![A-Za-z}])/g, '\\$1{$2}');
  try {
    return new RegExp(p, flags);
  } catch {
    throw celError(`regular expression ${JSON.stringify(pattern)} cannot be evaluated by find/findAll in k8ts`);
  }
}

function findAll(s: string, pattern: string, limit: number): string[] {
  const re = toJSRegExp(pattern);
  const out: string[] = [];
  if (limit === 0) return out;
  for (const m of s.matchAll(re)) {
    out.push(m[0]);
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

/** Registers the regex library (`matches` is replaced by patch.ts) on `env`. */
export function registerRegex(env: Environment): void {
  env
    .registerFunction('string.find(string): string', (s: string, pattern: string) => {
      chargeCost(traversalCost(s.length) * Math.max(1, traversalCost(pattern.length)));
      return findAll(s, pattern, 1)[0] ?? '';
    })
    .registerFunction('string.findAll(string): list<string>', (s: string, pattern: string) => {
      chargeCost(traversalCost(s.length) * Math.max(1, traversalCost(pattern.length)));
      return findAll(s, pattern, -1);
    })
    .registerFunction('string.findAll(string, int): list<string>', (s: string, pattern: string, n: bigint) => {
      chargeCost(traversalCost(s.length) * Math.max(1, traversalCost(pattern.length)));
      return findAll(s, pattern, Number(n));
    });
}
