#!/usr/bin/env node
// Entry point of the `k8ts` command: builds dist/ when it is missing or stale, then runs it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const r = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
await import(join(root, 'dist/k8ts.mjs'));
