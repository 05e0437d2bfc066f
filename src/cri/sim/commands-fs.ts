/**
 * File commands of the simulated shell, with busybox's output formats and messages:
 * `cat`, `rev`, `head`, `tail [-f|-F]`, `grep`, `wc`, `ls [-a|-A] [-l] [-d] [-n] [-1]`,
 * `touch`, `mkdir [-p]`, `rm [-f] [-r]`.
 *
 * @see https://git.busybox.net/busybox/tree/coreutils/ls.c
 */
import { FsError, type SimFs, type SimStat } from './fs.js';
import type { CmdCtx, Command } from './shell-io.js';

/** Splits `-abc` style flags from operands (`--` ends flags; a lone `-` is an operand). */
export function flagsOf(args: string[]): { flags: Set<string>; operands: string[] } {
  const flags = new Set<string>();
  const operands: string[] = [];
  let done = false;
  for (const a of args) {
    if (!done && a === '--') done = true;
    else if (!done && a.length > 1 && a.startsWith('-') && !/^-\d/.test(a)) for (const f of a.slice(1)) flags.add(f);
    else operands.push(a);
  }
  return { flags, operands };
}

/** `-n N`, `-nN` or `-N` (head/tail line counts); default `def`. */
function lineCount(args: string[], def: number): { n: number; rest: string[] } {
  let n = def;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-n' && i + 1 < args.length) n = Number(args[++i]);
    else if (/^-n\d+$/.test(a)) n = Number(a.slice(2));
    else if (/^-\d+$/.test(a)) n = Number(a.slice(1));
    else rest.push(a);
  }
  return { n: Number.isFinite(n) ? n : def, rest };
}

function lines(text: string): string[] {
  const ls = text.split('\n');
  if (ls[ls.length - 1] === '') ls.pop();
  return ls;
}

function errText(e: unknown): string {
  return e instanceof FsError ? e.message : String(e);
}

const cat: Command = async (args, c) => {
  const files = flagsOf(args).operands;
  if (!files.length || (files.length === 1 && files[0] === '-')) {
    c.out.write(await c.stdin.text());
    return 0;
  }
  let st = 0;
  for (const f of files) {
    const k = c.fs.kind(f);
    const d = k === 'file' ? c.fs.read(f) : undefined;
    if (d === undefined) {
      c.err.write(k === 'dir' ? `cat: read error: Is a directory\n` : `cat: can't open '${f}': No such file or directory\n`);
      st = 1;
    } else c.out.write(d);
  }
  return st;
};

/** Reverses the characters of each line (busybox `rev [FILE]…`; stdin without files). */
const rev: Command = async (args, c) => {
  const files = flagsOf(args).operands;
  const flip = (text: string): string => text.replace(/[^\n]+/g, (l) => [...l].reverse().join(''));
  if (!files.length) {
    c.out.write(flip(await c.stdin.text()));
    return 0;
  }
  let st = 0;
  for (const f of files) {
    const d = c.fs.kind(f) === 'file' ? c.fs.read(f) : undefined;
    if (d === undefined) {
      c.err.write(`rev: can't open '${f}': No such file or directory\n`);
      st = 1;
    } else c.out.write(flip(d));
  }
  return st;
};

const headTail =
  (tail: boolean): Command =>
  async (args, c) => {
    const { n, rest } = lineCount(args, 10);
    const follow = rest.some((a) => a === '-f' || a === '-F');
    const files = rest.filter((a) => !a.startsWith('-'));
    const pick = (text: string): string => {
      const ls = lines(text);
      const from = tail ? Math.max(0, ls.length - n) : 0;
      const to = tail ? ls.length : Math.min(ls.length, n);
      const sel = ls
        .slice(from, to)
        .map((l) => `${l}\n`)
        .join('');
      return to === ls.length && sel && !text.endsWith('\n') ? sel.slice(0, -1) : sel;
    };
    let st = 0;
    if (!files.length) c.out.write(pick(await c.stdin.text()));
    for (const f of files) {
      const d = c.fs.read(f);
      if (d === undefined) {
        if (!follow || !rest.includes('-F')) {
          c.err.write(`${tail ? 'tail' : 'head'}: can't open '${f}': No such file or directory\n`);
          st = 1;
        }
        continue;
      }
      c.out.write(pick(d));
    }
    if (tail && follow) {
      // print what is appended, checking once a second
      const seen = new Map(files.map((f) => [f, (c.fs.read(f) ?? '').length]));
      for (;;) {
        await c.io.sleep(1000);
        for (const f of files) {
          const d = c.fs.read(f) ?? '';
          const before = seen.get(f) ?? 0;
          if (d.length > before) c.out.write(d.slice(before));
          seen.set(f, d.length);
        }
      }
    }
    return st;
  };

const grep: Command = async (args, c) => {
  const { flags, operands } = flagsOf(args);
  const [pattern = '', file] = operands;
  let text: string;
  if (file !== undefined && file !== '-') {
    const d = c.fs.read(file);
    if (d === undefined) {
      if (!flags.has('s')) c.err.write(`grep: ${file}: No such file or directory\n`);
      return 2;
    }
    text = d;
  } else text = await c.stdin.text();
  let re: RegExp;
  try {
    re = new RegExp(flags.has('F') ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pattern, flags.has('i') ? 'i' : '');
  } catch {
    re = new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags.has('i') ? 'i' : '');
  }
  const hits = lines(text).filter((l) => re.test(l) !== flags.has('v'));
  if (flags.has('c')) c.out.write(`${hits.length}\n`);
  else if (!flags.has('q')) for (const l of hits) c.out.write(`${l}\n`);
  return hits.length ? 0 : 1;
};

const wc: Command = async (args, c) => {
  const { flags, operands } = flagsOf(args);
  const want = ['l', 'w', 'c'].filter((f) => flags.has(f) || (f === 'c' && flags.has('m')));
  const cols = want.length ? want : ['l', 'w', 'c'];
  const count = (t: string): number[] => cols.map((k) => (k === 'l' ? (t.match(/\n/g) ?? []).length : k === 'w' ? t.split(/\s+/).filter(Boolean).length : Buffer.byteLength(t)));
  const show = (ns: number[], name?: string): string =>
    `${ns.length === 1 ? String(ns[0]) : ns.map((x) => String(x).padStart(7)).join(' ')}${name !== undefined ? ` ${name}` : ''}\n`;
  if (!operands.length) {
    c.out.write(show(count(await c.stdin.text())));
    return 0;
  }
  let st = 0;
  for (const f of operands) {
    const d = c.fs.read(f);
    if (d === undefined) {
      c.err.write(`wc: can't open '${f}': No such file or directory\n`);
      st = 1;
    } else c.out.write(show(count(d), f));
  }
  return st;
};

/** `/etc/passwd` or `/etc/group` of the container: id → name. */
export function idNames(fs: SimFs, file: '/etc/passwd' | '/etc/group'): Map<number, string> {
  const m = new Map<number, string>();
  for (const l of (fs.read(file) ?? '').split('\n')) {
    const f = l.split(':');
    if (f.length >= 3 && f[0] && /^\d+$/.test(f[2]!)) if (!m.has(Number(f[2]))) m.set(Number(f[2]), f[0]);
  }
  return m;
}

/** busybox `bb_mode_string`: `drwxr-sr-x`. */
export function modeString(st: SimStat): string {
  const t = st.kind === 'dir' ? 'd' : st.kind === 'symlink' ? 'l' : '-';
  const m = st.mode;
  const tri = (shift: number, special: boolean, ch: string): string => {
    const r = m & (4 << shift) ? 'r' : '-';
    const w = m & (2 << shift) ? 'w' : '-';
    const x = m & (1 << shift);
    return r + w + (special ? (x ? ch : ch.toUpperCase()) : x ? 'x' : '-');
  };
  return t + tri(6, !!(m & 0o4000), 's') + tri(3, !!(m & 0o2000), 's') + tri(0, !!(m & 0o1000), 't');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** ls's date column: `Jun  6 20:08`, or `Jun  6  2024` for files older than ~6 months or in the future (UTC). */
export function lsTime(ms: number, now: number): string {
  const d = new Date(ms);
  const md = `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)}`;
  const recent = now - ms < 6 * 30 * 24 * 3600 * 1000 && ms <= now + 3600 * 1000;
  return recent ? `${md} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}` : `${md}  ${d.getUTCFullYear()}`;
}

const ls: Command = async (args, c) => {
  const { flags, operands } = flagsOf(args);
  const long = flags.has('l') || flags.has('n');
  const all = flags.has('a');
  const almost = flags.has('A');
  const users = long && !flags.has('n') ? idNames(c.fs, '/etc/passwd') : new Map<number, string>();
  const groups = long && !flags.has('n') ? idNames(c.fs, '/etc/group') : new Map<number, string>();
  const now = c.io.now();
  const line = (name: string, st: SimStat): string => {
    if (!long) return `${name}\n`;
    const u = (users.get(st.uid) ?? String(st.uid)).slice(0, 8).padEnd(8);
    const g = (groups.get(st.gid) ?? String(st.gid)).slice(0, 8).padEnd(8);
    const link = st.kind === 'symlink' ? ` -> ${st.target ?? ''}` : '';
    return `${modeString(st)} ${String(st.nlink).padStart(4)} ${u} ${g} ${String(st.size).padStart(9)} ${lsTime(st.mtimeMs, now)} ${name}${link}\n`;
  };
  let status = 0;
  const files: [string, SimStat][] = [];
  const dirs: string[] = [];
  for (const p of operands.length ? operands : ['.']) {
    const st = c.fs.lstat(p);
    if (!st) {
      c.err.write(`ls: ${p}: No such file or directory\n`);
      status = 1;
      continue;
    }
    // a symlink to a directory is listed as the directory unless -l asks for the link (a trailing / follows it)
    const isDir = st.kind === 'dir' || (st.kind === 'symlink' && c.fs.kind(p) === 'dir' && (!long || p.endsWith('/')));
    if (isDir && !flags.has('d')) dirs.push(p);
    else files.push([p, st]);
  }
  for (const [p, st] of files) c.out.write(line(p, st));
  const headers = files.length + dirs.length > 1;
  dirs.forEach((d, i) => {
    if (headers) c.out.write(`${files.length || i ? '\n' : ''}${d}:\n`);
    const names = (c.fs.list(d) ?? []).filter((n) => all || almost || !n.startsWith('.'));
    const base = c.fs.resolve(d);
    const entries: [string, SimStat][] = [];
    if (all) {
      for (const dot of ['.', '..']) {
        const st = c.fs.lstat(dot === '.' ? base : `${base}/..`);
        if (st) entries.push([dot, st]);
      }
    }
    for (const n of names) {
      const st = long ? c.fs.lstat(`${base === '/' ? '' : base}/${n}`) : undefined;
      entries.push([n, st ?? ({ kind: 'file', size: 0, mtimeMs: 0, uid: 0, gid: 0, mode: 0o644, nlink: 1, blocks: 0 } as SimStat)]);
    }
    if (long) c.out.write(`total ${Math.ceil(entries.reduce((s, [, st]) => s + st.blocks, 0) / 2)}\n`);
    for (const [n, st] of entries) c.out.write(line(n, st));
  });
  return status;
};

const touch: Command = async (args, c) => {
  let st = 0;
  for (const f of flagsOf(args).operands) {
    try {
      c.fs.touch(f);
    } catch (e) {
      c.err.write(`touch: ${f}: ${errText(e)}\n`);
      st = 1;
    }
  }
  return st;
};

const mkdir: Command = async (args, c) => {
  const { flags, operands } = flagsOf(args);
  let st = 0;
  for (const f of operands) {
    try {
      c.fs.mkdir(f, flags.has('p'));
    } catch (e) {
      c.err.write(`mkdir: can't create directory '${f}': ${errText(e)}\n`);
      st = 1;
    }
  }
  return st;
};

const rm: Command = async (args, c) => {
  const { flags, operands } = flagsOf(args);
  const force = flags.has('f');
  const recursive = flags.has('r') || flags.has('R');
  let st = 0;
  for (const f of operands) {
    const k = c.fs.kind(f);
    if (k === 'dir' && !recursive) {
      c.err.write(`rm: '${f}' is a directory\n`);
      st = 1;
      continue;
    }
    try {
      if (!c.fs.remove(f) && !force) {
        c.err.write(`rm: can't remove '${f}': No such file or directory\n`);
        st = 1;
      }
    } catch (e) {
      c.err.write(`rm: can't remove '${f}': ${errText(e)}\n`);
      st = 1;
    }
  }
  return st;
};

/** The file commands by name. */
export const fsCommands: Record<string, Command> = {
  cat,
  rev,
  head: headTail(false),
  tail: headTail(true),
  grep,
  egrep: (a, c: CmdCtx) => grep(['-E', ...a], c),
  wc,
  ls,
  touch,
  mkdir,
  rm,
};
