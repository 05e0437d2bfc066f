/**
 * Process and system commands of the simulated shell (busybox formats): `echo`,
 * `printf`, `sleep`, `true`, `false`, `:`, `kill`, `hostname`, `date`, `id`,
 * `whoami`, `ps`, `uname`, `env`, `printenv`.
 */
import * as os from 'node:os';
import { idNames } from './commands-fs.js';
import type { Command } from './shell-io.js';

/** `\n \t \r \\` escapes (echo -e, printf). */
export function unescape(s: string): string {
  return s.replace(/\\([ntr\\])/g, (_m, c: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\' })[c] ?? c);
}

const echo: Command = async (args, c) => {
  let nl = true;
  let esc = false;
  while (args[0] && /^-[neE]+$/.test(args[0])) {
    const f = args.shift()!;
    if (f.includes('n')) nl = false;
    if (f.includes('e')) esc = true;
  }
  const text = args.join(' ');
  c.out.write((esc ? unescape(text) : text) + (nl ? '\n' : ''));
  return 0;
};

const printf: Command = async (args, c) => {
  const fmt = unescape(args.shift() ?? '');
  let k = 0;
  // the format is reused while arguments remain (POSIX printf)
  do {
    c.out.write(fmt.replace(/%([sd%])/g, (_m, f: string) => (f === '%' ? '%' : f === 'd' ? String(Number(args[k++] ?? 0) | 0) : (args[k++] ?? ''))));
  } while (k > 0 && k < args.length);
  return 0;
};

const sleep: Command = async (args, c) => {
  const a = args[0] ?? '0';
  if (a === 'infinity') {
    await c.io.sleep(Infinity);
    return 0;
  }
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(a);
  if (!m) {
    c.err.write(`sleep: invalid number '${a}'\n`);
    return 1;
  }
  const unit = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  await c.io.sleep(Number(m[1]) * unit);
  return 0;
};

const date: Command = async (_args, c) => {
  c.out.write(`${new Date(c.io.now()).toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/, '$1 $3 $2 $5 UTC $4')}\n`);
  return 0;
};

const whoami: Command = async (_args, c) => {
  const name = idNames(c.fs, '/etc/passwd').get(c.io.uid);
  if (name === undefined) {
    c.err.write(`whoami: unknown uid ${c.io.uid}\n`);
    return 1;
  }
  c.out.write(`${name}\n`);
  return 0;
};

const ps: Command = async (_args, c) => {
  const users = idNames(c.fs, '/etc/passwd');
  const procs = c.io.processes?.() ?? [{ pid: 1, uid: c.io.uid, cmd: 'ps' }];
  c.out.write('PID   USER     TIME  COMMAND\n');
  for (const p of procs) c.out.write(`${String(p.pid).padStart(5)} ${(users.get(p.uid) ?? String(p.uid)).slice(0, 8).padEnd(8)} ${'0:00'.padStart(5)} ${p.cmd}\n`);
  return 0;
};

const MACHINE: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64', arm: 'armv7l', ia32: 'i686', s390x: 's390x', ppc64: 'ppc64le', riscv64: 'riscv64' };

/** `uname [-asnrvmo]`: the host's kernel, as a container sees it. */
const uname: Command = async (args, c) => {
  const f = new Set(args.filter((a) => a.startsWith('-')).flatMap((a) => [...a.slice(1)]));
  const machine = MACHINE[process.arch] ?? process.arch;
  const fields: [string, string][] = [
    ['s', 'Linux'],
    ['n', c.io.hostname],
    ['r', os.release()],
    ['v', os.version()],
    ['m', machine],
    ['o', 'GNU/Linux'],
  ];
  const bad = [...f].find((x) => !'asnrvmoip'.includes(x));
  if (bad) {
    c.err.write(`uname: invalid option -- '${bad}'\n`);
    return 1;
  }
  const picked = f.has('a') ? fields : fields.filter(([k]) => f.has(k));
  c.out.write(`${(picked.length ? picked : fields.slice(0, 1)).map(([, v]) => v).join(' ')}\n`);
  return 0;
};

const env: Command = async (_args, c) => {
  for (const [k, v] of c.vars) c.out.write(`${k}=${v}\n`);
  return 0;
};

const printenv: Command = async (args, c) => {
  if (!args.length) return env(args, c);
  let st = 0;
  for (const a of args) {
    const v = c.vars.get(a);
    if (v === undefined) st = 1;
    else c.out.write(`${v}\n`);
  }
  return st;
};

/** The process and system commands by name. */
export const sysCommands: Record<string, Command> = {
  echo,
  printf,
  sleep,
  true: async () => 0,
  ':': async () => 0,
  false: async () => 1,
  kill: async () => 0,
  hostname: async (_a, c) => {
    c.out.write(`${c.io.hostname}\n`);
    return 0;
  },
  date,
  id: async (_a, c) => {
    c.out.write(`uid=${c.io.uid} gid=${c.io.gid}${c.io.groups.length ? ` groups=${c.io.groups.join(',')}` : ''}\n`);
    return 0;
  },
  whoami,
  ps,
  uname,
  env,
  printenv,
};
