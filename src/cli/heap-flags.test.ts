import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

/** Runs `code` in a fresh node (with tsx) and returns its stdout. */
function node(args: string[], code: string, env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [...args, '--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', ...env } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

// allocates 200 MB of short-lived objects with a few survivors, then prints the young generation's size in MiB
const probe = `
  const { applyServerHeapFlags } = await import(${JSON.stringify(new URL('./heap-flags.ts', import.meta.url).pathname)});
  const v8 = await import('node:v8');
  const applied = process.env.APPLY ? applyServerHeapFlags() : false;
  const keep = [];
  for (let i = 0; i < 2e6; i++) { const o = { a: i, b: 'x' + i, c: [i] }; if (i % 20 === 0) keep.push(o); if (keep.length > 30000) keep.splice(0, 15000); }
  const ns = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  console.log(JSON.stringify({ applied, mib: ns.space_size / 1048576 }));
`;

describe('server heap flags', () => {
  it('keep the young generation at its initial size under allocation, where it grows otherwise', () => {
    const grown = JSON.parse(node([], probe)) as { applied: boolean; mib: number };
    const kept = JSON.parse(node([], probe, { APPLY: '1' })) as { applied: boolean; mib: number };
    assert.equal(kept.applied, true);
    // (loading tsx may have grown it a step before the flag applies)
    assert.ok(kept.mib <= 4, `young generation ${kept.mib} MiB with the flag`);
    assert.ok(grown.mib >= 16 && grown.mib >= kept.mib * 4, `young generation ${grown.mib} MiB without the flag vs ${kept.mib} MiB with it`);
  });

  it('are not applied over a semi-space flag the process was started with', () => {
    const r = JSON.parse(node(['--max-semi-space-size=8'], probe, { APPLY: '1' })) as { applied: boolean };
    assert.equal(r.applied, false);
    const o = JSON.parse(node([], probe, { APPLY: '1', NODE_OPTIONS: '--max-semi-space-size=8' })) as { applied: boolean };
    assert.equal(o.applied, false);
  });
});
