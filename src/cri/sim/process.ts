/**
 * A simulated process: the main process of a container (PID 1) or an exec session.
 * It has no host process behind it; it is the state the shell's program waits on:
 * its timers (sleeps on the injected clock), its stdin, and its signals: kill
 * (SIGKILL/SIGTERM without a handler: every wait rejects with KilledError) and
 * interrupt (Ctrl-C: the current wait rejects with InterruptError).
 *
 * Also here: the environment and rootfs files a container starts with, as
 * containerd and runc give them (image PATH, HOSTNAME, TERM for a terminal, HOME from
 * the user's /etc/passwd entry; /etc/hostname and /etc/resolv.conf of the sandbox).
 *
 * @see https://github.com/opencontainers/runc/blob/main/libcontainer/init_linux.go (HOME from passwd)
 * @see https://github.com/containerd/containerd/blob/main/internal/cri/server/sandbox_run.go (resolv.conf, hostname)
 */
import * as fs from 'node:fs';
import type { ContainerConfig, DNSConfig } from '../api.js';
import { InterruptError, KilledError } from './shell-io.js';
import type { StreamStdin } from './stdin.js';

/** The clock the simulation runs on (structurally the kubelet's Clock). */
export interface SimClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(h: unknown): void;
}

interface Sleeper {
  timer: unknown;
  reject: (e: Error) => void;
}

export class SimProcess {
  private readonly sleepers = new Set<Sleeper>();
  /** settles when the program ended (the exit is recorded by then) */
  done: Promise<void> = Promise.resolve();
  killed = false;
  private interrupted = false;
  /** `trap ACTION TERM` of the process's shell */
  termTrap?: string;

  constructor(
    readonly pid: number,
    readonly argv: string[],
    readonly ignoreSigterm: boolean,
    private readonly clock: SimClock,
    readonly stdin?: StreamStdin,
  ) {}

  /** Resolves after `ms` of clock time (Infinity: never); rejects when killed or interrupted. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.killed) return reject(new KilledError());
      const entry: Sleeper = { timer: undefined, reject };
      if (ms !== Infinity) {
        entry.timer = this.clock.setTimeout(() => {
          this.sleepers.delete(entry);
          resolve();
        }, ms);
      }
      this.sleepers.add(entry);
    });
  }

  private wakeAll(e: () => Error): void {
    const list = [...this.sleepers];
    this.sleepers.clear();
    for (const sl of list) {
      if (sl.timer !== undefined) this.clock.clearTimeout(sl.timer);
      sl.reject(e());
    }
  }

  /** Ends the process: every wait, now and later, rejects with KilledError. */
  kill(): void {
    this.killed = true;
    this.wakeAll(() => new KilledError());
    this.stdin?.fail(new KilledError(), true);
  }

  /** Ctrl-C: the current wait rejects with InterruptError (or the next command, if none waits). */
  interrupt(): void {
    this.interrupted = true;
    this.wakeAll(() => new InterruptError());
    this.stdin?.fail(new InterruptError());
  }

  /** Clears and returns the pending interrupt. */
  takeInterrupt(): boolean {
    const i = this.interrupted;
    this.interrupted = false;
    return i;
  }
}

/** The image's PATH (every image the simulation knows uses the Debian/busybox default). */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Home directory of `uid` per an /etc/passwd text; runc's fallback is `/`. */
export function homeOf(passwd: string | undefined, uid: number): string {
  for (const l of (passwd ?? '').split('\n')) {
    const f = l.split(':');
    if (f.length >= 6 && f[2] === String(uid)) return f[5] || '/';
  }
  return '/';
}

/**
 * The environment of a process in the container, in the order a real one shows it:
 * PATH, HOSTNAME, TERM (terminal only), the container's variables, then HOME when unset.
 */
export function processEnv(config: ContainerConfig, hostname: string, tty: boolean, home: string): Map<string, string> {
  const env = new Map<string, string>([
    ['PATH', DEFAULT_PATH],
    ['HOSTNAME', hostname],
  ]);
  if (tty) env.set('TERM', 'xterm');
  for (const e of config.envs) env.set(e.key, e.value);
  if (!env.has('HOME')) env.set('HOME', home);
  return env;
}

/** containerd's resolv.conf for a sandbox DNS config; the host's file when the config is empty. */
export function resolvConf(dns: DNSConfig | undefined, hostFile = '/etc/resolv.conf'): string {
  if (!dns || (!dns.servers.length && !dns.searches.length && !dns.options.length)) {
    try {
      return fs.readFileSync(hostFile, 'utf8');
    } catch {
      return '';
    }
  }
  let out = '';
  if (dns.searches.length) out += `search ${dns.searches.join(' ')}\n`;
  for (const s of dns.servers) out += `nameserver ${s}\n`;
  if (dns.options.length) out += `options ${dns.options.join(' ')}\n`;
  return out;
}

/** /etc/hosts of a container the kubelet gives none (hostNetwork): the host's. */
export function hostEtcHosts(hostFile = '/etc/hosts'): string {
  try {
    return fs.readFileSync(hostFile, 'utf8');
  } catch {
    return '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n';
  }
}
