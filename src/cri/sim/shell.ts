/**
 * The programs a simulated container can run. The simulated runtime does not
 * execute anything on the host: it interprets a container's command line here,
 * against the container's {@link SimFs}, environment and the injected clock, and
 * writes what the program prints to the container's CRI log.
 *
 * Built-in commands (by basename, so `/bin/sh` = `sh`):
 * - `sh|bash|ash|dash -c SCRIPT` — the script language of shell-parse.ts; `sh` alone exits 0
 * - `echo [-n] [-e]`, `printf FORMAT ARGS…` (`%s %d %%`, `\n \t` escapes)
 * - `sleep N[s|m|h] | infinity`, `true`, `false`, `:`, `exit [N]`
 * - `cat [FILE…]` (stdin without files), `ls [-a] [-1] [-l] [PATH…]`, `touch`, `rm [-f] [-r]`, `mkdir [-p]`
 * - `test EXPR` / `[ EXPR ]` with `-e -f -d -s -z -n`, `= !=`, `-eq -ne -lt -le -gt -ge`, `!`
 * - `printenv [NAME…]` (exit 1 when a name is unset), `env`, `export N=V`, `hostname`,
 *   `date`, `id`, `cd DIR`, `exec CMD…`, `tail [-f|-F] FILE`, `head`, `grep [-q] PATTERN [FILE]`
 * - `wget URL`, `curl URL` — the simulation has no network (as the test machines have no
 *   outbound network): they fail as busybox wget (`wget: bad address 'HOST'`, exit 1) and
 *   curl (`curl: (6) Could not resolve host: HOST`, exit 6) do
 * - `trap ACTION TERM` — StopContainer's SIGTERM runs ACTION and ends the process with its status
 * - `kill`, `set`, `shift`, `read` — accepted, exit 0
 *
 * Signals: a shell or `sleep` as PID 1 ignores SIGTERM (no default action for PID 1)
 * unless it set a `trap`; StopContainer then kills it after the timeout (exit 137).
 * Other programs (servers) exit 0 on SIGTERM.
 * Any other program (nginx, redis-server, python …) runs until it is stopped, like a
 * server. A loop whose iteration takes no simulated time is paced at one iteration per
 * second, so busy loops never spin the process.
 */
import * as path from 'node:path';
import { parse, type Node, type Word, type Redirect } from './shell-parse.js';
import type { SimFs } from './fs.js';

/** Thrown inside a program when the container is stopped. */
export class KilledError extends Error {
  constructor() {
    super('killed');
  }
}

/** Ends the program with an exit code (the `exit` builtin). */
class ExitError extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

export interface ShellIO {
  env: Map<string, string>;
  fs: SimFs;
  hostname: string;
  /** uid/gid the container runs as (for `id`) */
  uid: number;
  gid: number;
  groups: number[];
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** Resolves after `ms` of simulated time; Infinity waits until stopped. Rejects with KilledError when stopped. */
  sleep(ms: number): Promise<void>;
  now(): number;
  stdin?: string;
  /** `trap ACTION TERM`: the script to run when the container is asked to stop ('' = ignore, '-' = default) */
  setTermTrap?(action: string): void;
  /** true once the container was killed: every further command throws KilledError */
  isKilled?(): boolean;
}

type Out = { write(s: string): void };

/**
 * Runs one program (argv) to completion and returns its exit code. Never resolves for
 * long-running programs until stopped (then rejects with KilledError).
 */
export async function runProgram(argv: string[], io: ShellIO): Promise<number> {
  const sh = new Shell(io, new Map(io.env));
  try {
    return await sh.runArgv(argv, { write: (s) => io.write('stdout', s) }, { write: (s) => io.write('stderr', s) }, io.stdin ?? '');
  } catch (e) {
    if (e instanceof ExitError) return e.code;
    throw e;
  }
}

class Shell {
  status = 0;
  constructor(
    private readonly io: ShellIO,
    private readonly vars: Map<string, string>,
  ) {}

  async runScript(script: string, out: Out, err: Out, stdin: string): Promise<number> {
    let ast: Node;
    try {
      ast = parse(script);
    } catch (e) {
      err.write(`sh: ${(e as Error).message}\n`);
      return 2;
    }
    return this.exec(ast, out, err, stdin);
  }

  private async exec(n: Node, out: Out, err: Out, stdin: string): Promise<number> {
    switch (n.t) {
      case 'list': {
        let st = 0;
        for (const it of n.items) {
          if (it.background) {
            void this.exec(it.node, out, err, '').catch(() => undefined);
            st = 0;
          } else st = await this.exec(it.node, out, err, stdin);
          this.status = st;
        }
        return st;
      }
      case 'andor': {
        let st = await this.exec(n.first, out, err, stdin);
        for (const r of n.rest) {
          if ((r.op === '&&') === (st === 0)) st = await this.exec(r.node, out, err, stdin);
          this.status = st;
        }
        return st;
      }
      case 'pipe': {
        let input = stdin;
        let st = 0;
        for (let i = 0; i < n.cmds.length; i++) {
          const last = i === n.cmds.length - 1;
          let buf = '';
          st = await this.exec(n.cmds[i], last ? out : { write: (s) => (buf += s) }, err, input);
          input = buf;
        }
        return st;
      }
      case 'while': {
        for (;;) {
          const t0 = this.io.now();
          const c = await this.exec(n.cond, out, err, stdin);
          if ((c === 0) === n.until) return 0;
          await this.exec(n.body, out, err, stdin);
          if (this.io.now() === t0) await this.io.sleep(1000);
        }
      }
      case 'for': {
        const items: string[] = [];
        for (const w of n.words) items.push(...(await this.expand(w)).split(/\s+/).filter(Boolean));
        let st = 0;
        for (const v of items) {
          this.vars.set(n.name, v);
          st = await this.exec(n.body, out, err, stdin);
        }
        return st;
      }
      case 'if': {
        for (const b of n.branches) if ((await this.exec(b.cond, out, err, stdin)) === 0) return this.exec(b.body, out, err, stdin);
        return n.otherwise ? this.exec(n.otherwise, out, err, stdin) : 0;
      }
      case 'simple':
        return this.simple(n.words, n.redirects, out, err, stdin);
    }
  }

  private async simple(words: Word[], redirects: Redirect[], out0: Out, err0: Out, stdin: string): Promise<number> {
    if (this.io.isKilled?.()) throw new KilledError();
    const argv: string[] = [];
    for (const w of words) {
      const unquoted = w.every((s) => s.q === 'none');
      const v = await this.expand(w);
      if (unquoted && w.some((s) => s.text.includes('$'))) argv.push(...v.split(/\s+/).filter(Boolean));
      else argv.push(v);
    }
    while (argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0])) {
      const a = argv.shift()!;
      const eq = a.indexOf('=');
      this.vars.set(a.slice(0, eq), a.slice(eq + 1));
    }
    let out = out0;
    let err = err0;
    let input = stdin;
    const pending: (() => void)[] = [];
    for (const r of redirects) {
      if (r.op === 'dup') {
        if (r.fd === 2) err = r.target === 1 ? out : err;
        else out = r.target === 2 ? err : out;
        continue;
      }
      const file = await this.expand(r.target as Word);
      if (r.op === '<') {
        input = this.io.fs.read(file) ?? '';
        continue;
      }
      if (file === '/dev/null') {
        const sink = { write: () => undefined };
        if (r.fd === 2) err = sink;
        else out = sink;
        continue;
      }
      let buf = '';
      const target = { write: (s: string) => (buf += s) };
      const append = r.op === '>>';
      if (!append) this.io.fs.write(file, '');
      pending.push(() => this.io.fs.write(file, buf, true));
      if (r.fd === 2) err = target;
      else out = target;
    }
    if (!argv.length) return 0;
    try {
      return await this.runArgv(argv, out, err, input);
    } finally {
      for (const p of pending) p();
    }
  }

  /** Expands `$VAR`, `${VAR}`, `$?`, `$((expr))`, `$(cmd)` in unquoted/double-quoted segments. */
  async expand(w: Word): Promise<string> {
    let s = '';
    for (const seg of w) {
      if (seg.q === 'single') {
        s += seg.text;
        continue;
      }
      const t = seg.text;
      let i = 0;
      while (i < t.length) {
        const c = t[i];
        if (c === '\\' && t[i + 1] === '$') {
          s += '$';
          i += 2;
          continue;
        }
        if (c !== '$') {
          s += c;
          i++;
          continue;
        }
        if (t.startsWith('$((', i)) {
          const end = t.indexOf('))', i);
          s += String(this.arith(t.slice(i + 3, end < 0 ? t.length : end)));
          i = end < 0 ? t.length : end + 2;
        } else if (t[i + 1] === '(') {
          let depth = 0;
          let j = i + 1;
          for (; j < t.length; j++) {
            if (t[j] === '(') depth++;
            else if (t[j] === ')' && --depth === 0) break;
          }
          let buf = '';
          const sub = new Shell(this.io, new Map(this.vars));
          await sub.runScript(t.slice(i + 2, j), { write: (x) => (buf += x) }, { write: (x) => this.io.write('stderr', x) }, '').catch((e: unknown) => {
            if (!(e instanceof ExitError)) throw e;
          });
          s += buf.replace(/\n+$/, '');
          i = j + 1;
        } else if (t[i + 1] === '{') {
          const end = t.indexOf('}', i);
          s += this.vars.get(t.slice(i + 2, end).replace(/:?-.*$/, '')) ?? t.slice(i + 2, end).replace(/^[^-]*:?-/, '').replace(/^[^-]*$/, '');
          i = end + 1;
        } else if (t[i + 1] === '?') {
          s += String(this.status);
          i += 2;
        } else {
          const m = /^[A-Za-z_][A-Za-z0-9_]*|^[0-9@#*]/.exec(t.slice(i + 1));
          if (!m) {
            s += '$';
            i++;
          } else {
            s += this.vars.get(m[0]) ?? '';
            i += 1 + m[0].length;
          }
        }
      }
    }
    return s;
  }

  /** Integer arithmetic: + - * / % and parentheses over numbers and variables. */
  private arith(expr: string): number {
    const toks = expr.match(/\d+|[A-Za-z_][A-Za-z0-9_]*|[-+*/%()]/g) ?? [];
    let p = 0;
    const atom = (): number => {
      const t = toks[p++];
      if (t === '(') {
        const v = sum();
        p++;
        return v;
      }
      if (t === '-') return -atom();
      if (t === undefined) return 0;
      if (/^\d/.test(t)) return Number(t);
      return Number(this.vars.get(t) ?? 0) || 0;
    };
    const prod = (): number => {
      let v = atom();
      while (toks[p] === '*' || toks[p] === '/' || toks[p] === '%') {
        const op = toks[p++];
        const r = atom();
        v = op === '*' ? v * r : r === 0 ? 0 : op === '/' ? Math.trunc(v / r) : v % r;
      }
      return v;
    };
    const sum = (): number => {
      let v = prod();
      while (toks[p] === '+' || toks[p] === '-') v = toks[p++] === '+' ? v + prod() : v - prod();
      return v;
    };
    return sum();
  }

  async runArgv(argv: string[], out: Out, err: Out, stdin: string): Promise<number> {
    const [cmd0, ...args] = argv;
    const cmd = path.posix.basename(cmd0);
    const fs = this.io.fs;
    switch (cmd) {
      case 'sh':
      case 'bash':
      case 'ash':
      case 'dash': {
        const ci = args.indexOf('-c');
        if (ci < 0) return 0;
        try {
          return await new Shell(this.io, this.vars).runScript(args[ci + 1] ?? '', out, err, stdin);
        } catch (e) {
          if (e instanceof ExitError) return e.code;
          throw e;
        }
      }
      case 'exec':
        return args.length ? this.runArgv(args, out, err, stdin) : 0;
      case 'echo': {
        let nl = true;
        let esc = false;
        while (args[0] && /^-[neE]+$/.test(args[0])) {
          const f = args.shift()!;
          if (f.includes('n')) nl = false;
          if (f.includes('e')) esc = true;
        }
        const text = args.join(' ');
        out.write((esc ? unescape(text) : text) + (nl ? '\n' : ''));
        return 0;
      }
      case 'printf': {
        const fmt = args.shift() ?? '';
        let k = 0;
        out.write(unescape(fmt).replace(/%([sd%])/g, (_m, f: string) => (f === '%' ? '%' : f === 'd' ? String(Number(args[k++] ?? 0) | 0) : (args[k++] ?? ''))));
        return 0;
      }
      case 'sleep': {
        const a = args[0] ?? '0';
        if (a === 'infinity') await this.io.sleep(Infinity);
        else {
          const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(a);
          if (!m) {
            err.write(`sleep: invalid number '${a}'\n`);
            return 1;
          }
          const unit = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as '' | 's'];
          await this.io.sleep(Number(m[1]) * unit);
        }
        return 0;
      }
      case 'trap': {
        const [action, ...sigs] = args;
        if (action !== undefined && sigs.some((x) => /^(SIG)?TERM$|^15$/.test(x))) this.io.setTermTrap?.(action);
        return 0;
      }
      case 'true':
      case ':':
      case 'kill':
      case 'set':
      case 'shift':
      case 'read':
        return 0;
      case 'false':
        return 1;
      case 'exit':
        throw new ExitError(Number(args[0] ?? this.status) & 255);
      case 'cd':
        return 0;
      case 'export':
        for (const a of args) {
          const eq = a.indexOf('=');
          if (eq > 0) this.vars.set(a.slice(0, eq), a.slice(eq + 1));
        }
        return 0;
      case 'cat': {
        if (!args.length) {
          out.write(stdin);
          return 0;
        }
        let st = 0;
        for (const f of args) {
          const d = fs.read(f);
          if (d === undefined || fs.kind(f) === 'dir') {
            err.write(fs.kind(f) === 'dir' ? `cat: read error: Is a directory\n` : `cat: can't open '${f}': No such file or directory\n`);
            st = 1;
          } else out.write(d);
        }
        return st;
      }
      case 'head':
      case 'tail': {
        const follow = args.some((a) => a === '-f' || a === '-F');
        const files = args.filter((a) => !a.startsWith('-') && !/^\d+$/.test(a));
        for (const f of files) out.write(fs.read(f) ?? '');
        if (!files.length) out.write(stdin);
        if (follow) await this.io.sleep(Infinity);
        return 0;
      }
      case 'grep': {
        const quiet = args.includes('-q');
        const rest = args.filter((a) => !a.startsWith('-'));
        const text = rest[1] !== undefined ? (fs.read(rest[1]) ?? '') : stdin;
        const lines = text.split('\n').filter((l) => l.includes(rest[0] ?? ''));
        if (!quiet) for (const l of lines) out.write(`${l}\n`);
        return lines.length ? 0 : 1;
      }
      case 'ls': {
        const all = args.some((a) => /^-\w*a/.test(a));
        const long = args.some((a) => /^-\w*l/.test(a));
        const paths = args.filter((a) => !a.startsWith('-'));
        let st = 0;
        for (const p of paths.length ? paths : ['.']) {
          const k = fs.kind(p);
          if (!k) {
            err.write(`ls: ${p}: No such file or directory\n`);
            st = 1;
            continue;
          }
          const names = k === 'dir' ? (fs.list(p) ?? []).filter((n) => all || !n.startsWith('.')) : [p];
          for (const n of names) out.write(long ? `-rw-r--r--    1 root     root             0 Jan  1 00:00 ${n}\n` : `${n}\n`);
        }
        return st;
      }
      case 'touch':
        for (const f of args.filter((a) => !a.startsWith('-'))) if (fs.read(f) === undefined) fs.write(f, '');
        return 0;
      case 'mkdir':
        for (const f of args.filter((a) => !a.startsWith('-'))) fs.mkdir(f);
        return 0;
      case 'rm': {
        const force = args.some((a) => /^-\w*f/.test(a));
        let st = 0;
        for (const f of args.filter((a) => !a.startsWith('-'))) {
          if (!fs.remove(f) && !force) {
            err.write(`rm: can't remove '${f}': No such file or directory\n`);
            st = 1;
          }
        }
        return st;
      }
      case 'test':
      case '[':
        return this.test(cmd === '[' ? args.slice(0, -1) : args) ? 0 : 1;
      case 'printenv': {
        if (!args.length) {
          for (const [k, v] of this.vars) out.write(`${k}=${v}\n`);
          return 0;
        }
        let st = 0;
        for (const a of args) {
          const v = this.vars.get(a);
          if (v === undefined) st = 1;
          else out.write(`${v}\n`);
        }
        return st;
      }
      case 'env':
        for (const [k, v] of this.vars) out.write(`${k}=${v}\n`);
        return 0;
      case 'hostname':
        out.write(`${this.io.hostname}\n`);
        return 0;
      case 'date':
        out.write(`${new Date(this.io.now()).toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/, '$1 $3 $2 $5 UTC $4')}\n`);
        return 0;
      case 'id':
        out.write(`uid=${this.io.uid} gid=${this.io.gid}${this.io.groups.length ? ` groups=${this.io.groups.join(',')}` : ''}\n`);
        return 0;
      case 'wget':
      case 'curl': {
        const url = args.filter((a) => /^[a-z]+:\/\//.test(a))[0] ?? args[args.length - 1] ?? '';
        const host = /^[a-z]+:\/\/([^/:]+)/.exec(url)?.[1] ?? url;
        if (cmd === 'wget') {
          err.write(`wget: bad address '${host}'\n`);
          return 1;
        }
        err.write(`curl: (6) Could not resolve host: ${host}\n`);
        return 6;
      }
      default:
        // An unknown program: behaves like a server and runs until stopped.
        await this.io.sleep(Infinity);
        return 0;
    }
  }

  private test(a: string[]): boolean {
    if (a[0] === '!') return !this.test(a.slice(1));
    const fs = this.io.fs;
    if (a.length === 0) return false;
    if (a.length === 1) return a[0] !== '';
    if (a.length === 2) {
      const [op, v] = a;
      switch (op) {
        case '-e':
          return fs.kind(v) !== undefined;
        case '-f':
          return fs.kind(v) === 'file';
        case '-d':
          return fs.kind(v) === 'dir';
        case '-s':
          return (fs.read(v) ?? '').length > 0;
        case '-z':
          return v === '';
        case '-n':
          return v !== '';
      }
      return false;
    }
    const [l, op, r] = a;
    const nl = Number(l);
    const nr = Number(r);
    switch (op) {
      case '=':
      case '==':
        return l === r;
      case '!=':
        return l !== r;
      case '-eq':
        return nl === nr;
      case '-ne':
        return nl !== nr;
      case '-lt':
        return nl < nr;
      case '-le':
        return nl <= nr;
      case '-gt':
        return nl > nr;
      case '-ge':
        return nl >= nr;
    }
    return false;
  }
}

function unescape(s: string): string {
  return s.replace(/\\([ntr\\])/g, (_m, c: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\' })[c] ?? c);
}
