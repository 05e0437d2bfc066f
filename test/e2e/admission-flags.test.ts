/**
 * `k8ts server --enable-admission-plugins / --disable-admission-plugins`, as kube-apiserver's
 * flags: a disabled default-on plugin does not run (without NamespaceLifecycle an object can
 * be created in a namespace that does not exist), unknown names stop the server at start with
 * kube-apiserver's message.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, freePort, ROOT, startCluster, type Cluster } from './harness.js';

describe('admission plugin flags (e2e)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ args: ['--disable-admission-plugins=NamespaceLifecycle,LimitRanger', '--enable-admission-plugins=NodeRestriction'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('a disabled plugin does not run: no NamespaceLifecycle, no namespace check', () => {
    const r = c.kubectl(['create', 'configmap', 'orphan', '-n', 'does-not-exist', '--from-literal=a=b']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'configmap/orphan created');
  });

  it("unknown or overlapping plugin names stop the server with kube-apiserver's error", async () => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-admission-'));
    try {
      const run = async (flags: string[]) => {
        const port = await freePort();
        return spawnSync(process.execPath, [join(ROOT, 'dist/k8ts.mjs'), 'server', '--data-dir', dir, '--secure-port', String(port), '--runtime', 'sim', ...flags], {
          encoding: 'utf8',
          timeout: 60_000,
        });
      };
      const unknown = await run(['--enable-admission-plugins=NamespaceLifecycle,Nope']);
      assert.equal(unknown.status, 1);
      assert.equal(unknown.stderr.trim(), 'Error: enable-admission-plugins plugin "Nope" is unknown');
      const overlap = await run(['--enable-admission-plugins=PodSecurity', '--disable-admission-plugins=PodSecurity,Bogus']);
      assert.equal(overlap.status, 1);
      assert.equal(
        overlap.stderr.trim(),
        'Error: [disable-admission-plugins plugin "Bogus" is unknown, [PodSecurity] in enable-admission-plugins and disable-admission-plugins overlapped]',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
