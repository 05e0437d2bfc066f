/**
 * A fresh clone is self-contained: no source, test, script, benchmark, CI file, doc or
 * package.json refers to a path outside the repository (the sibling `shared/` folder of
 * our own checkouts in particular: a user's clone has none). Test data lives in
 * `test/fixtures/`, notes in `docs/`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SELF = relative(ROOT, fileURLToPath(import.meta.url));
const SCANNED = ['src', 'test', 'scripts', 'bench', '.ci', 'docs', 'package.json', 'README.md'];
const TEXT = /\.(ts|mts|mjs|js|cjs|json|sh|md|yaml|yml|toml|txt|c|proto)$|^[^.]+$/;

/** The files to scan: tracked and new (not ignored) files of the scanned paths; without git, a walk of them. */
function files(): string[] {
  const git = spawnSync('git', ['ls-files', '-z', '-co', '--exclude-standard', '--', ...SCANNED], { cwd: ROOT, encoding: 'utf8' });
  if (git.status === 0 && git.stdout) return git.stdout.split('\0').filter(Boolean);
  const out: string[] = [];
  const walk = (rel: string): void => {
    const st = statSync(join(ROOT, rel), { throwIfNoEntry: false });
    if (!st) return;
    if (!st.isDirectory()) return void out.push(rel);
    for (const name of readdirSync(join(ROOT, rel))) if (name !== 'node_modules') walk(join(rel, name));
  };
  for (const p of SCANNED) walk(p);
  return out;
}

/** Patterns that name a place outside the repository, whatever the file's directory. */
const OUTSIDE: [RegExp, string][] = [
  [/shared['/", ]+(manifests|notes|reference|DESIGN)/i, 'the sibling shared/ folder'],
  [/'\.\.', *'shared'/, 'the sibling shared/ folder'],
  [/(^|[^\w.-])\/work\//, 'an absolute /work/ path'],
];

/** Relative path literals (`'../x'`, `"../../y"`) that climb above the repository root from the file's folder. */
function escapingLiterals(file: string, text: string): string[] {
  const found: string[] = [];
  const base = join(ROOT, dirname(file));
  for (const m of text.matchAll(/(['"`])(\.\.(?:\/[^'"`\s$]*)?)\1/g)) {
    if (!isInside(resolve(base, m[2]))) found.push(m[2]);
  }
  // join(import.meta.dirname, '..', '..', …) and join(ROOT, '..', …)
  for (const m of text.matchAll(/join\(\s*(import\.meta\.dirname|__dirname|ROOT|root)\s*((?:,\s*'\.\.'\s*)+)/g)) {
    const ups = m[2].match(/'\.\.'/g)!.length;
    const from = m[1] === 'ROOT' || m[1] === 'root' ? ROOT : base;
    if (!isInside(resolve(from, ...Array(ups).fill('..')))) found.push(m[0]);
  }
  return found;
}

function isInside(p: string): boolean {
  return p === ROOT || p.startsWith(ROOT + sep);
}

test('no file of the repository refers to a path outside it', () => {
  const problems: string[] = [];
  const scanned = files().filter((f) => f !== SELF && TEXT.test(f.split('/').pop()!));
  assert.ok(scanned.some((f) => f.startsWith('src/')) && scanned.includes('package.json'), `scanned the repository (${scanned.length} files)`);
  for (const f of scanned) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    text.split('\n').forEach((line, i) => {
      for (const [re, what] of OUTSIDE) if (re.test(line)) problems.push(`${f}:${i + 1}: ${what}: ${line.trim().slice(0, 160)}`);
    });
    for (const lit of escapingLiterals(f, text)) problems.push(`${f}: climbs above the repository root: ${lit}`);
  }
  assert.deepEqual(problems, [], `files refer to paths outside the repository (keep test data in test/fixtures/, notes in docs/):\n${problems.join('\n')}`);
});

test('the published example manifests are in the repository, each with its source line', () => {
  const dir = join(ROOT, 'test', 'fixtures', 'manifests');
  const names = readdirSync(dir);
  assert.ok(names.includes('EXPECTED.md'), 'test/fixtures/manifests/EXPECTED.md');
  const yamls = names.filter((n) => n.endsWith('.yaml'));
  assert.ok(yamls.length > 0, 'YAML manifests in test/fixtures/manifests');
  for (const n of yamls) assert.match(readFileSync(join(dir, n), 'utf8').split('\n')[0], /^# source: \S+ \S+ \(commit [0-9a-f]{40}\)$/, n);
});

test('the package probes of test/support/deps.ts are the packages of scripts/install-deps.sh', async () => {
  const { PACKAGES } = await import('./support/deps.js');
  const script = readFileSync(join(ROOT, 'scripts', 'install-deps.sh'), 'utf8');
  const list = /^PKGS=\(([^)]*)\)/m.exec(script);
  assert.ok(list, 'PKGS=(…) in scripts/install-deps.sh');
  assert.deepEqual(Object.keys(PACKAGES).sort(), list[1].split(/\s+/).filter(Boolean).sort());
});
