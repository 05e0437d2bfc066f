/**
 * scripts/images/pause.c, the sandbox image's only binary: static, sleeps, exits 0 on
 * SIGTERM/SIGINT, and as PID 1 of a PID namespace reaps the orphans it inherits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../../../test/support/tmp.js';
import { requirePackages } from '../../../test/support/deps.js';
import { waitUntil } from '../../../test/support/proc.js';

const SRC = fileURLToPath(new URL('../../../scripts/images/pause.c', import.meta.url));

function compile(dir: string): string {
  requirePackages(['gcc', 'libc6-dev'], 'compiling pause.c');
  const out = join(dir, 'pause');
  const r = spawnSync('gcc', ['-static', '-O2', '-o', out, SRC], { encoding: 'utf8' });
  assert.equal(r.status, 0, `gcc (install gcc libc6-dev: scripts/install-deps.sh): ${r.stderr}`);
  return out;
}

function exited(p: ReturnType<typeof spawn>): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((r) => p.once('exit', (code, signal) => r({ code, signal })));
}

test('pause is static and exits 0 on SIGTERM and on SIGINT', async () => {
  const d = makeTempDir();
  try {
    const bin = compile(d.path);
    assert.match(spawnSync('file', [bin], { encoding: 'utf8' }).stdout ?? 'statically linked', /statically linked/);
    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      const p = spawn(bin, [], { stdio: 'ignore' });
      const done = exited(p);
      await waitUntil('pause running', () => readFileSync(`/proc/${p.pid}/stat`, 'utf8').split(' ')[2] === 'S');
      p.kill(sig);
      assert.deepEqual(await done, { code: 0, signal: null }, sig);
    }
  } finally {
    d.remove();
  }
});

test('pause as PID 1 of a PID namespace reaps orphaned children', async () => {
  const d = makeTempDir();
  // unshare forks; pause becomes PID 1 of the new namespace. (unshare itself ignores
  // SIGTERM while it waits, so the test signals pause directly.)
  const p = spawn('unshare', ['--pid', '--fork', '--kill-child', compile(d.path)], { stdio: 'ignore' });
  const done = exited(p);
  let pausePid = 0;
  try {
    pausePid = await waitUntil('pause inside the namespace', () => {
      for (const e of readdirSync('/proc')) {
        if (!/^\d+$/.test(e)) continue;
        try {
          const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
          if (stat.includes('(pause)') && Number(stat.split(' ')[3]) === p.pid) return Number(e);
        } catch {
          // raced with exit
        }
      }
      return undefined;
    });
    // sh exits at once; its background sleep is re-parented to pause and exits 0.2 s later
    const r = spawnSync('nsenter', ['--target', String(pausePid), '--pid', '--', 'sh', '-c', 'sleep 0.2 & echo $!'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const children = () => readFileSync(`/proc/${pausePid}/task/${pausePid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    await waitUntil('the orphan to be adopted by pause', () => children().length > 0, 2000, 10).catch(() => undefined);
    await waitUntil('pause to reap its adopted child (no zombie left)', () => children().length === 0, 5000);
    process.kill(pausePid, 'SIGTERM');
    assert.equal((await done).code, 0, 'pause (and so unshare) exit 0 on SIGTERM');
  } finally {
    if (p.exitCode === null && p.signalCode === null) {
      if (pausePid) process.kill(pausePid, 'SIGKILL');
      p.kill('SIGKILL');
      await done;
    }
    d.remove();
  }
});
