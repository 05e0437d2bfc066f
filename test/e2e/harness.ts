/**
 * e2e harness: starts a real `k8ts server` child process on a free port in a temp dir
 * and drives it with the real `kubectl` (a fresh --cache-dir per cluster). Fails loudly
 * when kubectl is missing. Servers are stopped by PID.
 */
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.js';

export const ROOT = new URL('../..', import.meta.url).pathname;
/** The published example manifests the tests apply (each names its source; see EXPECTED.md there). */
export const MANIFESTS = join(ROOT, 'test', 'fixtures', 'manifests');

let built = false;
/** Builds dist/k8ts.mjs once per test process. */
export function ensureBuilt(): void {
  if (built) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
  built = true;
}

import { helmPath, kubectlPath } from '../support/tools.js';

export { helmPath, kubectlPath };
export { freePort };

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Cluster {
  dir: string;
  port: number;
  kubeconfig: string;
  proc: ChildProcess;
  /** runs kubectl with this cluster's kubeconfig and cache dir */
  kubectl(args: string[], opts?: { input?: string; timeoutMs?: number }): KubectlResult;
  /** async variant for long-running commands (get -w) */
  /**
   * kubectl in the background; it is stopped (SIGTERM) after `timeoutMs` (30 s) or once `until`
   * settles, whichever is first. `onStdout` sees the whole standard output so far after each chunk.
   */
  kubectlAsync(args: string[], opts?: { timeoutMs?: number; until?: Promise<unknown>; onStdout?: (soFar: string) => void }): Promise<KubectlResult>;
  /** server stdout+stderr so far */
  log(): string;
  stop(): Promise<void>;
  /** kill -9 and wait for exit */
  kill(): Promise<void>;
  /** start again on the same data dir and port */
  restart(): Promise<void>;
}

export interface StartOptions {
  args?: string[];
  dir?: string;
  /** how long to wait for /readyz, ms (default 90 000; a server joining a managed etcd cluster waits for its member too) */
  readyTimeoutMs?: number;
}

/**
 * Waits until `kubectl get --raw /readyz` answers ok. A bound, not a timing assertion: on a
 * machine running many e2e files at once a server can take tens of seconds to start. A
 * server that does not become ready is killed, so it cannot outlive the test.
 */
async function waitReady(kubeconfig: string, kubectl: string, cacheDir: string, proc: ChildProcess, logs: () => string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`k8ts server exited with ${proc.exitCode}:\n${logs()}`);
    if (existsSync(kubeconfig)) {
      const r = spawnSync(kubectl, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, 'get', '--raw', '/readyz'], { encoding: 'utf8', timeout: 15_000 });
      if (r.status === 0 && r.stdout.trim() === 'ok') return;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  proc.kill('SIGKILL');
  throw new Error(`k8ts server not ready after ${timeoutMs / 1000} s:\n${logs()}`);
}

/** Starts a cluster; call `stop()` in an `after` hook. */
export async function startCluster(o: StartOptions = {}): Promise<Cluster> {
  ensureBuilt();
  const kubectl = kubectlPath();
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'k8ts-e2e-'));
  const port = await freePort();
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  const cacheDir = join(dir, 'kube-cache');
  let out = '';
  let proc!: ChildProcess;
  const launch = (): void => {
    proc = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/k8ts.mjs'),
        'server',
        '--data-dir',
        dir,
        '--secure-port',
        String(port),
        '--node-name',
        'e2e-node',
        // the simulated runtime unless a test asks for another
        ...((o.args ?? []).includes('--runtime') ? [] : ['--runtime', 'sim']),
        ...(o.args ?? []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], detached: false },
    );
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  };
  launch();
  await waitReady(kubeconfig, kubectl, cacheDir, proc, () => out, o.readyTimeoutMs);
  const run = (args: string[], opts: { input?: string; timeoutMs?: number } = {}): KubectlResult => {
    const r = spawnSync(kubectl, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], {
      encoding: 'utf8',
      input: opts.input,
      timeout: opts.timeoutMs ?? 60_000,
      maxBuffer: 64 * 1024 * 1024, // `get --raw /openapi/v2` is over 1 MB
    });
    return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  const stopProc = async (signal: NodeJS.Signals): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill(signal);
    const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  };
  const c: Cluster = {
    dir,
    port,
    kubeconfig,
    get proc() {
      return proc;
    },
    kubectl: run,
    kubectlAsync(args, opts = {}) {
      return new Promise((resolve) => {
        const p = spawn(kubectl, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          opts.onStdout?.(stdout);
        });
        p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const t = setTimeout(() => p.kill('SIGTERM'), opts.timeoutMs ?? 30_000);
        void opts.until?.finally(() => p.kill('SIGTERM'));
        // 'close', not 'exit': the output streams may still hold data when the process exits
        p.on('close', (code) => {
          clearTimeout(t);
          resolve({ code: code ?? -1, stdout, stderr });
        });
      });
    },
    log: () => out,
    async stop() {
      await stopProc('SIGTERM');
      // children of the server (the CSI hostpath plugin) may still be leaving: retry ENOTEMPTY/EBUSY
      if (!o.dir) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
    async kill() {
      await stopProc('SIGKILL');
    },
    async restart() {
      await stopProc('SIGTERM');
      launch();
      await waitReady(kubeconfig, kubectl, cacheDir, proc, () => out, o.readyTimeoutMs);
    },
  };
  return c;
}

/** Polls `fn` until it returns a truthy value or the timeout passes. */
export async function eventually<T>(fn: () => T | Promise<T>, timeoutMs = 15_000, intervalMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let err: unknown;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last as NonNullable<T>;
    } catch (e) {
      err = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`condition not met in ${timeoutMs} ms (last value: ${JSON.stringify(last)}${err ? `, last error: ${String(err)}` : ''})`);
}

/** Writes a manifest to a temp file and returns its path. */
export function manifestFile(dir: string, name: string, yaml: string): string {
  const p = join(dir, name);
  writeFileSync(p, yaml);
  return p;
}

export { execFileSync };
