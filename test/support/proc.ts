/**
 * Child processes for tests: start with output to a log file, wait for readiness,
 * stop by PID (SIGTERM, then SIGKILL). Never kills by name.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';

export interface TestProcess {
  pid: number;
  child: ChildProcess;
  logFile: string;
  /** last lines of the log, for failure messages */
  logTail(lines?: number): string;
  /** whether it has exited */
  readonly exited: boolean;
  /** SIGTERM, SIGKILL after `graceMs` (default 5000); resolves when it is gone */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `cmd args…` with stdout+stderr appended to `logFile`. @throws when it cannot be spawned */
export function startProcess(cmd: string, args: string[], logFile: string, env?: NodeJS.ProcessEnv): TestProcess {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, { stdio: ['ignore', fd, fd], env: env ?? process.env });
  } finally {
    closeSync(fd);
  }
  if (!child.pid) throw new Error(`could not start ${cmd}`);
  let exited = false;
  const done = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())));
  child.on('error', () => {});
  return {
    pid: child.pid,
    child,
    logFile,
    get exited() {
      return exited;
    },
    logTail(lines = 20) {
      try {
        return readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
    async stop(graceMs = 5000) {
      if (exited) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await done;
      clearTimeout(t);
    },
  };
}

/** Polls `fn` every `intervalMs` until truthy. @throws Error naming `what` after `timeoutMs` */
export async function waitUntil<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** PIDs whose command line contains every one of `needles` (scans /proc). */
export function pidsByCmdline(...needles: string[]): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    if (needles.every((n) => cmd.includes(n))) out.push(Number(e));
  }
  return out;
}
