/**
 * `npm run registry:local`: real containers without internet access. Starts Debian's
 * `docker-registry` on 127.0.0.1:<port> with its storage in `<data-dir>/registry`,
 * pushes STAND-IN images (built offline from busybox-static, scripts/images/stand-ins.ts)
 * under the names the shared example manifests use, writes `<data-dir>/registries.yaml`
 * (k3s format) that makes containerd pull docker.io, registry.k8s.io, gcr.io, … from
 * it, and serves in the foreground until Ctrl-C (then stops the registry by PID).
 *
 * Usage: npm run registry:local -- [--port 5000] [--data-dir ./data] [--push-only]
 *   --push-only  push into a registry already listening on --port, write the file, exit
 *
 * Needs docker-registry, gcc, libc6-dev, umoci, busybox-static (scripts/install-deps.sh).
 * A second run reuses the storage: only missing blobs are uploaded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { findExecutable } from '../src/cri/containerd/supervisor.js';
import { STAND_INS, WITHOUT_STAND_IN, mirroredRegistries, publishLocalStandIns, registriesYaml } from './images/stand-ins.js';

const USAGE = 'usage: npm run registry:local -- [--port N] [--data-dir DIR] [--push-only]';

function fail(msg: string): never {
  console.error(`registry:local: ${msg}`);
  process.exit(1);
}

let opts: { port: number; dataDir: string; pushOnly: boolean };
try {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '5000' },
      'data-dir': { type: 'string', default: './data' },
      'push-only': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port: ${JSON.stringify(values.port)} is not a TCP port`);
  opts = { port, dataDir: resolve(values['data-dir']), pushOnly: values['push-only'] };
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`);
}

const host = `127.0.0.1:${opts.port}`;
const url = `http://${host}`;
const regDir = join(opts.dataDir, 'registry');
const logFile = join(regDir, 'registry.log');
const yamlFile = join(opts.dataDir, 'registries.yaml');
/** A path as the user should type it: relative to the working directory when below it. */
const show = (p: string): string => {
  const r = relative(process.cwd(), p);
  return r && !r.startsWith('..') && !isAbsolute(r) ? r : p;
};

/** Status of GET /v2/ on `host`, or undefined when nothing answers. */
async function probe(): Promise<number | undefined> {
  try {
    return (await fetch(`${url}/v2/`, { signal: AbortSignal.timeout(2000) })).status;
  } catch {
    return undefined;
  }
}

const logTail = (): string => {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-10).join('\n');
  } catch {
    return '';
  }
};

let registry: ChildProcess | undefined;
let registryExited: Promise<void> = Promise.resolve();

/** SIGTERM to the registry by PID, SIGKILL after 5 s; resolves when it is gone. */
async function stopRegistry(): Promise<void> {
  const child = registry;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await registryExited;
  clearTimeout(t);
}

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    console.log(`\nregistry:local: stopping the registry (pid ${registry?.pid ?? '-'})`);
    void stopRegistry().then(() => process.exit(0));
  });
}

async function startRegistry(): Promise<void> {
  const bin = findExecutable('docker-registry');
  if (!bin) fail('docker-registry is not installed (Debian package docker-registry; run sudo scripts/install-deps.sh)');
  const status = await probe();
  if (status !== undefined) {
    fail(
      `something already answers on ${url} (HTTP ${status} for /v2/): an earlier \`npm run registry:local\` or Debian's ` +
        `docker-registry service? Add --push-only to push into it, or choose another --port.`,
    );
  }
  mkdirSync(regDir, { recursive: true });
  const config = join(regDir, 'config.yml');
  writeFileSync(
    config,
    [
      '# written by npm run registry:local',
      'version: 0.1',
      'log: {level: warn, accesslog: {disabled: true}}',
      `storage: {filesystem: {rootdirectory: ${JSON.stringify(regDir)}}, delete: {enabled: true}}`,
      `http: {addr: ${JSON.stringify(host)}}`,
      '',
    ].join('\n'),
  );
  const fd = openSync(logFile, 'a');
  try {
    registry = spawn(bin, ['serve', config], { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  const child = registry;
  registryExited = new Promise((r) => child.once('exit', () => r()));
  child.on('error', () => {});
  child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`registry:local: docker-registry (pid ${child.pid}) exited (${signal ?? code}):\n${logTail()}`);
    process.exit(1);
  });
  const deadline = Date.now() + 15_000;
  while ((await probe()) !== 200) {
    if (Date.now() > deadline) {
      await stopRegistry();
      fail(`docker-registry did not answer on ${url} within 15 s:\n${logTail()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const t0 = Date.now();
if (opts.pushOnly) {
  const status = await probe();
  if (status !== 200) fail(`--push-only: no registry answers on ${url}/v2/ (${status === undefined ? 'nothing listens' : `HTTP ${status}`})`);
} else {
  const reused = existsSync(join(regDir, 'docker'));
  await startRegistry();
  console.log(`registry:local: docker-registry pid ${registry!.pid} on ${url}, storage ${show(regDir)}${reused ? ' (reused)' : ''}, log ${show(logFile)}`);
}

console.log('registry:local: building the stand-in images (scripts/images/build.sh, cached in .tmp/images) and pushing them…');
try {
  await publishLocalStandIns(host);
} catch (err) {
  await stopRegistry();
  fail(`pushing the stand-in images failed: ${(err as Error).message}`);
}
mkdirSync(opts.dataDir, { recursive: true });
writeFileSync(yamlFile, registriesYaml(url));

const width = Math.min(36, Math.max(...STAND_INS.map((s) => s.ref.length)));
const lines = [
  '',
  `Pushed ${STAND_INS.length} images to ${url} in ${((Date.now() - t0) / 1000).toFixed(1)} s.`,
  '',
  '  !! These are STAND-IN images built from busybox-static, NOT the real nginx, redis, debian, … !!',
  '  They carry the names the example manifests use, so pods run real containers offline:',
  ...STAND_INS.map((s) => `    ${s.ref.padEnd(width)}  ${s.what}`),
  `  No stand-in (pulls fail offline): ${WITHOUT_STAND_IN.join(', ')}`,
  '',
  `Wrote ${show(yamlFile)}: mirrors ${mirroredRegistries().join(', ')} → ${url}`,
  '',
  'Next, in another terminal (as root, with containerd installed, for real containers):',
  '',
  `  npm start -- --registries ${show(yamlFile)}${opts.dataDir === resolve('./data') ? '' : ` --data-dir ${show(opts.dataDir)}`}`,
  '',
];
console.log(lines.join('\n'));
if (opts.pushOnly) process.exit(0);
console.log(`Serving ${url} until Ctrl-C.`);
