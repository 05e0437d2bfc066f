/**
 * One helm 3 release lifecycle against a cluster — install → upgrade → rollback →
 * rollback → uninstall of test/fixtures/charts/webapp, every step with `--wait` — and
 * what each step left behind (`helm status`: deployed, or stuck in pending-upgrade /
 * pending-rollback when helm's final write of the release Secret failed). Shared by
 * test/e2e/helm.test.ts and bench/helm-soak.ts.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { helmPath } from './tools.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The chart: a Deployment (pods Ready after `readyAfterSeconds`) and a Service. */
export const WEBAPP_CHART = join(ROOT, 'test', 'fixtures', 'charts', 'webapp');

/** The outcome of one helm command. */
export interface HelmStep {
  /** `install`, `upgrade`, `rollback 1`, … */
  step: string;
  code: number;
  stdout: string;
  stderr: string;
  /** wall time of the command, ms */
  ms: number;
  /** `info.status` of `helm status` after the step (`deployed`, `pending-rollback` …; `absent` after uninstall) */
  status: string;
}

export interface HelmCycleOptions {
  kubeconfig: string;
  release: string;
  namespace?: string;
  /** seconds a new pod takes to turn Ready: the length of each `--wait` (default 5) */
  readyAfterSeconds?: number;
  /** helm's `--timeout` (default `120s`) */
  timeout?: string;
  /** called after each step (progress output) */
  onStep?: (s: HelmStep) => void;
}

/** Runs helm with a kubeconfig; resolves with exit code and output (never rejects). */
export function helm(kubeconfig: string, args: string[], timeoutMs = 600_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(helmPath(), ['--kubeconfig', kubeconfig, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HELM_CACHE_HOME: join(kubeconfig, '..', 'helm-cache'),
        HELM_CONFIG_HOME: join(kubeconfig, '..', 'helm-config'),
        HELM_DATA_HOME: join(kubeconfig, '..', 'helm-data'),
      },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** `info.status` of a release, or `absent` when helm does not know it. */
export async function releaseStatus(kubeconfig: string, release: string, namespace = 'default'): Promise<string> {
  const r = await helm(kubeconfig, ['status', release, '-n', namespace, '-o', 'json']);
  if (r.code !== 0) return /release: not found/.test(r.stderr) ? 'absent' : `error: ${r.stderr.trim()}`;
  return (JSON.parse(r.stdout) as { info: { status: string } }).info.status;
}

/**
 * install → upgrade (a new pod template) → rollback 1 → rollback 2 → uninstall, each
 * with `--wait`; stops at the first failing step.
 * @returns the steps run, in order
 */
export async function helmCycle(o: HelmCycleOptions): Promise<HelmStep[]> {
  const ns = o.namespace ?? 'default';
  const wait = ['--wait', '--timeout', o.timeout ?? '120s', '-n', ns];
  const ready = ['--set', `readyAfterSeconds=${o.readyAfterSeconds ?? 5}`];
  const steps: [string, string[]][] = [
    ['install', ['install', o.release, WEBAPP_CHART, ...ready, ...wait]],
    ['upgrade', ['upgrade', o.release, WEBAPP_CHART, ...ready, '--set', 'release=2', ...wait]],
    ['rollback 1', ['rollback', o.release, '1', ...wait]],
    ['rollback 2', ['rollback', o.release, '2', ...wait]],
    ['uninstall', ['uninstall', o.release, ...wait]],
  ];
  const out: HelmStep[] = [];
  for (const [step, args] of steps) {
    const t0 = Date.now();
    const r = await helm(o.kubeconfig, args);
    const ms = Date.now() - t0;
    const status = await releaseStatus(o.kubeconfig, o.release, ns);
    const s: HelmStep = { step, ...r, ms, status };
    out.push(s);
    o.onStep?.(s);
    const expected = step === 'uninstall' ? 'absent' : 'deployed';
    if (r.code !== 0 || status !== expected) break;
  }
  return out;
}

/** Whether every step of a cycle succeeded and left the release deployed (absent after uninstall). */
export function cycleSucceeded(steps: readonly HelmStep[]): boolean {
  return steps.length === 5 && steps.every((s) => s.code === 0 && s.status === (s.step === 'uninstall' ? 'absent' : 'deployed'));
}
