/**
 * Pushes one tag of an OCI image layout to a registry over the OCI distribution API
 * (no docker/skopeo needed): blobs by monolithic upload (skipped when present), then
 * the manifest. Plain HTTP is for registries on 127.0.0.1 only.
 *
 * CLI: `node --import tsx scripts/images/push.ts LAYOUT[:TAG] HOST:PORT REPO:TAG [REPO:TAG…]`
 *   e.g. `… push.ts .tmp/images/httpd 127.0.0.1:5000 library/nginx:1.14.2 k8ts/httpd:1.36`
 *
 * @see https://github.com/opencontainers/distribution-spec/blob/v1.1.0/spec.md#push
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export class PushError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PushError';
  }
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

function blobPath(layout: string, digest: string): string {
  const [alg, hex] = digest.split(':');
  return join(layout, 'blobs', alg!, hex!);
}

/**
 * Pushes the manifest tagged `fromTag` in `layoutDir` as `repo:tag` to `http://<registry>`
 * (or `https://` when `registry` has that scheme). Returns the manifest digest.
 * @throws PushError on a missing tag or any unexpected registry answer.
 */
export async function pushLayout(layoutDir: string, fromTag: string, registry: string, repoTag: string): Promise<string> {
  const base = /^https?:\/\//.test(registry) ? registry.replace(/\/$/, '') : `http://${registry}`;
  const colon = repoTag.lastIndexOf(':');
  if (colon <= 0 || repoTag.includes('@')) throw new PushError(`want REPO:TAG, got ${JSON.stringify(repoTag)}`);
  const repo = repoTag.slice(0, colon);
  const tag = repoTag.slice(colon + 1);
  const index = JSON.parse(readFileSync(join(layoutDir, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  const desc = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === fromTag);
  if (!desc) throw new PushError(`${layoutDir} has no tag ${fromTag}`);
  const manifestBytes = readFileSync(blobPath(layoutDir, desc.digest));
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as { config: Descriptor; layers: Descriptor[] };

  for (const blob of [manifest.config, ...manifest.layers]) {
    const head = await fetch(`${base}/v2/${repo}/blobs/${blob.digest}`, { method: 'HEAD' });
    if (head.status === 200) continue;
    const start = await fetch(`${base}/v2/${repo}/blobs/uploads/`, { method: 'POST' });
    if (start.status !== 202) throw new PushError(`start upload ${blob.digest}: HTTP ${start.status} ${await start.text()}`);
    const loc = start.headers.get('location');
    if (!loc) throw new PushError('registry gave no upload location');
    const url = new URL(loc, base);
    url.searchParams.set('digest', blob.digest);
    const put = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: readFileSync(blobPath(layoutDir, blob.digest)),
    });
    if (put.status !== 201) throw new PushError(`upload ${blob.digest}: HTTP ${put.status} ${await put.text()}`);
  }
  const res = await fetch(`${base}/v2/${repo}/manifests/${tag}`, {
    method: 'PUT',
    headers: { 'content-type': desc.mediaType },
    body: manifestBytes,
  });
  if (res.status !== 201) throw new PushError(`put manifest ${repoTag}: HTTP ${res.status} ${await res.text()}`);
  return desc.digest;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [src, registry, ...targets] = process.argv.slice(2);
  if (!src || !registry || targets.length === 0) {
    console.error('usage: push.ts LAYOUT[:TAG] HOST:PORT REPO:TAG [REPO:TAG…]');
    process.exit(2);
  }
  const [layout, fromTag] = src.includes(':') ? src.split(':') : [src, undefined];
  const tag =
    fromTag ?? (JSON.parse(readFileSync(join(layout!, 'index.json'), 'utf8')) as { manifests: Descriptor[] }).manifests[0]?.annotations?.['org.opencontainers.image.ref.name'];
  for (const t of targets) console.log(`${registry}/${t} ${await pushLayout(layout!, tag ?? 'latest', registry, t)}`);
}
