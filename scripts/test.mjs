#!/usr/bin/env node
// Runs the test suite with node's own test runner (node --test) and tsx.
// Usage: node scripts/test.mjs [--unit|--e2e] [path-filter ...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const only = args.find((a) => a === '--unit' || a === '--e2e');
const filters = args.filter((a) => !a.startsWith('--'));

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}
let files = [];
if (only !== '--e2e') files.push(...walk(join(root, 'src'), []));
if (only !== '--unit') files.push(...walk(join(root, 'test'), []));
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
files.sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// e2e tests start the bundled server: build it once here, not in two test processes at once
if (only !== '--unit') {
  const b = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, K8TS_TEST: '1' },
});
process.exit(r.status ?? 1);
