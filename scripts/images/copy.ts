/**
 * Copies an image between repositories of one registry over the OCI distribution API:
 * each blob by cross-repository mount (distribution answers 201 without moving bytes),
 * falling back to GET + monolithic upload, then the manifest bytes unchanged (so the
 * digest stays the same). Plain HTTP unless `registry` carries an `https://` scheme.
 *
 * @see https://github.com/opencontainers/distribution-spec/blob/v1.1.0/spec.md#mounting-a-blob-from-another-repository
 */
import { createHash } from 'node:crypto';
import { PushError } from './push.js';

/** Accept header for image manifests (OCI and Docker schema 2, single-platform). */
export const MANIFEST_ACCEPT = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json'].join(', ');

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
  await finishUpload(base, toRepo, mount.headers.get('location'), digest, new Uint8Array(await get.arrayBuffer()));
}

async function finishUpload(base: string, repo: string, location: string | null, digest: string, body: Uint8Array<ArrayBuffer>): Promise<void> {
  const url = new URL(location ?? '', base);
  url.searchParams.set('digest', digest);
  const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body });
  if (put.status !== 201) throw new PushError(`upload ${digest} to ${repo}: HTTP ${put.status} ${await put.text()}`);
}

/**
 * Sets the image config's `Entrypoint` and `Cmd` of `repoTag` (`repo:tag`) on `registry`
 * and re-tags the result (new config blob, new manifest; layers unchanged).
 * Deterministic: the same input gives the same manifest digest, which is returned.
 * @throws PushError when the image is missing or the registry refuses a step.
 */
export async function setEntrypoint(registry: string, repoTag: string, entrypoint: string[], cmd: string[]): Promise<string> {
  const base = baseUrl(registry);
  const [repo, tag] = splitRepoTag(repoTag);
  const res = await fetch(`${base}/v2/${repo}/manifests/${tag}`, { headers: { accept: MANIFEST_ACCEPT } });
  if (res.status !== 200) throw new PushError(`get manifest ${repoTag}: HTTP ${res.status}`);
  const mediaType = res.headers.get('content-type') ?? 'application/vnd.oci.image.manifest.v1+json';
  const manifest = (await res.json()) as { config: Descriptor & { size: number } };
  const cfgRes = await fetch(`${base}/v2/${repo}/blobs/${manifest.config.digest}`);
  if (cfgRes.status !== 200) throw new PushError(`get config of ${repoTag}: HTTP ${cfgRes.status}`);
  const config = (await cfgRes.json()) as { config: { Entrypoint?: string[]; Cmd?: string[] } };
  config.config.Entrypoint = entrypoint;
  config.config.Cmd = cmd;
  const bytes = Buffer.from(JSON.stringify(config));
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if ((await fetch(`${base}/v2/${repo}/blobs/${digest}`, { method: 'HEAD' })).status !== 200) {
    const start = await fetch(`${base}/v2/${repo}/blobs/uploads/`, { method: 'POST' });
    if (start.status !== 202) throw new PushError(`start upload to ${repo}: HTTP ${start.status} ${await start.text()}`);
    await finishUpload(base, repo, start.headers.get('location'), digest, new Uint8Array(bytes));
  }
  manifest.config = { ...manifest.config, digest, size: bytes.length };
  const body = Buffer.from(JSON.stringify(manifest));
  const put = await fetch(`${base}/v2/${repo}/manifests/${tag}`, { method: 'PUT', headers: { 'content-type': mediaType }, body: new Uint8Array(body) });
  if (put.status !== 201) throw new PushError(`put manifest ${repoTag}: HTTP ${put.status} ${await put.text()}`);
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
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
