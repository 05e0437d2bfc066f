/**
 * Copies an image between repositories of one registry over the OCI distribution API:
 * each blob by cross-repository mount (distribution answers 201 without moving bytes),
 * falling back to GET + monolithic upload, then the manifest bytes unchanged (so the
 * digest stays the same). Plain HTTP unless `registry` carries an `https://` scheme.
 *
 * @see https://github.com/opencontainers/distribution-spec/blob/v1.1.0/spec.md#mounting-a-blob-from-another-repository
 */
import { PushError } from './push.js';

/** Accept header for image manifests (OCI and Docker schema 2, single-platform). */
export const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

interface Descriptor {
  digest: string;
}

const baseUrl = (registry: string): string => (/^https?:\/\//.test(registry) ? registry.replace(/\/$/, '') : `http://${registry}`);

/** Splits `repo:tag` (no digest references). @throws PushError on anything else */
export function splitRepoTag(repoTag: string): [repo: string, tag: string] {
  const colon = repoTag.lastIndexOf(':');
  if (colon <= 0 || repoTag.includes('@') || repoTag.slice(colon).includes('/')) throw new PushError(`want REPO:TAG, got ${JSON.stringify(repoTag)}`);
  return [repoTag.slice(0, colon), repoTag.slice(colon + 1)];
}

async function copyBlob(base: string, fromRepo: string, toRepo: string, digest: string): Promise<void> {
  if ((await fetch(`${base}/v2/${toRepo}/blobs/${digest}`, { method: 'HEAD' })).status === 200) return;
  const mount = await fetch(`${base}/v2/${toRepo}/blobs/uploads/?mount=${encodeURIComponent(digest)}&from=${encodeURIComponent(fromRepo)}`, { method: 'POST' });
  if (mount.status === 201) return;
  if (mount.status !== 202) throw new PushError(`mount ${digest} into ${toRepo}: HTTP ${mount.status} ${await mount.text()}`);
  // The registry opened a plain upload instead: fill it with the blob's bytes.
  const get = await fetch(`${base}/v2/${fromRepo}/blobs/${digest}`);
  if (get.status !== 200) throw new PushError(`get ${fromRepo}@${digest}: HTTP ${get.status}`);
  const body = new Uint8Array(await get.arrayBuffer());
  const url = new URL(mount.headers.get('location') ?? '', base);
  url.searchParams.set('digest', digest);
  const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body });
  if (put.status !== 201) throw new PushError(`upload ${digest} to ${toRepo}: HTTP ${put.status} ${await put.text()}`);
}

/**
 * Makes `to` (`repo:tag`) the same image as `from` on `registry` (`host:port` or a URL).
 * Returns the manifest digest (`sha256:…`), which is `from`'s.
 * @throws PushError when `from` is missing or the registry refuses a step.
 */
export async function copyImage(registry: string, from: string, to: string): Promise<string> {
  const base = baseUrl(registry);
  const [fromRepo, fromTag] = splitRepoTag(from);
  const [toRepo, toTag] = splitRepoTag(to);
  const res = await fetch(`${base}/v2/${fromRepo}/manifests/${fromTag}`, { headers: { accept: MANIFEST_ACCEPT } });
  if (res.status !== 200) throw new PushError(`get manifest ${from}: HTTP ${res.status}`);
  const mediaType = res.headers.get('content-type') ?? 'application/vnd.oci.image.manifest.v1+json';
  const bytes = new Uint8Array(await res.arrayBuffer());
  const manifest = JSON.parse(Buffer.from(bytes).toString('utf8')) as { config: Descriptor; layers: Descriptor[] };
  if (fromRepo !== toRepo) for (const b of [manifest.config, ...manifest.layers]) await copyBlob(base, fromRepo, toRepo, b.digest);
  const put = await fetch(`${base}/v2/${toRepo}/manifests/${toTag}`, { method: 'PUT', headers: { 'content-type': mediaType }, body: bytes });
  if (put.status !== 201) throw new PushError(`put manifest ${to}: HTTP ${put.status} ${await put.text()}`);
  return put.headers.get('docker-content-digest') ?? res.headers.get('docker-content-digest') ?? '';
}
