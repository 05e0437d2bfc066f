/**
 * The contract between the simulated shell (shell.ts), its commands
 * (commands-*.ts) and the runtime that hosts them (runtime.ts): what a program sees of
 * its container (environment, filesystem, user, clock, terminal, the pod's network)
 * and how it ends (exit, kill, interrupt).
 */
import type { SimClusterNetwork } from './cluster-net.js';
import type { SimFs } from './fs.js';
import type { Stdin } from './stdin.js';

/** Thrown inside a program when its container or exec session is killed. */
export class KilledError extends Error {
  constructor() {
    super('killed');
  }
}

/** Thrown inside the foreground program on Ctrl-C (SIGINT): exit status 130. */
export class InterruptError extends Error {
  constructor() {
    super('interrupted');
  }
}

/** Ends the shell with an exit code (the `exit` builtin). */
export class ExitError extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Where a program writes one of its output streams. */
export type Out = { write(s: string): void };

/** One process as `ps` lists it. */
export interface ProcessInfo {
  pid: number;
  uid: number;
  /** command line */
  cmd: string;
}

/** An HTTP request from inside the pod (`curl`, `wget`). */
export interface HttpRequest {
  method: 'GET' | 'HEAD';
  /** as written in the URL (`localhost`, `127.0.0.1`, `[::1]`, a name) */
  host: string;
  port: number;
  /** path and query, starting with `/` */
  path: string;
}

/**
 * What the pod's network answered: the name did not resolve, nothing listens
 * (refused), no route (another host: the simulation has no network), or a response.
 */
export type HttpAnswer =
  | { kind: 'unresolved' }
  | { kind: 'refused' | 'unreachable'; ip: string }
  /** no answer at all (a NetworkPolicy drops the packets): the client's connect times out */
  | { kind: 'timeout'; ip: string }
  | { kind: 'response'; ip: string; status: number; reason: string; headers: [string, string][]; body: string };

/** What a program sees of its container. */
export interface ShellIO {
  /** environment of the process (copied by each shell) */
  env: Map<string, string>;
  /** the container's filesystem, at its working directory */
  fs: SimFs;
  hostname: string;
  /** uid/gid the container runs as (for `id`, `whoami`, file owners) */
  uid: number;
  gid: number;
  groups: number[];
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** Resolves after `ms` of simulated time; Infinity waits until killed. Rejects with KilledError / InterruptError. */
  sleep(ms: number): Promise<void>;
  /** ms since epoch */
  now(): number;
  /** default: empty */
  stdin?: Stdin;
  /** the process has a terminal: interactive shells prompt */
  tty?: boolean;
  /**
   * How a program the simulation does not know behaves: `serve` runs until stopped
   * (a container's main process: nginx, redis-server, …), `notFound` fails like a
   * shell (`sh: NAME: not found`, exit 127; exec sessions and probes).
   */
  unknown: 'serve' | 'notFound';
  /** programs the image adds to the busybox-like set (e.g. `perl` in perl images) */
  programs?: ReadonlySet<string>;
  /** `trap ACTION TERM`: the script to run when the container is asked to stop ('' = ignore, '-' = default) */
  setTermTrap?(action: string): void;
  /** true once the process was killed: every further command throws KilledError */
  isKilled?(): boolean;
  /** true (once) after Ctrl-C: the next command throws InterruptError */
  takeInterrupt?(): boolean;
  /** the container's processes, for `ps` (default: just this one) */
  processes?(): ProcessInfo[];
  /** HTTP from inside the pod (default: no network) */
  http?(req: HttpRequest): HttpAnswer;
  /** the SIMULATED cluster network for nslookup/nc (default: none, names do not resolve) */
  cluster?(): { net: SimClusterNetwork; podIP: string; resolvConf: string } | undefined;
}

/** What a command gets. */
export interface CmdCtx {
  io: ShellIO;
  /** the filesystem at the shell's current directory */
  fs: SimFs;
  /** the shell's variables (environment) */
  vars: Map<string, string>;
  out: Out;
  err: Out;
  stdin: Stdin;
}

/** A command: arguments without argv[0]; resolves to its exit status. */
export type Command = (args: string[], c: CmdCtx) => Promise<number>;
