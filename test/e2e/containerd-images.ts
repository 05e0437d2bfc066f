/**
 * Stand-in images for the example manifests, served by a test registry that the test
 * containerd uses as mirror for docker.io and registry.k8s.io (no public registry is
 * reachable here). Each is the offline busybox image (scripts/images/build.sh) plus a
 * `printenv` (Debian's busybox-static lacks that applet; the manifests use it), under
 * the name a manifest uses:
 *
 * - `registry.k8s.io/busybox:1.27.2` (→ `busybox:1.27.2` on the mirror), `busybox:1.28`
 * - `debian` (→ `library/debian:latest`): busybox has `printenv`, `sleep`, `sh`
 * - `registry.k8s.io/goproxy:0.1` (→ `goproxy:0.1`): busybox httpd listening on :8080
 * - `nginx`, `nginx:1.14.2` (→ `library/nginx:…`): busybox httpd serving
 *   /usr/share/nginx/html (a "Welcome to nginx!" index.html) on :80; exits on TERM/QUIT
 * - `redis` (→ `library/redis:latest`): a `redis-server` that idles until TERM/INT,
 *   then exits 0 (as redis does, also as PID 1)
 * - `gcr.io/google-samples/node-hello:1.0`: busybox httpd answering "Hello Kubernetes!"
 *   on :8080; exits on TERM
 * - `polinux/stress`: busybox plus a `/usr/bin/stress` script that understands
 *   `--vm-bytes SIZE` and allocates (and touches) SIZE with `dd bs=SIZE` as PID 1, so a
 *   memory limit below SIZE OOM-kills the container's main process (exit 137).
 *
 * The stress image is built here: one extra uncompressed layer and a new config on top
 * of the busybox layout, pushed over the distribution API.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable } from '../../src/cri/containerd/supervisor.js';
import { requirePackages } from '../support/deps.js';
import { IMAGES_DIR, publishTestImages } from '../support/images.js';
import { freePort } from '../support/ports.js';
import { startProcess, waitUntil } from '../support/proc.js';
import { makeTempDir } from '../support/tmp.js';

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

const sha = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** A ustar archive of regular files (name → [mode, content]), with the two end blocks. */
export function tarFiles(files: Record<string, [number, string | Buffer]>): Buffer {
  const out: Buffer[] = [];
  for (const [name, [mode, content]] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const h = Buffer.alloc(512, 0);
    h.write(name, 0, 100, 'utf8');
    h.write(mode.toString(8).padStart(7, '0') + '\0', 100, 8, 'ascii');
    h.write('0000000\0', 108, 8, 'ascii');
    h.write('0000000\0', 116, 8, 'ascii');
    h.write(data.length.toString(8).padStart(11, '0') + '\0', 124, 12, 'ascii');
    h.write('00000000000\0', 136, 12, 'ascii');
    h.fill(0x20, 148, 156);
    h.write('0', 156, 1, 'ascii');
    h.write('ustar\0', 257, 6, 'ascii');
    h.write('00', 263, 2, 'ascii');
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += h[i]!;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
    out.push(h, data);
    const pad = (512 - (data.length % 512)) % 512;
    if (pad) out.push(Buffer.alloc(pad, 0));
  }
  out.push(Buffer.alloc(1024, 0));
  return Buffer.concat(out);
}

async function putBlob(base: string, repo: string, blob: Buffer, auth: Record<string, string>): Promise<string> {
  const digest = sha(blob);
  if ((await fetch(`${base}/v2/${repo}/blobs/${digest}`, { method: 'HEAD', headers: auth })).status === 200) return digest;
  const start = await fetch(`${base}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers: auth });
  if (start.status !== 202) throw new Error(`start upload: HTTP ${start.status}`);
  const url = new URL(start.headers.get('location')!, base);
  url.searchParams.set('digest', digest);
  const put = await fetch(url, { method: 'PUT', headers: { ...auth, 'content-type': 'application/octet-stream' }, body: new Uint8Array(blob) });
  if (put.status !== 201) throw new Error(`upload ${digest}: HTTP ${put.status} ${await put.text()}`);
  return digest;
}

/**
 * Pushes `repoTag` = the busybox layout plus one layer of `files`, with `cmd` as the
 * image's command. Returns the manifest digest.
 */
export async function pushBusyboxPlus(registry: string, repoTag: string, files: Record<string, [number, string]>, cmd: string[], basicAuth?: string): Promise<string> {
  const auth: Record<string, string> = basicAuth ? { authorization: `Basic ${Buffer.from(basicAuth).toString('base64')}` } : {};
  const layout = join(IMAGES_DIR, 'busybox');
  const base = `http://${registry}`;
  const [repo, tag] = [repoTag.slice(0, repoTag.lastIndexOf(':')), repoTag.slice(repoTag.lastIndexOf(':') + 1)];
  const blob = (d: string): Buffer => readFileSync(join(layout, 'blobs', ...d.split(':')));
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  const desc = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === '1.36')!;
  const manifest = JSON.parse(blob(desc.digest).toString()) as { schemaVersion: number; mediaType?: string; config: Descriptor; layers: Descriptor[] };
  const config = JSON.parse(blob(manifest.config.digest).toString()) as { config: { Cmd?: string[] }; rootfs: { diff_ids: string[] } };
  const layer = tarFiles(files);
  config.rootfs.diff_ids.push(sha(layer));
  config.config.Cmd = cmd;
  const configBytes = Buffer.from(JSON.stringify(config));
  for (const l of manifest.layers) await putBlob(base, repo, blob(l.digest), auth);
  const layerDigest = await putBlob(base, repo, layer, auth);
  const configDigest = await putBlob(base, repo, configBytes, auth);
  const m = {
    ...manifest,
    config: { ...manifest.config, digest: configDigest, size: configBytes.length },
    layers: [...manifest.layers, { mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.length }],
  };
  const body = Buffer.from(JSON.stringify(m));
  const res = await fetch(`${base}/v2/${repo}/manifests/${tag}`, { method: 'PUT', headers: { ...auth, 'content-type': desc.mediaType }, body: new Uint8Array(body) });
  if (res.status !== 201) throw new Error(`put manifest ${repoTag}: HTTP ${res.status} ${await res.text()}`);
  return sha(body);
}

/** `stress --vm 1 --vm-bytes 250M --vm-hang 1` as far as memory goes: allocate and touch SIZE, forever. */
const STRESS = `#!/bin/sh
# k8ts stand-in for polinux/stress: only --vm-bytes matters (default 256M).
bytes=256M
while [ $# -gt 0 ]; do
  case "$1" in --vm-bytes) bytes=$2; shift ;; esac
  shift
done
echo "stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd"
exec dd if=/dev/zero of=/dev/null bs=$bytes count=2000000000
`;

/** coreutils' printenv: all variables, or the values of the named ones (exit 1 if one is unset). */
const PRINTENV = `#!/bin/sh
[ $# -eq 0 ] && exec env
rc=0
for n in "$@"; do
  eval "set_=\\\${$n+x}"
  if [ -n "$set_" ]; then eval "printf '%s\\n' \\"\\$$n\\""; else rc=1; fi
done
exit $rc
`;

/** `httpd -f` in the background of a shell that exits on TERM/INT/QUIT (busybox httpd as PID 1 ignores them). */
const serve = (port: number, dir: string): string => `#!/bin/sh
trap 'exit 0' TERM INT QUIT
httpd -f -p ${port} -h ${dir} &
wait
`;

/** redis-server as PID 1: idle until TERM/INT, then exit 0. */
const REDIS = `#!/bin/sh
trap 'echo "# Received SIGTERM scheduling shutdown..."; exit 0' TERM INT
echo "# Ready to accept connections tcp"
while :; do sleep 3600 & wait $!; done
`;

/** Publishes the standard test images and the stand-ins above on `registry`. */
export async function publishStandIns(registry: string): Promise<void> {
  await publishTestImages(registry);
  const printenv = { 'usr/bin/printenv': [0o755, PRINTENV] } as Record<string, [number, string]>;
  for (const t of ['busybox:1.27.2', 'busybox:1.28', 'library/busybox:1.28', 'library/debian:latest']) await pushBusyboxPlus(registry, t, printenv, ['sh']);
  await pushBusyboxPlus(registry, 'polinux/stress:latest', { ...printenv, 'usr/bin/stress': [0o755, STRESS] }, ['stress']);
  const nginx = { 'usr/sbin/nginx': [0o755, serve(80, '/usr/share/nginx/html')], 'usr/share/nginx/html/index.html': [0o644, '<h1>Welcome to nginx!</h1>\n'] } as Record<
    string,
    [number, string]
  >;
  for (const t of ['library/nginx:latest', 'library/nginx:1.14.2']) await pushBusyboxPlus(registry, t, nginx, ['nginx', '-g', 'daemon off;']);
  await pushBusyboxPlus(registry, 'library/redis:latest', { 'usr/local/bin/redis-server': [0o755, REDIS] }, ['redis-server']);
  await pushBusyboxPlus(registry, 'google-samples/node-hello:1.0', { 'usr/local/bin/node-hello': [0o755, serve(8080, '/srv')], 'srv/index.html': [0o644, 'Hello Kubernetes!'] }, [
    'node-hello',
  ]);
  await pushBusyboxPlus(registry, 'goproxy:0.1', { 'www/goproxy.txt': [0o644, 'goproxy stand-in\n'] }, ['httpd', '-f', '-p', '8080', '-h', '/www']);
}

/** User and password of {@link startAuthRegistry}. */
export const AUTH_USER = 'k8ts';
export const AUTH_PASSWORD = 'k8ts-secret';
/** bcrypt (cost 4) of AUTH_PASSWORD: the registry's htpasswd only takes bcrypt, which Node cannot make. */
const AUTH_BCRYPT = '$2b$04$9dvWz4ho.QdNyR9VeVgLd.Idv0LXR0HjrMrMk4Lk60Lr5z20zXquK';

/**
 * A second registry that requires basic auth (htpasswd), holding `private/busybox:1.0`
 * (the busybox stand-in). For imagePullSecrets: pulls without credentials get 401.
 */
export async function startAuthRegistry(): Promise<{ host: string; image: string; stop(): Promise<void> }> {
  requirePackages(['docker-registry'], 'the auth test registry');
  const bin = findExecutable('docker-registry')!;
  const dir = makeTempDir('k8ts-authreg-');
  const host = `127.0.0.1:${await freePort()}`;
  writeFileSync(join(dir.path, 'htpasswd'), `${AUTH_USER}:${AUTH_BCRYPT}\n`);
  const config = join(dir.path, 'config.yml');
  writeFileSync(
    config,
    [
      'version: 0.1',
      'log: {level: warn, accesslog: {disabled: true}}',
      `storage: {filesystem: {rootdirectory: ${join(dir.path, 'data')}}}`,
      `auth: {htpasswd: {realm: k8ts, path: ${join(dir.path, 'htpasswd')}}}`,
      `http: {addr: ${host}}`,
      '',
    ].join('\n'),
  );
  const proc = startProcess(bin, ['serve', config], join(dir.path, 'registry.log'));
  const stop = async (): Promise<void> => {
    await proc.stop();
    dir.remove();
  };
  try {
    await waitUntil(`auth registry on ${host}`, async () => {
      if (proc.exited) throw new Error(`docker-registry exited:\n${proc.logTail()}`);
      return fetch(`http://${host}/v2/`).then(
        (r) => r.status === 401,
        () => false,
      );
    });
    await pushBusyboxPlus(host, 'private/busybox:1.0', { 'usr/bin/printenv': [0o755, PRINTENV] }, ['sh'], `${AUTH_USER}:${AUTH_PASSWORD}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { host, image: `${host}/private/busybox:1.0`, stop };
}
