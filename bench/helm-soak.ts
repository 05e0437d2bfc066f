/**
 * helm soak: the real-time version of test/e2e/helm.test.ts. Starts `k8ts server` (simulated
 * runtime) and runs `--loops` helm lifecycles (install → upgrade → rollback → rollback →
 * uninstall of test/fixtures/charts/webapp), each `--wait` lasting `--ready-after`
 * seconds of real time (the pods' readiness delay), so the API connections helm keeps
 * open sit idle as long as they do in real use. Prints one line per step and a summary;
 * exits 1 when any cycle failed or left a release pending.
 *
 * Usage: npm run soak:helm [-- --loops 10 --ready-after 75 --timeout 180s]
 *   (10 loops × 4 waits × 75 s ≈ 55 min)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../test/e2e/harness.js';
import { cycleSucceeded, helm, helmCycle } from '../test/support/helm.js';

const args = process.argv.slice(2);
const arg = (n: string, d: string): string => {
  const i = args.indexOf(`--${n}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : d;
};
const LOOPS = Number(arg('loops', '10'));
const READY_AFTER = Number(arg('ready-after', '75'));
const TIMEOUT = arg('timeout', '180s');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-helm-soak-'));
  const c = await startCluster({ dir });
  console.log(`helm soak: ${LOOPS} loops, pods Ready after ${READY_AFTER} s, --timeout ${TIMEOUT}, data dir ${dir}`);
  let ok = 0;
  const failures: string[] = [];
  const t0 = Date.now();
  try {
    for (let i = 1; i <= LOOPS; i++) {
      const release = `soak-${i}`;
      const steps = await helmCycle({
        kubeconfig: c.kubeconfig,
        release,
        readyAfterSeconds: READY_AFTER,
        timeout: TIMEOUT,
        onStep: (s) => console.log(`loop ${i} ${s.step.padEnd(10)} exit ${s.code} in ${(s.ms / 1000).toFixed(1)} s → ${s.status}${s.code !== 0 ? ` (${s.stderr.trim()})` : ''}`),
      });
      if (cycleSucceeded(steps)) ok++;
      else {
        const last = steps[steps.length - 1]!;
        failures.push(`loop ${i}: ${last.step} exit ${last.code}, status ${last.status}: ${last.stderr.trim()}`);
        // leave no release behind for the next loop
        await helm(c.kubeconfig, ['uninstall', release, '--no-hooks']);
      }
    }
  } finally {
    await c.stop();
  }
  console.log(`helm soak: ${ok}/${LOOPS} cycles succeeded in ${((Date.now() - t0) / 60000).toFixed(1)} min`);
  for (const f of failures) console.log(`  ${f}`);
  process.exit(ok === LOOPS ? 0 : 1);
}

void main();
