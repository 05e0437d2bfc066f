/**
 * Parser of the tiny POSIX-shell subset the simulated runtime interprets
 * (see shell.ts for what runs): words with '…' / "…" quoting and `$VAR`, `${VAR}`,
 * `$((…))`, `$(…)` expansions; `;`, newline, `&`, `&&`, `||`, `|`; redirections
 * `>`, `>>`, `<`, `2>`, `2>&1`, `>&2`; `while|until … do … done`, `for x in …; do … done`,
 * `if … then … [elif …] [else …] fi`; bash's indexed array assignment `NAME=(WORD…)`
 * (an `array` segment).
 */

/** A word as written: segments keep their quoting for expansion. */
export type Seg = { q: 'none' | 'single' | 'double'; text: string } | { q: 'array'; text: string };
export type Word = Seg[];

export interface Redirect {
  fd: 1 | 2 | 0;
  op: '>' | '>>' | '<' | 'dup';
  target: Word | 1 | 2;
}

export type Node =
  | { t: 'simple'; words: Word[]; redirects: Redirect[] }
  | { t: 'pipe'; cmds: Node[] }
  | { t: 'andor'; first: Node; rest: { op: '&&' | '||'; node: Node }[] }
  | { t: 'list'; items: { node: Node; background: boolean }[] }
  | { t: 'while'; until: boolean; cond: Node; body: Node }
  | { t: 'for'; name: string; words: Word[]; body: Node }
  | { t: 'if'; branches: { cond: Node; body: Node }[]; otherwise?: Node };

type Tok = { k: 'word'; w: Word } | { k: 'op'; v: string };

const OPS = ['&&', '||', ';;', '>>', '2>&1', '>&2', '1>&2', '2>>', '2>', '&>', ';', '\n', '&', '|', '>', '<', '(', ')'];

/**
 * Splits a script into words and operators; `arrays` (bash) allows `NAME=(…)`.
 * @throws Error on unterminated quotes, or `NAME=(` without `arrays` (as ash)
 */
export function tokenize(src: string, arrays = false): Tok[] {
  const toks: Tok[] = [];
  let word: Seg[] = [];
  let cur = '';
  const flush = (): void => {
    if (cur) word.push({ q: 'none', text: cur });
    cur = '';
    if (word.length) toks.push({ k: 'word', w: word });
    word = [];
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '\\' && i + 1 < src.length) {
      if (src[i + 1] === '\n') i += 2;
      else {
        word.push({ q: 'none', text: cur }, { q: 'single', text: src[i + 1] });
        cur = '';
        i += 2;
      }
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new Error('unterminated quoted string');
      if (cur) word.push({ q: 'none', text: cur });
      cur = '';
      word.push({ q: 'single', text: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let text = '';
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\' && j + 1 < src.length && '"\\$`'.includes(src[j + 1])) {
          text += src[j] === '\\' && src[j + 1] === '$' ? '\\$' : src[j + 1];
          j += 2;
        } else if (src[j] === '$' && src[j + 1] === '(') {
          const end = matchParen(src, j + 1);
          text += src.slice(j, end + 1);
          j = end + 1;
        } else text += src[j++];
      }
      if (j >= src.length) throw new Error('unterminated quoted string');
      if (cur) word.push({ q: 'none', text: cur });
      cur = '';
      word.push({ q: 'double', text });
      i = j + 1;
      continue;
    }
    if (c === '(' && !word.length && /^[A-Za-z_][A-Za-z0-9_]*=$/.test(cur)) {
      // a bash array assignment `NAME=(WORD…)`: the list stays text, split at run time
      if (!arrays) throw new Error('syntax error: unexpected "("');
      const end = matchParen(src, i);
      word.push({ q: 'none', text: cur }, { q: 'array', text: src.slice(i + 1, end) });
      cur = '';
      i = end + 1;
      continue;
    }
    if (c === '$' && src[i + 1] === '(') {
      const end = matchParen(src, i + 1);
      cur += src.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '#' && !cur && !word.length) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === ' ' || c === '\t') {
      flush();
      i++;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i) && (!/^[12]/.test(o) || (!cur && !word.length)));
    if (op) {
      flush();
      toks.push({ k: 'op', v: op });
      i += op.length;
      continue;
    }
    cur += c;
    i++;
  }
  flush();
  return toks;
}

function matchParen(src: string, open: number): number {
  let depth = 0;
  for (let j = open; j < src.length; j++) {
    if (src[j] === '(') depth++;
    else if (src[j] === ')' && --depth === 0) return j;
  }
  throw new Error('unterminated $(');
}

const plain = (w: Word): string | undefined => (w.every((s) => s.q === 'none') ? w.map((s) => s.text).join('') : undefined);

/** Parses a script (`arrays`: bash's `NAME=(…)`). @throws Error("syntax error: …") */
export function parse(src: string, arrays = false): Node {
  const toks = tokenize(src, arrays);
  let pos = 0;
  const peekWord = (): string | undefined => {
    const t = toks[pos];
    return t?.k === 'word' ? plain(t.w) : undefined;
  };
  const isOp = (v: string): boolean => toks[pos]?.k === 'op' && (toks[pos] as { v: string }).v === v;
  const skipNl = (): void => {
    while (isOp('\n') || isOp(';')) pos++;
  };
  const expectKw = (kw: string): void => {
    skipNl();
    if (peekWord() !== kw) throw new Error(`syntax error: expected "${kw}"`);
    pos++;
  };

  function list(stop: string[]): Node {
    const items: { node: Node; background: boolean }[] = [];
    for (;;) {
      skipNl();
      if (pos >= toks.length) break;
      const w = peekWord();
      if (w !== undefined && stop.includes(w)) break;
      if (isOp(')')) break;
      const node = andor();
      let background = false;
      if (isOp('&')) {
        background = true;
        pos++;
      }
      items.push({ node, background });
    }
    return { t: 'list', items };
  }

  function andor(): Node {
    const first = pipeline();
    const rest: { op: '&&' | '||'; node: Node }[] = [];
    while (isOp('&&') || isOp('||')) {
      const op = (toks[pos++] as { v: '&&' | '||' }).v;
      while (isOp('\n')) pos++;
      rest.push({ op, node: pipeline() });
    }
    return rest.length ? { t: 'andor', first, rest } : first;
  }

  function pipeline(): Node {
    const cmds = [command()];
    while (isOp('|')) {
      pos++;
      cmds.push(command());
    }
    return cmds.length > 1 ? { t: 'pipe', cmds } : cmds[0];
  }

  function command(): Node {
    const w = peekWord();
    if (w === 'while' || w === 'until') {
      pos++;
      const cond = list(['do']);
      expectKw('do');
      const body = list(['done']);
      expectKw('done');
      return { t: 'while', until: w === 'until', cond, body };
    }
    if (w === 'for') {
      pos++;
      const name = peekWord();
      if (!name) throw new Error('syntax error: bad for loop variable');
      pos++;
      const words: Word[] = [];
      if (peekWord() === 'in') {
        pos++;
        while (toks[pos]?.k === 'word') words.push((toks[pos++] as { w: Word }).w);
      }
      expectKw('do');
      const body = list(['done']);
      expectKw('done');
      return { t: 'for', name, words, body };
    }
    if (w === 'if') {
      pos++;
      const branches: { cond: Node; body: Node }[] = [];
      let otherwise: Node | undefined;
      let cond = list(['then']);
      for (;;) {
        expectKw('then');
        const body = list(['elif', 'else', 'fi']);
        branches.push({ cond, body });
        skipNl();
        const k = peekWord();
        pos++;
        if (k === 'elif') cond = list(['then']);
        else if (k === 'else') {
          otherwise = list(['fi']);
          expectKw('fi');
          break;
        } else if (k === 'fi') break;
        else throw new Error('syntax error: expected "fi"');
      }
      return { t: 'if', branches, otherwise };
    }
    if (isOp('(')) {
      pos++;
      const inner = list([]);
      if (!isOp(')')) throw new Error('syntax error: expected ")"');
      pos++;
      return inner;
    }
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      const t = toks[pos];
      if (!t) break;
      if (t.k === 'word') {
        words.push(t.w);
        pos++;
        continue;
      }
      const v = t.v;
      if (v === '2>&1') redirects.push({ fd: 2, op: 'dup', target: 1 });
      else if (v === '>&2' || v === '1>&2') redirects.push({ fd: 1, op: 'dup', target: 2 });
      else if (v === '>' || v === '>>' || v === '<' || v === '2>' || v === '2>>' || v === '&>') {
        const target = toks[pos + 1];
        if (target?.k !== 'word') throw new Error(`syntax error near unexpected token "${v}"`);
        const fd = v.startsWith('2') ? 2 : v === '<' ? 0 : 1;
        const op = v === '<' ? '<' : v.endsWith('>>') ? '>>' : '>';
        redirects.push({ fd, op, target: target.w });
        if (v === '&>') redirects.push({ fd: 2, op: 'dup', target: 1 });
        pos++;
      } else break;
      pos++;
    }
    if (!words.length && !redirects.length) {
      const t2 = toks[pos];
      throw new Error(`syntax error near unexpected token "${t2?.k === 'op' ? t2.v.replace('\n', 'newline') : ''}"`);
    }
    return { t: 'simple', words, redirects };
  }

  const root = list([]);
  if (pos < toks.length) {
    const t = toks[pos];
    throw new Error(`syntax error near unexpected token "${t.k === 'op' ? t.v : (plain(t.w) ?? '')}"`);
  }
  return root;
}
