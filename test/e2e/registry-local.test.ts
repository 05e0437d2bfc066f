/**
 * `npm run registry:local` (scripts/registry-local.ts) as a user runs it: a docker-registry
 * on a free port with storage under a temp data dir, the stand-in images served under the
 * names the example manifests use, a registries.yaml the server's own parser accepts,
 * `--push-only`, a clear refusal when the port is taken, Ctrl-C stopping the registry,
 * and a second run reusing the storage (same digests).
 *
 * Needs docker-registry, gcc, libc6-dev, umoci, busybox-static (scripts/install-deps.sh).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { MANIFEST_ACCEPT } from '../../scripts/images/copy.js';
import { STAND_INS, WITHOUT_STAND_IN, mirrorPath, parseImageName } from '../../scripts/images/stand-ins.js';
import { parseRegistries } from '../../src/cri/containerd/registries.js';
import { IMAGE_BUILD_PACKAGES, requirePackages } from '../support/deps.js';
import { freePort } from '../support/ports.js';
import { waitUntil } from '../support/proc.js';
import { makeTempDir, type TempDir } from '../support/tmp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'registry-local.ts');
const MANIFESTS = join(ROOT, 'test', 'fixtures', 'manifests');

interface Run {
  child: ChildProcess;
  out(): string;
  exited: Promise<number | null>;
}

function run(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, out: () => text, exited };
}

/** Waits until the foreground run serves (or fails). Returns the docker-registry pid it printed. */
async function serving(r: Run): Promise<number> {
  let gone = false;
  void r.exited.then(() => (gone = true));
  await waitUntil(
    'registry:local serving',
    () => {
      if (gone) throw new Error(`registry:local exited:\n${r.out()}`);
      return r.out().includes('until Ctrl-C');
    },
    60_000,
  );
  return Number(/docker-registry pid (\d+)/.exec(r.out())?.[1]);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every image reference in the example manifests (YAML/JSON-ish files, every document). */
function manifestImages(): Set<string> {
  const images = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'image' && typeof x === 'string') images.add(x);
        else walk(x);
      }
  };
  for (const f of readdirSync(MANIFESTS).filter((n) => n.endsWith('.yaml'))) for (const d of parseAllDocuments(readFileSync(join(MANIFESTS, f), 'utf8'))) walk(d.toJS());
  return images;
}

describe('e2e: npm run registry:local', () => {
  let dir: TempDir;
  let port: number;
  let base: string;
  let first: Run;
  let registryPid: number;
  const digests = new Map<string, string>();

  const manifest = (path: string): Promise<Response> => {
    const [repo, tag] = [path.slice(0, path.lastIndexOf(':')), path.slice(path.lastIndexOf(':') + 1)];
    return fetch(`${base}/v2/${repo}/manifests/${tag}`, { headers: { accept: MANIFEST_ACCEPT } });
  };

  before(async () => {
    requirePackages(['docker-registry', ...IMAGE_BUILD_PACKAGES], 'npm run registry:local');
    dir = makeTempDir('k8ts-registry-local-');
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    first = run(['--port', String(port), '--data-dir', join(dir.path, 'data')]);
    registryPid = await serving(first);
  });
  after(async () => {
    if (first?.child.exitCode === null) {
      first.child.kill('SIGINT');
      await first.exited;
    }
    if (registryPid && alive(registryPid)) process.kill(registryPid, 'SIGKILL');
    dir?.remove();
  });

  it('serves nginx:1.14.2 (the nginx stand-in) and the pause image under their mirror paths', async () => {
    const res = await manifest('library/nginx:1.14.2');
    assert.equal(res.status, 200);
    const m = (await res.json()) as { config: { digest: string } };
    const config = (await (await fetch(`${base}/v2/library/nginx/blobs/${m.config.digest}`)).json()) as { config: { Cmd: string[] } };
    assert.deepEqual(config.config.Cmd, ['nginx', '-g', 'daemon off;']);
    for (const p of ['pause:3.10', 'pause:3.6', 'pause:2.0']) assert.equal((await manifest(p)).status, 200, p);
    const agnhost = (await (await manifest('e2e-test-images/agnhost:2.40')).json()) as { config: { digest: string } };
    const ac = (await (await fetch(`${base}/v2/e2e-test-images/agnhost/blobs/${agnhost.config.digest}`)).json()) as { config: { Entrypoint: string[] } };
    assert.deepEqual(ac.config.Entrypoint, ['/agnhost']);
  });

  it('serves every stand-in; copies carry their source digest', async () => {
    for (const s of STAND_INS) {
      const res = await manifest(mirrorPath(s.ref));
      assert.equal(res.status, 200, `${s.ref} → ${mirrorPath(s.ref)}`);
      digests.set(s.ref, res.headers.get('docker-content-digest') ?? '');
      if (s.copyOf) assert.equal(digests.get(s.ref), (await manifest(s.copyOf)).headers.get('docker-content-digest'), s.ref);
    }
    assert.equal((await manifest('library/bash:latest')).status, 404);
  });

  it('writes a k3s registries.yaml mirroring every registry of the stand-ins to the registry', () => {
    const text = readFileSync(join(dir.path, 'data', 'registries.yaml'), 'utf8');
    const r = parseRegistries(text);
    assert.deepEqual(Object.keys(r.mirrors).sort(), ['docker.io', 'gcr.io', 'k8s.gcr.io', 'registry.k8s.io', 'us-docker.pkg.dev']);
    for (const m of Object.values(r.mirrors)) assert.deepEqual(m.endpoint, [base]);
    assert.deepEqual(Object.keys(parse(text) as object), ['mirrors']);
  });

  it('says the images are stand-ins and prints the next command', () => {
    const out = first.out();
    assert.match(out, /STAND-IN images built from busybox-static/);
    assert.ok(out.includes(`npm start -- --registries ${join(dir.path, 'data', 'registries.yaml')} --data-dir ${join(dir.path, 'data')}\n`), out);
  });

  it('every image of the example manifests has a stand-in or is listed as without one', () => {
    const known = new Set([...STAND_INS.map((s) => s.ref), ...WITHOUT_STAND_IN].map((r) => JSON.stringify(parseImageName(r))));
    const missing = [...manifestImages()].filter((i) => !known.has(JSON.stringify(parseImageName(i))));
    assert.deepEqual(missing, []);
    assert.deepEqual(parseImageName('nginx'), { registry: 'docker.io', repo: 'library/nginx', tag: 'latest' });
    assert.deepEqual(parseImageName('docker.io/library/busybox'), { registry: 'docker.io', repo: 'library/busybox', tag: 'latest' });
    assert.deepEqual(parseImageName('localhost:5000/a/b:1'), { registry: 'localhost:5000', repo: 'a/b', tag: '1' });
  });

  it('refuses a taken port with a hint, and --push-only pushes into the running registry', async () => {
    const again = run(['--port', String(port), '--data-dir', join(dir.path, 'other')]);
    assert.equal(await again.exited, 1);
    assert.match(again.out(), /already answers on .*--push-only/s);
    const push = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, '--push-only', '--port', String(port), '--data-dir', join(dir.path, 'push')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(push.status, 0, push.stdout + push.stderr);
    assert.doesNotMatch(push.stdout, /until Ctrl-C/);
    assert.deepEqual(Object.keys(parseRegistries(readFileSync(join(dir.path, 'push', 'registries.yaml'), 'utf8')).mirrors).length, 5);
  });

  it('Ctrl-C stops the registry; a second run reuses the storage with the same digests', async () => {
    first.child.kill('SIGINT');
    assert.equal(await first.exited, 0);
    assert.equal(alive(registryPid), false, `docker-registry ${registryPid} still runs`);
    await assert.rejects(fetch(`${base}/v2/`));
    const second = run(['--port', String(port), '--data-dir', join(dir.path, 'data')]);
    try {
      registryPid = await serving(second);
      assert.match(second.out(), /\(reused\)/);
      for (const s of STAND_INS) assert.equal((await manifest(mirrorPath(s.ref))).headers.get('docker-content-digest'), digests.get(s.ref), s.ref);
    } finally {
      second.child.kill('SIGINT');
      assert.equal(await second.exited, 0);
    }
    assert.equal(alive(registryPid), false);
  });
});
