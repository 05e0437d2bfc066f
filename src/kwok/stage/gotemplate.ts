/**
 * The Go text/template subset kwok's Stage templates use (`statusTemplate` and friends):
 * text with actions `{{ … }}` (trim markers `{{-` / `-}}`, comments `{{/* … *\/}}`);
 * pipelines `a | b` (the previous value becomes the last argument); variables
 * `{{ $x := … }}`, `{{ $x = … }}`, `$` (the root), `$x.field`; field chains `.a.b` on
 * maps; literals (strings "…" and `…`, numbers, true/false/nil); parenthesised pipelines;
 * `if` / `else if` / `else`, `with` / `else with` / `else`, `range` (`range $i, $e := …`,
 * with `else`) and `end`; Go's truth (false, 0, nil, empty string/list/map are false)
 * and builtins and, or, not, eq, ne, lt, le, gt, ge, len, index, print, printf (%s %d %v
 * %q). Functions the caller passes (kwok's Now, Quote, NodeIP, PodIPWith …) are called by
 * name. A missing map member is nil and prints as `<no value>`, as Go's does for
 * `map[string]interface{}`.
 *
 * No npm library covered this: @ctrl/golang-template (maintained) has no variables,
 * no `$` and no custom functions.
 *
 * @see https://pkg.go.dev/text/template
 */

/** A template function: gets the evaluated arguments. */
export type TemplateFunc = (...args: unknown[]) => unknown;

/** Thrown on a malformed template or a failing call, with Go's `template: …` prefix. */
export class TemplateError extends Error {}

type Node =
  | { t: 'text'; s: string }
  | { t: 'action'; p: Pipeline }
  | { t: 'if' | 'with'; p: Pipeline; yes: Node[]; else: Node[] }
  | { t: 'range'; p: Pipeline; body: Node[]; else: Node[] };
interface Pipeline {
  decl: string[];
  assign: boolean;
  cmds: Arg[][];
}
type Arg = { t: 'field'; base: 'dot' | string; path: string[] } | { t: 'lit'; v: unknown } | { t: 'ident'; name: string } | { t: 'sub'; p: Pipeline };

/** A parsed template; `execute` may run many times. */
export interface Template {
  execute(data: unknown, funcs?: Record<string, TemplateFunc>): string;
}

/**
 * Parses a template.
 * @throws TemplateError on a syntax error (unclosed action, unexpected end/else, …)
 */
export function parseTemplate(name: string, src: string): Template {
  const tokens = lex(name, src);
  let i = 0;
  const parseList = (stop: string[]): { nodes: Node[]; end: string } => {
    const nodes: Node[] = [];
    while (i < tokens.length) {
      const tk = tokens[i++]!;
      if (tk.text !== undefined) {
        nodes.push({ t: 'text', s: tk.text });
        continue;
      }
      const body = tk.action!;
      const kw = /^(if|with|range|else|end)\b\s*/.exec(body);
      if (!kw) {
        nodes.push({ t: 'action', p: parsePipeline(name, body) });
        continue;
      }
      const rest = body.slice(kw[0].length);
      if (kw[1] === 'end' || kw[1] === 'else') {
        if (!stop.includes(kw[1]) || rest.trim()) throw new TemplateError(`template: ${name}: unexpected {{${body}}}`);
        return { nodes, end: kw[1] };
      }
      const p = parsePipeline(name, rest);
      const branch = parseList(['end', 'else']);
      const elseNodes = branch.end === 'else' ? parseList(['end']).nodes : [];
      if (kw[1] === 'range') nodes.push({ t: 'range', p, body: branch.nodes, else: elseNodes });
      else nodes.push({ t: kw[1] as 'if' | 'with', p, yes: branch.nodes, else: elseNodes });
    }
    if (stop.length) throw new TemplateError(`template: ${name}: unexpected EOF`);
    return { nodes, end: '' };
  };
  rewriteElseChains(tokens);
  const root = parseList([]).nodes;
  return {
    execute(data, funcs = {}) {
      const out: string[] = [];
      const vars: Map<string, unknown>[] = [new Map([['$', data]])];
      runNodes(name, root, data, vars, funcs, out);
      return out.join('');
    },
  };
}

/** Rewrites `{{else if x}}…{{end}}` into `{{else}}{{if x}}…{{end}}{{end}}` (and `else with` alike), in place. */
function rewriteElseChains(tokens: Token[]): void {
  const out: Token[] = [];
  const extra: number[] = []; // per open block: the ends its else-chains add
  for (const tk of tokens) {
    const a = tk.action;
    if (a === undefined) {
      out.push(tk);
      continue;
    }
    if (/^(if|with|range)\b/.test(a)) extra.push(0);
    const el = /^else\s+(if|with)\b(.*)$/s.exec(a);
    if (el) {
      out.push({ action: 'else' }, { action: `${el[1]}${el[2]}` });
      if (extra.length) extra[extra.length - 1]!++;
      continue;
    }
    if (/^end\b/.test(a)) for (let k = extra.pop() ?? 0; k > 0; k--) out.push({ action: 'end' });
    out.push(tk);
  }
  tokens.splice(0, tokens.length, ...out);
}

interface Token {
  text?: string;
  action?: string;
}

function lex(name: string, src: string): Token[] {
  const out: Token[] = [];
  let pos = 0;
  let trimNext = false;
  while (pos < src.length) {
    const open = src.indexOf('{{', pos);
    let text = open < 0 ? src.slice(pos) : src.slice(pos, open);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    if (open < 0) {
      if (text) out.push({ text });
      break;
    }
    let start = open + 2;
    if (src.startsWith('- ', start) || src.startsWith('-\t', start) || src.startsWith('-\n', start)) {
      text = text.replace(/\s+$/, '');
      start++;
    }
    if (text) out.push({ text });
    const close = findClose(src, start);
    if (close < 0) throw new TemplateError(`template: ${name}: unclosed action`);
    let end = close;
    if (/\s-$/.test(src.slice(start, close))) {
      trimNext = true;
      end = close - 1;
    }
    const body = src.slice(start, end).trim();
    if (!body.startsWith('/*')) out.push({ action: body });
    pos = close + 2;
  }
  return out;
}

/** The `}}` closing an action, skipping quoted strings. */
function findClose(src: string, from: number): number {
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === '`') {
      for (i++; i < src.length && src[i] !== c; i++) if (c === '"' && src[i] === '\\') i++;
    } else if (c === '}' && src[i + 1] === '}') return i;
  }
  return -1;
}

function parsePipeline(name: string, s: string): Pipeline {
  const toks = tokenize(name, s);
  let k = 0;
  const pipeline = (): Pipeline => {
    const p: Pipeline = { decl: [], assign: false, cmds: [] };
    // declarations: $x := / $i, $e := / $x =
    let j = k;
    const names: string[] = [];
    while (toks[j]?.startsWith('$')) {
      names.push(toks[j]!);
      if (toks[j + 1] === ',') j += 2;
      else {
        j++;
        break;
      }
    }
    if (names.length && (toks[j] === ':=' || toks[j] === '=')) {
      p.decl = names;
      p.assign = toks[j] === '=';
      k = j + 1;
    }
    let cmd: Arg[] = [];
    while (k < toks.length && toks[k] !== ')') {
      const t = toks[k++]!;
      if (t === '|') {
        if (!cmd.length) throw new TemplateError(`template: ${name}: missing command`);
        p.cmds.push(cmd);
        cmd = [];
      } else if (t === '(') {
        const sub = pipeline();
        if (toks[k++] !== ')') throw new TemplateError(`template: ${name}: unclosed left paren`);
        cmd.push({ t: 'sub', p: sub });
      } else cmd.push(operand(name, t));
    }
    if (!cmd.length) throw new TemplateError(`template: ${name}: missing value for command`);
    p.cmds.push(cmd);
    return p;
  };
  const p = pipeline();
  if (k < toks.length) throw new TemplateError(`template: ${name}: unexpected ${toks[k]} in operand`);
  return p;
}

function tokenize(name: string, s: string): string[] {
  const out: string[] = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|`[^`]*`|:=|[|(),=]|[^\s|(),="`]+)/y;
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  while (re.lastIndex < s.length && (m = re.exec(s))) out.push(m[1]!);
  if (re.lastIndex < s.trimEnd().length) throw new TemplateError(`template: ${name}: bad syntax in ${JSON.stringify(s)}`);
  return out;
}

function operand(name: string, t: string): Arg {
  if (t.startsWith('"')) return { t: 'lit', v: JSON.parse(t) };
  if (t.startsWith('`')) return { t: 'lit', v: t.slice(1, -1) };
  if (t === 'true' || t === 'false') return { t: 'lit', v: t === 'true' };
  if (t === 'nil') return { t: 'lit', v: null };
  if (/^-?\d/.test(t)) {
    const n = Number(t);
    if (Number.isNaN(n)) throw new TemplateError(`template: ${name}: bad number syntax: ${JSON.stringify(t)}`);
    return { t: 'lit', v: n };
  }
  if (t === '.') return { t: 'field', base: 'dot', path: [] };
  if (t.startsWith('.')) return { t: 'field', base: 'dot', path: t.slice(1).split('.') };
  if (t.startsWith('$')) {
    const [v, ...path] = t.split('.');
    return { t: 'field', base: v!, path };
  }
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(t)) return { t: 'ident', name: t };
  throw new TemplateError(`template: ${name}: unexpected ${JSON.stringify(t)} in operand`);
}

/** Go's truth: false, 0, nil, empty string, list or map are false. */
export function truth(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function print(v: unknown): string {
  if (v === undefined || v === null) return '<no value>';
  if (typeof v === 'object')
    return Array.isArray(v)
      ? `[${v.map(print).join(' ')}]`
      : `map[${Object.keys(v)
          .sort()
          .map((k) => `${k}:${print((v as Record<string, unknown>)[k])}`)
          .join(' ')}]`;
  return String(v);
}

function lookupVar(name: string, vars: Map<string, unknown>[], v: string): unknown {
  for (let i = vars.length - 1; i >= 0; i--) if (vars[i]!.has(v)) return vars[i]!.get(v);
  throw new TemplateError(`template: ${name}: undefined variable: ${v}`);
}

function field(v: unknown, path: string[]): unknown {
  let cur = v;
  for (const p of path) {
    if (cur === null || cur === undefined || typeof cur !== 'object' || Array.isArray(cur)) return null;
    cur = (cur as Record<string, unknown>)[p] ?? null;
  }
  return cur;
}

const cmpVal = (a: unknown) => (a === undefined ? null : a);

const BUILTINS: Record<string, TemplateFunc> = {
  and: (...a) => a.find((x) => !truth(x)) ?? a.at(-1),
  or: (...a) => a.find((x) => truth(x)) ?? a.at(-1),
  not: (a) => !truth(a),
  eq: (a, ...bs) => bs.some((b) => cmpVal(a) === cmpVal(b)),
  ne: (a, b) => cmpVal(a) !== cmpVal(b),
  lt: (a, b) => (a as number) < (b as number),
  le: (a, b) => (a as number) <= (b as number),
  gt: (a, b) => (a as number) > (b as number),
  ge: (a, b) => (a as number) >= (b as number),
  len: (a) => (Array.isArray(a) || typeof a === 'string' ? a.length : a && typeof a === 'object' ? Object.keys(a).length : 0),
  index: (a, ...keys) => keys.reduce<unknown>((cur, k) => (cur !== null && typeof cur === 'object' ? ((cur as Record<string, unknown>)[String(k)] ?? null) : null), a),
  print: (...a) => a.map(print).join(''),
  printf: (f, ...a) => {
    let i = 0;
    return String(f).replace(/%([sdvq%])/g, (_m, c: string) => (c === '%' ? '%' : c === 'q' ? JSON.stringify(String(a[i++])) : print(a[i++])));
  },
};

function evalPipeline(name: string, p: Pipeline, dot: unknown, vars: Map<string, unknown>[], funcs: Record<string, TemplateFunc>): unknown {
  let prev: unknown;
  let hasPrev = false;
  for (const cmd of p.cmds) {
    const [head, ...rest] = cmd;
    const arg = (a: Arg): unknown => {
      if (a.t === 'lit') return a.v;
      if (a.t === 'field') return field(a.base === 'dot' ? dot : lookupVar(name, vars, a.base), a.path);
      if (a.t === 'sub') return evalPipeline(name, a.p, dot, vars, funcs);
      return call(a.name, []);
    };
    const call = (fn: string, args: unknown[]): unknown => {
      const f = funcs[fn] ?? BUILTINS[fn];
      if (!f) throw new TemplateError(`template: ${name}: function "${fn}" not defined`);
      try {
        return f(...args);
      } catch (e) {
        throw new TemplateError(`template: ${name}: error calling ${fn}: ${(e as Error).message}`);
      }
    };
    if (head!.t === 'ident') {
      const args = rest.map(arg);
      if (hasPrev) args.push(prev);
      prev = call(head!.name, args);
    } else {
      if (rest.length || hasPrev) throw new TemplateError(`template: ${name}: can't give argument to non-function`);
      prev = arg(head!);
    }
    hasPrev = true;
  }
  if (p.decl.length) {
    if (p.assign) {
      for (let i = vars.length - 1; i >= 0; i--) if (vars[i]!.has(p.decl[0]!)) vars[i]!.set(p.decl[0]!, prev);
    } else vars.at(-1)!.set(p.decl[0]!, prev);
  }
  return prev;
}

function runNodes(name: string, nodes: Node[], dot: unknown, vars: Map<string, unknown>[], funcs: Record<string, TemplateFunc>, out: string[]): void {
  for (const n of nodes) {
    if (n.t === 'text') out.push(n.s);
    else if (n.t === 'action') {
      const v = evalPipeline(name, n.p, dot, vars, funcs);
      if (!n.p.decl.length) out.push(print(v));
    } else if (n.t === 'if' || n.t === 'with') {
      vars.push(new Map());
      const v = evalPipeline(name, n.p, dot, vars, funcs);
      if (truth(v)) runNodes(name, n.yes, n.t === 'with' ? v : dot, vars, funcs, out);
      else runNodes(name, n.else, dot, vars, funcs, out);
      vars.pop();
    } else if (n.t === 'range') {
      vars.push(new Map());
      const decl = n.p.decl;
      const v = evalPipeline(name, { ...n.p, decl: [] }, dot, vars, funcs);
      const entries: [unknown, unknown][] = Array.isArray(v)
        ? v.map((x, i) => [i, x])
        : v && typeof v === 'object'
          ? Object.keys(v)
              .sort()
              .map((k) => [k, (v as Record<string, unknown>)[k]])
          : typeof v === 'number'
            ? Array.from({ length: v }, (_x, i) => [i, i])
            : [];
      if (!entries.length) runNodes(name, n.else, dot, vars, funcs, out);
      for (const [k, e] of entries) {
        const scope = new Map<string, unknown>();
        if (decl.length === 1) scope.set(decl[0]!, e);
        if (decl.length === 2) {
          scope.set(decl[0]!, k);
          scope.set(decl[1]!, e);
        }
        vars.push(scope);
        runNodes(name, n.body, e, vars, funcs, out);
        vars.pop();
      }
      vars.pop();
    }
  }
}
