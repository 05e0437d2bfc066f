/**
 * The request pipeline's rules from docs/architecture.md, checked on the source: only the
 * controller manager (src/controllers) and the wiring (src/cli) import controllers; no
 * code replaces the API server's handler at run time. (The folder import rules — the
 * API server imports no controller, scheduler or kubelet code — are src/architecture.test.ts.)
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SRC = join(ROOT, 'src');

/** Non-test TypeScript files under `dir`. */
function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** The top-level folders of src/ a file imports from (relative imports only). */
function importedFolders(file: string): Set<string> {
  const text = readFileSync(file, 'utf8');
  const out = new Set<string>();
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)) {
    const target = relative(SRC, resolve(dirname(file), m[1]!));
    if (!target.startsWith('..')) out.add(target.split('/')[0]!);
  }
  return out;
}

test('controllers are started only by src/controllers (wired from src/cli)', () => {
  const bad: string[] = [];
  for (const f of sources(SRC)) {
    const top = relative(SRC, f).split('/')[0];
    if (top === 'controllers' || top === 'cli') continue;
    if (importedFolders(f).has('controllers')) bad.push(relative(ROOT, f));
  }
  assert.deepEqual(bad, []);
});

test('nothing replaces the API server handler at run time', () => {
  const bad = sources(SRC).filter((f) => /\.handle\s*=(?!=)/.test(readFileSync(f, 'utf8').replace(/this\.handle\s*=\s*buildHandlerChain/, '')));
  assert.deepEqual(
    bad.map((f) => relative(ROOT, f)),
    [],
  );
});
