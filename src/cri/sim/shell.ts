/**
 * The programs a simulated container can run. The simulated runtime does not
 * execute anything on the host: it interprets a container's command line here,
 * against the container's {@link SimFs}, environment and the injected clock, and
 * writes what the program prints to the container's CRI log (or the exec stream).
 *
 * The shell (`sh|bash|ash|dash`, by basename, so `/bin/sh` = `sh`):
 * - `-c SCRIPT [NAME ARGS…]` runs the script language of shell-parse.ts (`$0`, `$1`… set);
 *   `sh FILE` runs a script file; `sh` alone reads commands from stdin line by line
 *   (an interactive shell on a terminal, with a prompt), until end of input or `exit`;
 * - builtins: `cd`, `pwd`, `export`, `unset`, `read`, `eval`, `.`/`source`, `exec`,
 *   `exit [N]`, `test`/`[` (`-e -f -d -s -r -w -x -L -z -n`, `= !=`, `-eq -ne -lt -le -gt -ge`, `!`),
 *   `trap ACTION TERM` (StopContainer's SIGTERM runs ACTION and ends the process with
 *   its status), `which`, `command -v`, `set`/`shift` (accepted);
 * - `bash` also has indexed arrays: `a=(x y)`, `${a[N]}`, `${a[$i]}`, `${a[@]}`, `${#a[@]}`
 *   (other shells fail on `a=(` as ash does);
 * - commands: commands-fs.ts (`cat rev head tail grep wc ls touch mkdir rm`), commands-sys.ts
 *   (`echo printf sleep true false : kill hostname date id whoami ps uname env printenv`),
 *   commands-net.ts (`curl wget nslookup getent`); a path to a script file runs it;
 *   image programs (ShellIO.programs): `perl` of perl images (commands-perl.ts, bpi only).
 *
 * Any other program: in a container's main process it runs until stopped, like a
 * server (nginx, redis-server …), except the interpreters and tools of
 * {@link NOT_SERVERS} (python, node, perl without a perl image …), which fail as
 * missing; in an exec session or probe it fails as a shell would (`sh: NAME: not
 * found`, exit 127).
 *
 * Signals: a shell or `sleep` as PID 1 ignores SIGTERM (no default action for PID 1)
 * unless it set a `trap`; StopContainer then kills it after the timeout (exit 137).
 * Other programs (servers) exit 0 on SIGTERM. Ctrl-C on a terminal interrupts the
 * foreground command (exit 130). A loop whose iteration takes no simulated time is
 * paced at one iteration per second, so busy loops never spin the process.
 */
import * as path from 'node:path';
import { fsCommands, idNames } from './commands-fs.js';
import { netCommands } from './commands-net.js';
import { perl } from './commands-perl.js';
import { sysCommands } from './commands-sys.js';
import { FsError, type SimFs } from './fs.js';
import { parse, tokenize, type Node, type Redirect, type Word } from './shell-parse.js';
import { ExitError, InterruptError, KilledError, type CmdCtx, type Command, type Out, type ShellIO } from './shell-io.js';
import { stringStdin, type Stdin } from './stdin.js';

export { InterruptError, KilledError, type ShellIO } from './shell-io.js';

const COMMANDS: Record<string, Command> = { ...fsCommands, ...sysCommands, ...netCommands };
/** Programs only some images have (ShellIO.programs). */
const IMAGE_COMMANDS: Record<string, Command> = { perl };

/**
 * Interpreters and tools that are not servers: when an image lacks them
 * (ShellIO.programs) they fail as missing programs, even as a container's main
 * process (which otherwise runs an unknown program as a server). Busybox applets the
 * simulation does not implement (sed, awk …) are not listed: busybox has them.
 */
export const NOT_SERVERS: ReadonlySet<string> = new Set(['perl', 'python', 'python2', 'python3', 'ruby', 'node', 'nodejs', 'php', 'java', 'lua', 'tclsh', 'Rscript', 'jq']);
const SHELLS = new Set(['sh', 'bash', 'ash', 'dash']);
const BUILTINS = new Set(['exec', 'exit', 'cd', 'pwd', 'export', 'unset', 'set', 'shift', 'read', 'trap', 'test', '[', 'eval', 'source', '.', 'which', 'command']);

/** True when the simulation implements `name` (a basename). */
export function knownProgram(name: string): boolean {
  return SHELLS.has(name) || BUILTINS.has(name) || Object.hasOwn(COMMANDS, name);
}

/**
 * Runs one program (argv) to completion and returns its exit status (130 after
 * Ctrl-C). Never resolves for long-running programs until killed (then rejects with
 * KilledError).
 */
export async function runProgram(argv: string[], io: ShellIO): Promise<number> {
  const sh = new Shell(io, new Map(io.env), io.fs);
  try {
    return await sh.runArgv(argv, { write: (s) => io.write('stdout', s) }, { write: (s) => io.write('stderr', s) }, io.stdin ?? stringStdin(''));
  } catch (e) {
    if (e instanceof ExitError) return e.code;
    if (e instanceof InterruptError) return 130;
    throw e;
  }
}

/** A parse error that more input can complete (open quote, missing `done`/`fi`, trailing `&&`). */
function incomplete(e: unknown): boolean {
  return e instanceof Error && /unterminated|expected "|unexpected token ""/.test(e.message);
}

const ASH_ERRNO: Record<FsError['code'], string> = {
  ENOENT: 'nonexistent directory',
  EROFS: 'Read-only file system',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EEXIST: 'File exists',
};

class Shell {
  status = 0;
  /** running as bash: indexed arrays are available */
  bash = false;
  /** bash indexed arrays */
  private readonly arrays = new Map<string, string[]>();
  /** lines consumed by `read` (a loop reading its input is not a busy loop) */
  private linesRead = 0;
  constructor(
    private readonly io: ShellIO,
    private readonly vars: Map<string, string>,
    private fs: SimFs,
    /** `$0`, `$1`…, `$#`, `$@`, `$*` */
    private readonly params = new Map<string, string>(),
  ) {}

  private checkSignals(): void {
    if (this.io.isKilled?.()) throw new KilledError();
    if (this.io.takeInterrupt?.()) throw new InterruptError();
  }

  async runScript(script: string, out: Out, err: Out, stdin: Stdin): Promise<number> {
    let ast: Node;
    try {
      ast = parse(script, this.bash);
    } catch (e) {
      err.write(`sh: ${(e as Error).message}\n`);
      return 2;
    }
    return this.exec(ast, out, err, stdin);
  }

  /** Reads commands from stdin until its end or `exit`; prompts on a terminal. */
  private async repl(name: string, out: Out, err: Out, stdin: Stdin): Promise<number> {
    let buf = '';
    for (;;) {
      if (this.io.tty) out.write(buf ? '> ' : this.prompt(name));
      let line: string | undefined;
      try {
        line = await stdin.line();
      } catch (e) {
        if (!(e instanceof InterruptError)) throw e;
        this.io.takeInterrupt?.();
        buf = '';
        this.status = 130;
        continue;
      }
      if (line === undefined) {
        if (this.io.tty) out.write(name === 'bash' ? 'exit\n' : '\n');
        return this.status;
      }
      buf += `${line}\n`;
      let ast: Node;
      try {
        ast = parse(buf, this.bash);
      } catch (e) {
        if (incomplete(e)) continue;
        err.write(`${name}: ${(e as Error).message}\n`);
        buf = '';
        this.status = 2;
        continue;
      }
      buf = '';
      try {
        this.status = await this.exec(ast, out, err, stdin);
      } catch (e) {
        if (!(e instanceof InterruptError)) throw e;
        this.io.takeInterrupt?.();
        this.status = 130;
      }
    }
  }

  /** busybox ash `\w \$ `, bash (Debian) `\u@\h:\w\$ `. */
  private prompt(name: string): string {
    const home = this.vars.get('HOME');
    const cwd = home && home !== '/' && (this.fs.cwd === home || this.fs.cwd.startsWith(`${home}/`)) ? `~${this.fs.cwd.slice(home.length)}` : this.fs.cwd;
    const sign = this.io.uid === 0 ? '#' : '$';
    if (name === 'bash') return `${idNames(this.fs, '/etc/passwd').get(this.io.uid) ?? 'I have no name!'}@${this.io.hostname}:${cwd}${sign} `;
    return `${cwd} ${sign} `;
  }

  private async exec(n: Node, out: Out, err: Out, stdin: Stdin): Promise<number> {
    switch (n.t) {
      case 'list': {
        let st = 0;
        for (const it of n.items) {
          if (it.background) {
            void this.exec(it.node, out, err, stringStdin('')).catch(() => undefined);
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
          st = await this.exec(n.cmds[i]!, last ? out : { write: (s) => (buf += s) }, err, input);
          input = stringStdin(buf);
        }
        return st;
      }
      case 'while': {
        for (;;) {
          const t0 = this.io.now();
          const r0 = this.linesRead;
          const c = await this.exec(n.cond, out, err, stdin);
          if ((c === 0) === n.until) return 0;
          await this.exec(n.body, out, err, stdin);
          // an iteration that took no time and consumed no input would spin: pace it
          if (this.io.now() === t0 && this.linesRead === r0) await this.io.sleep(1000);
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

  private async simple(words: Word[], redirects: Redirect[], out0: Out, err0: Out, stdin: Stdin): Promise<number> {
    this.checkSignals();
    const argv: string[] = [];
    while (words[0]?.[1]?.q === 'array') {
      // bash `NAME=(WORD…)` (only bash's parser makes these)
      const [name, list] = words[0];
      words = words.slice(1);
      const items: string[] = [];
      for (const t of tokenize(list!.text, true)) {
        if (t.k !== 'word') continue;
        const unquoted = t.w.every((x) => x.q === 'none');
        const v = await this.expand(t.w);
        if (unquoted) items.push(...v.split(/\s+/).filter(Boolean));
        else items.push(v);
      }
      this.arrays.set(name!.text.slice(0, -1), items);
      if (!words.length) return 0;
    }
    for (const w of words) {
      const unquoted = w.every((s) => s.q === 'none');
      const v = await this.expand(w);
      if (unquoted && w.some((s) => s.text.includes('$'))) argv.push(...v.split(/\s+/).filter(Boolean));
      else argv.push(v);
    }
    while (argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0]!)) {
      const a = argv.shift()!;
      const eq = a.indexOf('=');
      this.vars.set(a.slice(0, eq), a.slice(eq + 1));
    }
    let out = out0;
    let err = err0;
    let input = stdin;
    for (const r of redirects) {
      if (r.op === 'dup') {
        if (r.fd === 2) err = r.target === 1 ? out : err;
        else out = r.target === 2 ? err : out;
        continue;
      }
      const file = await this.expand(r.target as Word);
      if (r.op === '<') {
        const text = this.fs.read(file);
        if (text === undefined) {
          err.write(`sh: can't open ${file}: no such file\n`);
          return 1;
        }
        input = stringStdin(text);
        continue;
      }
      if (file === '/dev/null') {
        const sink = { write: () => undefined };
        if (r.fd === 2) err = sink;
        else out = sink;
        continue;
      }
      try {
        this.fs.write(file, '', r.op === '>>');
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
        err0.write(`sh: can't create ${file}: ${ASH_ERRNO[e.code]}\n`);
        return 1;
      }
      const fs = this.fs;
      const target = {
        write: (s: string) => {
          try {
            fs.write(file, s, true);
          } catch {
            // the file went away: the output is lost, as with a removed directory
          }
        },
      };
      if (r.fd === 2) err = target;
      else out = target;
    }
    if (!argv.length) return 0;
    return this.runArgv(argv, out, err, input);
  }

  /** Expands `$VAR`, `${VAR}`, `${VAR:-x}`, `$?`, `$((expr))`, `$(cmd)` in unquoted/double-quoted segments. */
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
          const sub = new Shell(this.io, new Map(this.vars), this.fs, this.params);
          sub.bash = this.bash;
          for (const [k, v] of this.arrays) sub.arrays.set(k, v);
          await sub.runScript(t.slice(i + 2, j), { write: (x) => (buf += x) }, { write: (x) => this.io.write('stderr', x) }, stringStdin('')).catch((e: unknown) => {
            if (!(e instanceof ExitError)) throw e;
          });
          s += buf.replace(/\n+$/, '');
          i = j + 1;
        } else if (t[i + 1] === '{') {
          const end = t.indexOf('}', i);
          const arr = /^(#?)([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\]$/.exec(t.slice(i + 2, end));
          if (arr && this.bash) {
            // bash arrays: ${a[N]} ${a[$i]} ${a[@]} ${a[*]} ${#a[@]}
            const list = this.arrays.get(arr[2]!) ?? (this.vars.has(arr[2]!) ? [this.vars.get(arr[2]!)!] : []);
            const all = arr[3] === '@' || arr[3] === '*';
            if (arr[1]) s += String(all ? list.length : (list[this.arith(arr[3]!.replace(/\$/g, ''))] ?? '').length);
            else s += all ? list.join(' ') : (list[this.arith(arr[3]!.replace(/\$/g, ''))] ?? '');
            i = end + 1;
            continue;
          }
          s +=
            this.vars.get(t.slice(i + 2, end).replace(/:?-.*$/, '')) ??
            t
              .slice(i + 2, end)
              .replace(/^[^-]*:?-/, '')
              .replace(/^[^-]*$/, '');
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
            s += (/^[0-9@#*]$/.test(m[0]) ? this.params.get(m[0]) : this.vars.get(m[0])) ?? '';
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

  /** `sh [-c SCRIPT [NAME ARGS…] | FILE | (stdin)]`. */
  private async runShell(name: string, args: string[], out: Out, err: Out, stdin: Stdin): Promise<number> {
    const child = new Shell(this.io, new Map(this.vars), this.fs);
    child.bash = name === 'bash';
    let i = 0;
    let script: string | undefined;
    let fromStdin = false;
    while (i < args.length && args[i]!.startsWith('-') && args[i] !== '-') {
      const a = args[i++]!;
      if (a === '--') break;
      if (a.includes('c')) {
        script = args[i++] ?? '';
        break;
      }
      if (a.includes('s')) fromStdin = true;
    }
    const positional = args.slice(i);
    let file: string | undefined;
    if (script === undefined && !fromStdin && positional.length) file = positional.shift();
    child.params.set('0', script !== undefined ? (positional.shift() ?? name) : (file ?? name));
    positional.forEach((v, k) => child.params.set(String(k + 1), v));
    child.params.set('#', String(positional.length));
    child.params.set('@', positional.join(' '));
    child.params.set('*', positional.join(' '));
    try {
      if (script !== undefined) return await child.runScript(script, out, err, stdin);
      if (file !== undefined) {
        const text = this.fs.kind(file) === 'file' ? this.fs.read(file) : undefined;
        if (text === undefined) {
          err.write(`${name}: can't open '${file}': No such file or directory\n`);
          return 2;
        }
        return await child.runScript(text, out, err, stdin);
      }
      return await child.repl(name, out, err, stdin);
    } catch (e) {
      if (e instanceof ExitError) return e.code;
      throw e;
    }
  }

  async runArgv(argv: string[], out: Out, err: Out, stdin: Stdin): Promise<number> {
    const [cmd0 = '', ...args] = argv;
    const cmd = path.posix.basename(cmd0);
    if (SHELLS.has(cmd)) return this.runShell(cmd, args, out, err, stdin);
    switch (cmd) {
      case 'exec':
        return args.length ? this.runArgv(args, out, err, stdin) : 0;
      case 'exit':
        throw new ExitError(Number(args[0] ?? this.status) & 255);
      case 'cd': {
        const to = args[0] ?? this.vars.get('HOME') ?? '/';
        if (this.fs.kind(to) !== 'dir') {
          err.write(`sh: cd: can't cd to ${to}: No such file or directory\n`);
          return 2;
        }
        this.fs = this.fs.at(to);
        this.vars.set('PWD', this.fs.cwd);
        return 0;
      }
      case 'pwd':
        out.write(`${this.fs.cwd}\n`);
        return 0;
      case 'export':
        for (const a of args) {
          const eq = a.indexOf('=');
          if (eq > 0) this.vars.set(a.slice(0, eq), a.slice(eq + 1));
        }
        return 0;
      case 'unset':
        for (const a of args) this.vars.delete(a);
        return 0;
      case 'set':
      case 'shift':
        return 0;
      case 'read': {
        const names: string[] = [];
        for (let k = 0; k < args.length; k++) {
          if (args[k] === '-p') err.write(args[++k] ?? '');
          else if (!args[k]!.startsWith('-')) names.push(args[k]!);
        }
        if (!names.length) names.push('REPLY');
        const line = await stdin.line();
        if (line !== undefined) this.linesRead++;
        const parts = (line ?? '').trim().split(/\s+/).filter(Boolean);
        names.forEach((n, k) => this.vars.set(n, k === names.length - 1 ? parts.slice(k).join(' ') : (parts[k] ?? '')));
        return line === undefined ? 1 : 0;
      }
      case 'trap': {
        const [action, ...sigs] = args;
        if (action !== undefined && sigs.some((x) => /^(SIG)?TERM$|^15$/.test(x))) this.io.setTermTrap?.(action);
        return 0;
      }
      case 'test':
      case '[':
        return this.test(cmd === '[' ? args.slice(0, -1) : args) ? 0 : 1;
      case 'eval':
        return this.runScript(args.join(' '), out, err, stdin);
      case 'source':
      case '.': {
        const text = args[0] !== undefined ? this.fs.read(args[0]) : undefined;
        if (text === undefined) {
          err.write(`sh: ${cmd}: can't open '${args[0] ?? ''}': No such file or directory\n`);
          return 2;
        }
        return this.runScript(text, out, err, stdin);
      }
      case 'command':
        if (args[0] !== '-v') return args.length ? this.runArgv(args, out, err, stdin) : 0;
        return this.which(args.slice(1), true, out);
      case 'which':
        return this.which(args, false, out);
    }
    const f = COMMANDS[cmd];
    const ctx: CmdCtx = { io: this.io, fs: this.fs, vars: this.vars, out, err, stdin };
    if (f) return f(args, ctx);
    const g = Object.hasOwn(IMAGE_COMMANDS, cmd) && this.io.programs?.has(cmd) ? IMAGE_COMMANDS[cmd] : undefined;
    if (g) return g(args, ctx);
    if (cmd0.includes('/') && this.fs.kind(cmd0) === 'file') {
      // a script file (its `#!` line is a comment to the shell)
      return this.runShell('sh', [cmd0, ...args], out, err, stdin);
    }
    if (this.io.unknown === 'notFound' || (NOT_SERVERS.has(cmd) && !this.io.programs?.has(cmd))) {
      err.write(`sh: ${cmd0}: not found\n`);
      return 127;
    }
    // An unknown program in a container's main process behaves like a server: it runs until stopped.
    await this.io.sleep(Infinity);
    return 0;
  }

  /** `which NAME…` / `command -v NAME…`: where a known program is (busybox applets live in /bin). */
  private which(names: string[], builtins: boolean, out: Out): number {
    let st = 0;
    for (const n of names) {
      const b = path.posix.basename(n);
      if (builtins && (BUILTINS.has(b) || SHELLS.has(b)) && !n.includes('/')) out.write(`${n}\n`);
      else if (knownProgram(b) || (n.includes('/') && this.fs.kind(n) === 'file')) out.write(`${n.includes('/') ? n : `/bin/${n}`}\n`);
      else st = 1;
    }
    return st;
  }

  private test(a: string[]): boolean {
    if (a[0] === '!') return !this.test(a.slice(1));
    const fs = this.fs;
    if (a.length === 0) return false;
    if (a.length === 1) return a[0] !== '';
    if (a.length === 2) {
      const [op, v = ''] = a;
      switch (op) {
        case '-e':
        case '-r':
        case '-w':
          return fs.kind(v) !== undefined;
        case '-x':
          return fs.kind(v) === 'dir' || knownProgram(path.posix.basename(v));
        case '-f':
          return fs.kind(v) === 'file';
        case '-d':
          return fs.kind(v) === 'dir';
        case '-L':
        case '-h':
          return fs.lstat(v)?.kind === 'symlink';
        case '-s':
          return (fs.lstat(v)?.size ?? 0) > 0 && fs.kind(v) !== undefined;
        case '-z':
          return v === '';
        case '-n':
          return v !== '';
      }
      return false;
    }
    const [l = '', op, r = ''] = a;
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
