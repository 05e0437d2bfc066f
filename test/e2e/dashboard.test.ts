/**
 * The live pod creation dashboard (`k8ts dashboard`) in headless Chromium (Debian's
 * `chromium`, driven by playwright-core): the page loads, follows the cluster over
 * Server-Sent Events, and when the seed's nginx pod is applied its row reaches Running
 * with its steps; the waterfall shows the sandbox and container steps; a pod that cannot
 * be scheduled is listed as stuck with upstream's FailedScheduling message. A screenshot
 * is kept as a test artifact (test-results/dashboard.png).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { requirePackages } from '../support/deps.js';
import { startCluster, freePort, MANIFESTS, ROOT, type Cluster } from './harness.js';

describe('e2e: k8ts dashboard in headless Chromium', () => {
  let c: Cluster;
  let dash: ChildProcess | undefined;
  let browser: Browser | undefined;
  let url = '';
  before(async () => {
    requirePackages(['chromium'], 'the dashboard browser test');
    c = await startCluster();
    const port = await freePort();
    dash = spawn(process.execPath, [join(ROOT, 'dist', 'k8ts.mjs'), 'dashboard', '--port', String(port), '--kubeconfig', c.kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      dash!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /Serving the pod creation dashboard on (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      dash!.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      dash!.on('exit', (code) => reject(new Error(`k8ts dashboard exited with ${code}: ${out}`)));
    });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless=new'] });
  });
  after(async () => {
    await browser?.close();
    if (dash?.pid) dash.kill('SIGTERM');
    await c?.stop();
  });

  it('shows the nginx pod reaching Running with its steps, its waterfall, step latencies and a stuck pod', async () => {
    const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'live');
    assert.equal(await page.locator('.lane').count(), 7);
    assert.equal(await page.locator('.lane b').first().textContent(), 'kubectl');

    assert.equal(c.kubectl(['apply', '-f', join(MANIFESTS, 'simple-pod.yaml')]).code, 0);
    const row = page.locator('tr.pod[data-pod="default/nginx"]');
    await row.locator('td.phase', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => Number(document.querySelector('tr.pod[data-pod="default/nginx"] td.nsteps')?.textContent) >= 20);
    await row.click();
    const steps = await page.locator('#waterfall .wfstep').allTextContents();
    for (const s of [
      'RequestReceived',
      'Authentication',
      'StorageCommit',
      'QueueWait',
      'Filter',
      'BindingCommit e2e-node',
      'RunPodSandbox',
      'CreateContainer nginx',
      'StartContainer nginx',
      'Running',
    ]) {
      assert.ok(steps.includes(s), `${s} in ${steps.join(', ')}`);
    }
    assert.ok(await page.locator('#stats tr[data-step="RunPodSandbox"]').count(), 'p50/p99 of RunPodSandbox');
    assert.match((await page.locator('#stats tr[data-step="Authentication"] td').nth(3).textContent()) ?? '', /\d(\.\d+)?m?s$/);

    assert.equal(c.kubectl(['create', 'namespace', 'stuck']).code, 0);
    assert.equal(c.kubectl(['apply', '-n', 'stuck', '-f', join(MANIFESTS, 'nodeselector-disktype.yaml')]).code, 0);
    const stuck = page.locator('.stuck-item[data-pod="stuck/nginx"]');
    await stuck.waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => (document.querySelector('.stuck-item[data-pod="stuck/nginx"]')?.textContent ?? '').includes("didn't match Pod's node affinity/selector"));
    assert.match((await stuck.textContent()) ?? '', /step 10: filtering: no node can run the pod/);
    await page.locator('tr.pod[data-pod="stuck/nginx"] td.phase', { hasText: 'Stuck' }).waitFor();

    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    await row.click();
    await page.screenshot({ path: join(ROOT, 'test-results', 'dashboard.png'), fullPage: true });
    await page.close();
  });
});
