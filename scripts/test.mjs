#!/usr/bin/env node
// Runs the test suite with node's own test runner (node --test) and tsx.
// Usage: node scripts/test.mjs [--unit|--e2e] [--save-durations] [path-filter ...]
//
// Files run two at a time, longest first (test/durations.json: seconds per file as last
// measured; a file not listed counts as 30 s when under test/e2e, else 0.5 s), so that no
// long e2e file starts last and runs alone. `--save-durations` records this run's figures
// into test/durations.json (merged with what is there).
//
// When the selected tests need the host's packages or the real kubectl/helm (e2e tests,
// tests on a private containerd, a test registry or the offline test images), it first
// makes sure they are there: as root on Debian it runs scripts/install-deps.sh (a quick
// no-op when everything is installed); anywhere, scripts/ensure-kubectl.sh (kubectl 1.32
// and helm v3 into .tools/bin when missing). Elsewhere it installs no package and says
// which are missing: the tests that need them then fail, naming the package (never skip).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
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
const durationsPath = join(root, 'test/durations.json');
const known = existsSync(durationsPath) ? JSON.parse(readFileSync(durationsPath, 'utf8')) : {};
const expected = (f) => known[f] ?? (f.startsWith('test/e2e/') ? 30 : 0.5);
files.sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
/** Test files that need the host's packages or the kubectl/helm binaries. */
const HOST_NEEDS = /support\/(containerd|registry|images|etcd|deps|tools)\.js|containerd-(cluster|images)\.js|\/harness\.js/;
const needHost = files.some((f) => f.startsWith('test/e2e/') || HOST_NEEDS.test(readFileSync(join(root, f), 'utf8')));
if (needHost) await ensureHostDeps();

/** Installs what it can (root on Debian), reports what is missing otherwise; prints one line. */
async function ensureHostDeps() {
  const done = [];
  if (process.getuid?.() === 0 && existsSync('/etc/debian_version')) {
    const r = spawnSync(join(root, 'scripts/install-deps.sh'), { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) {
      console.error(`test: scripts/install-deps.sh failed (${r.status}):\n${r.stdout}${r.stderr}`);
      process.exit(1);
    }
    done.push(`ran scripts/install-deps.sh (${lastLine(r.stdout)})`);
  } else {
    const { tsImport } = await import('tsx/esm/api');
    const { missingPackages } = await tsImport('../test/support/deps.ts', import.meta.url);
    const missing = missingPackages();
    const why = process.getuid?.() !== 0 ? 'not root' : 'not Debian';
    done.push(
      missing.length
        ? `installed no package (${why}); missing ${missing.join(' ')}: install with \`sudo scripts/install-deps.sh\`, the tests that need them fail until then`
        : `installed no package (${why}); every package the tests need is present`,
    );
  }
  const k = spawnSync(join(root, 'scripts/ensure-kubectl.sh'), { cwd: root, encoding: 'utf8' });
  done.push(k.status === 0 ? `ran scripts/ensure-kubectl.sh (${lastLine(k.stdout)})` : `scripts/ensure-kubectl.sh failed: ${lastLine(k.stderr || k.stdout)}`);
  console.log(`test: ${done.join('; ')}`);
}

function lastLine(text) {
  return text.trim().split('\n').pop() ?? '';
}

// e2e tests start the bundled server: build it once here, not in two test processes at once
if (only !== '--unit') {
  const b = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout'];
if (args.includes('--save-durations')) reporters.push(`--test-reporter=${join(root, 'scripts/test-durations-reporter.mjs')}`, `--test-reporter-destination=${durationsPath}.new`);
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...reporters, ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, K8TS_TEST: '1' },
});
if (args.includes('--save-durations') && existsSync(`${durationsPath}.new`)) {
  const measured = JSON.parse(readFileSync(`${durationsPath}.new`, 'utf8'));
  const merged = { ...known };
  for (const [f, ms] of Object.entries(measured)) merged[relative(root, f)] = Math.round(ms / 100) / 10;
  const sorted = Object.fromEntries(Object.entries(merged).sort((a, b) => b[1] - a[1]));
  writeFileSync(durationsPath, `${JSON.stringify(sorted, null, 2)}\n`);
  unlinkSync(`${durationsPath}.new`);
}
process.exit(r.status ?? 1);
