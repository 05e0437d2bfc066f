/**
 * A small runner for iptables (legacy or nft backend, whichever `iptables` is), used by
 * the node's network components for the chains they own: a whole set of chains is
 * written atomically with `iptables-restore --noflush` (the chains named in the input
 * are flushed and refilled, every other chain is left alone), and the jumps into them
 * from the built-in chains are added and removed one by one. Every call waits for the
 * xtables lock (`-w`). Never blocks the event loop.
 *
 * @see https://manpages.debian.org/bookworm/iptables/iptables-restore.8.en.html
 */
import { execFile, spawn } from 'node:child_process';

export type Table = 'filter' | 'nat' | 'mangle' | 'raw';

/** An iptables command that exited non-zero: its arguments and stderr. */
export class IptablesError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
    readonly code: number | null,
  ) {
    super(`${args.join(' ')}: ${stderr.trim() || `exit ${code}`}`);
  }
}

/** Runs `iptables -w ARGS`; resolves to stdout. @throws IptablesError */
export function iptables(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('iptables', ['-w', ...args], { encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new IptablesError(['iptables', ...args], stderr, typeof err.code === 'number' ? err.code : null));
      else resolve(stdout);
    }),
  );
}

/**
 * `iptables-restore -w --noflush` of one table: `chains` are declared (so created, or
 * flushed when they exist) and `rules` (`-A CHAIN …` lines) appended, all or nothing.
 * @throws IptablesError with the restore's message (the whole batch is then not applied)
 */
export function restoreChains(table: Table, chains: string[], rules: string[]): Promise<void> {
  const input = [`*${table}`, ...chains.map((c) => `:${c} - [0:0]`), ...rules, 'COMMIT', ''].join('\n');
  return new Promise((resolve, reject) => {
    const p = spawn('iptables-restore', ['-w', '--noflush'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', (e) => reject(new IptablesError(['iptables-restore'], e.message, null)));
    p.on('close', (code) => (code === 0 ? resolve() : reject(new IptablesError(['iptables-restore', `(${table})`], `${stderr}\n--- input ---\n${input}`, code))));
    p.stdin!.end(input);
  });
}

/** True when `chain` in `table` holds the rule `spec` (`iptables -C`). */
export async function hasRule(table: Table, chain: string, spec: string[]): Promise<boolean> {
  try {
    await iptables(['-t', table, '-C', chain, ...spec]);
    return true;
  } catch {
    return false;
  }
}

/** Inserts `spec` at the top of `chain` unless it is there already. */
export async function ensureRule(table: Table, chain: string, spec: string[]): Promise<void> {
  if (!(await hasRule(table, chain, spec))) await iptables(['-t', table, '-I', chain, '1', ...spec]);
}

/** Deletes every copy of `spec` from `chain` (none: nothing happens). */
export async function deleteRule(table: Table, chain: string, spec: string[]): Promise<void> {
  while (await hasRule(table, chain, spec)) await iptables(['-t', table, '-D', chain, ...spec]);
}

/** The user-defined chains of `table` whose names start with `prefix`. */
export async function listChains(table: Table, prefix: string): Promise<string[]> {
  const out = await new Promise<string>((resolve, reject) =>
    execFile('iptables-save', ['-t', table], { encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err ? reject(new IptablesError(['iptables-save', '-t', table], stderr, null)) : resolve(stdout),
    ),
  );
  return out
    .split('\n')
    .filter((l) => l.startsWith(`:${prefix}`))
    .map((l) => l.slice(1).split(' ')[0]!);
}

/** Flushes then deletes `chains` (those that exist; jumps into them must be gone first). */
export async function deleteChains(table: Table, chains: string[]): Promise<void> {
  if (!chains.length) return;
  const input = [`*${table}`, ...chains.map((c) => `:${c} - [0:0]`), ...chains.map((c) => `-X ${c}`), 'COMMIT', ''].join('\n');
  await new Promise<void>((resolve, reject) => {
    const p = spawn('iptables-restore', ['-w', '--noflush'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', (e) => reject(new IptablesError(['iptables-restore'], e.message, null)));
    p.on('close', (code) => (code === 0 ? resolve() : reject(new IptablesError(['iptables-restore', '-X'], stderr, code))));
    p.stdin!.end(input);
  });
}
