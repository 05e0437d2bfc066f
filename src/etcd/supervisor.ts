/**
 * Runs the managed etcd member as a child process of `k8ts server` and keeps it running:
 * `etcd --config-file <data-dir>/etcd/config.yaml`, restarted after a crash (500 ms,
 * doubling up to 30 s), stopped with the server. k3s runs etcd inside its own process,
 * so a `kill -9` of the server takes the member down with it; here the child gets the
 * same fate through the parent-death signal (`setpriv --pdeathsig KILL`, util-linux),
 * so a killed server never leaves an orphan member holding its ports.
 *
 * Its log (zap JSON lines on stderr) goes to `<data-dir>/etcd/etcd.log` (truncated at
 * each server start) and, line by line, to `onLine` (the `etcd-<node>` pod's log).
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/daemons/executor/etcd.go
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { findExecutable } from '../cri/containerd/supervisor.js';

/** Thrown when etcd cannot be started or does not become healthy. */
export class ManagedEtcdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManagedEtcdError';
  }
}

export interface EtcdProcessOptions {
  /** `<data-dir>/etcd`: the config file is `config.yaml` there, the log `etcd.log` */
  dir: string;
  /** `http://127.0.0.1:<metrics>/health` */
  healthURL: string;
  /** the etcd binary; default `etcd` on PATH (Debian package etcd-server) */
  etcdBin?: string;
  /** each log line of etcd */
  onLine?: (line: string) => void;
  /** told about exits and restarts */
  onEvent?: (message: string) => void;
  /** first restart delay after a crash, ms; default 500 */
  restartDelayMs?: number;
}

export interface EtcdProcess {
  /** the running member's PID (changes on restart) */
  readonly pid: number | undefined;
  /** when the current process started, ms since the epoch */
  readonly startedAt: number;
  /** restarts after crashes */
  readonly restarts: number;
  /** the last lines etcd wrote */
  logTail(lines?: number): string;
  /** GET /health: true when etcd answers `"health":"true"` (it has a leader and quorum) */
  healthy(): Promise<boolean>;
  /**
   * Waits until healthy. @throws ManagedEtcdError when etcd exits for good or `timeoutMs` passes,
   * with the log tail
   */
  waitHealthy(timeoutMs: number): Promise<void>;
  /** SIGTERM, SIGKILL after 10 s; no restart afterwards */
  stop(): Promise<void>;
}

/** GET `url` with a 2 s timeout: true on 200 with `"health":"true"`. */
export function checkHealth(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && /"health"\s*:\s*"true"/.test(body)));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/**
 * Starts etcd on the config file in `o.dir`.
 * @throws ManagedEtcdError when the etcd binary is not installed
 */
export function startEtcdProcess(o: EtcdProcessOptions): EtcdProcess {
  const bin = o.etcdBin ?? findExecutable('etcd');
  if (!bin) throw new ManagedEtcdError('etcd is not installed: install the Debian package etcd-server (sudo scripts/install-deps.sh)');
  const setpriv = findExecutable('setpriv');
  const argv = [...(setpriv ? [setpriv, '--pdeathsig', 'KILL', '--'] : []), bin, '--config-file', join(o.dir, 'config.yaml')];
  const log: WriteStream = createWriteStream(join(o.dir, 'etcd.log'), { flags: 'w' });
  log.on('error', () => undefined);
  const tail: string[] = [];
  let child: ChildProcess | undefined;
  let startedAt = Date.now();
  let restarts = 0;
  let stopping = false;
  let exitedForGood = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = o.restartDelayMs ?? 500;

  const onData = (buf: string) => {
    log.write(buf);
    for (const line of buf.split('\n')) {
      if (!line) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      o.onLine?.(line);
    }
  };
  const launch = (): void => {
    startedAt = Date.now();
    const c = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    let partial = '';
    const take = (d: Buffer) => {
      const s = partial + d.toString();
      const cut = s.lastIndexOf('\n');
      partial = cut < 0 ? s : s.slice(cut + 1);
      if (cut >= 0) onData(s.slice(0, cut + 1));
    };
    c.stdout!.on('data', take);
    c.stderr!.on('data', take);
    c.on('error', (err) => o.onEvent?.(`etcd: ${err.message}`));
    c.once('exit', (code, signal) => {
      if (stopping) return;
      const up = Date.now() - startedAt;
      if (up > 60_000) delay = o.restartDelayMs ?? 500;
      o.onEvent?.(`etcd exited (code ${code}, signal ${signal}); restarting in ${delay} ms`);
      timer = setTimeout(() => {
        timer = undefined;
        restarts++;
        launch();
      }, delay);
      delay = Math.min(delay * 2, 30_000);
      if (restarts >= 5 && up < 5_000) exitedForGood = true;
    });
  };
  launch();

  const p: EtcdProcess = {
    get pid() {
      return child?.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    get startedAt() {
      return startedAt;
    },
    get restarts() {
      return restarts;
    },
    logTail: (n = 20) => tail.slice(-n).join('\n'),
    healthy: () => checkHealth(o.healthURL),
    async waitHealthy(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (exitedForGood) break;
        if (await checkHealth(o.healthURL)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new ManagedEtcdError(`etcd did not become healthy within ${Math.round(timeoutMs / 1000)} s (${o.healthURL}); log tail:\n${p.logTail()}`);
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      const c = child;
      if (c && c.exitCode === null && c.signalCode === null) {
        const gone = new Promise<void>((r) => c.once('exit', () => r()));
        c.kill('SIGTERM');
        const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
        await gone;
        clearTimeout(t);
      }
      await new Promise<void>((r) => log.end(() => r()));
    },
  };
  return p;
}

let versionCache: string | undefined;
/** `etcd --version`'s version (e.g. `3.4.23`), `unknown` when it cannot be read; cached. */
export function etcdBinaryVersion(bin = 'etcd'): string {
  if (versionCache) return versionCache;
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  versionCache = /etcd Version: (\S+)/.exec(out)?.[1] ?? 'unknown';
  return versionCache;
}
