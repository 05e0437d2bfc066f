/**
 * helm 3 against the API server: install → upgrade → rollback → rollback → uninstall of
 * test/fixtures/charts/webapp (a Deployment whose pods turn Ready after a delay, and two
 * Services), every step with `--wait`, in a loop; each step must leave the release
 * `deployed` (never stuck in pending-upgrade / pending-rollback because helm's final
 * PUT of its release Secret failed).
 *
 * What broke it: helm creates the two Services concurrently, and Go's transport dials a
 * second connection that then sits in its pool unused; the listener's header timeout
 * (60 s, checked every 30 s) fired on it during a long `--wait`, and the bare
 * `HTTP/1.1 400` once written there could be read by client-go as the answer to the
 * request it sent next. The server here runs with a 1 s header timeout, so every wait
 * of a few seconds crosses that timeout the way a 60–90 s wait crosses the real one,
 * without the real time; bench/helm-soak.ts (`npm run soak:helm`) runs the same cycle
 * with real 75 s waits.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { cycleSucceeded, helmCycle } from '../support/helm.js';

const LOOPS = 3;

describe('helm release lifecycle', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ args: ['--request-header-timeout-ms', '1000'] });
  });
  after(async () => {
    await c?.stop();
  });

  for (let i = 1; i <= LOOPS; i++) {
    it(`cycle ${i}: install, upgrade, rollback, rollback, uninstall with --wait all succeed`, async () => {
      const steps = await helmCycle({ kubeconfig: c.kubeconfig, release: `web-${i}`, readyAfterSeconds: 3, timeout: '90s' });
      const summary = steps.map((s) => `${s.step}: exit ${s.code}, ${s.status}${s.code ? ` (${s.stderr.trim()})` : ''}`).join('\n');
      assert.ok(cycleSucceeded(steps), summary);
      // each wait lasted past the header timeout (the pods' readiness delay)
      for (const s of steps.slice(0, 4)) assert.ok(s.ms >= 3000, `${s.step} took ${s.ms} ms`);
      assert.match(steps[2]!.stdout, /Rollback was a success! Happy Helming!/);
    });
  }
});
