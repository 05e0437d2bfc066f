/**
 * Turns one tag of an OCI image layout directory into an OCI archive (tar) that
 * `ctr images import --base-name REPO` imports as `REPO:TAG`, and normalizes image
 * references the way containerd's CRI plugin stores them.
 *
 * @see https://github.com/opencontainers/image-spec/blob/v1.1.0/image-layout.md
 * @see https://github.com/containerd/containerd/blob/v1.6.20/cmd/ctr/commands/images/import.go
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Thrown for a layout that is missing, malformed or lacks the requested tag. */
export class OCILayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OCILayoutError';
  }
}

interface IndexJSON {
  schemaVersion: number;
  manifests: { mediaType: string; digest: string; size: number; annotations?: Record<string, string> }[];
}

const REF_NAME = 'org.opencontainers.image.ref.name';

/** Reads index.json of an OCI layout. @throws OCILayoutError */
export function readLayoutIndex(layoutDir: string): IndexJSON {
  try {
    return JSON.parse(readFileSync(join(layoutDir, 'index.json'), 'utf8')) as IndexJSON;
  } catch (err) {
    throw new OCILayoutError(`${layoutDir} is not an OCI image layout: ${(err as Error).message}`);
  }
}

/** The tags (ref names) of an OCI layout. */
export function layoutTags(layoutDir: string): string[] {
  return readLayoutIndex(layoutDir).manifests.flatMap((m) => (m.annotations?.[REF_NAME] ? [m.annotations[REF_NAME]] : []));
}

/**
 * Splits a reference into repository and tag, normalized as containerd's CRI plugin
 * names images: `busybox` → `docker.io/library/busybox:latest`,
 * `registry.k8s.io/pause:3.10` stays. Digest references are rejected.
 * @throws OCILayoutError for digest references or empty names.
 * @see https://github.com/distribution/reference/blob/main/normalize.go
 */
export function normalizeRef(ref: string): { repo: string; tag: string; full: string } {
  if (!ref || ref.includes('@')) throw new OCILayoutError(`image reference ${JSON.stringify(ref)} must be NAME[:TAG] (no digest)`);
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  let repo = ref;
  let tag = 'latest';
  if (colon > slash) {
    repo = ref.slice(0, colon);
    tag = ref.slice(colon + 1);
  }
  const first = repo.split('/')[0]!;
  const hasDomain = repo.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasDomain) repo = 'docker.io/' + (repo.includes('/') ? repo : 'library/' + repo);
  return { repo, tag, full: `${repo}:${tag}` };
}

/** One ustar header block (512 bytes) for a regular file. */
function tarHeader(name: string, size: number): Buffer {
  if (Buffer.byteLength(name) > 100) throw new OCILayoutError(`path too long for tar: ${name}`);
  const h = Buffer.alloc(512, 0);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100, 8, 'ascii');
  h.write('0000000\0', 108, 8, 'ascii');
  h.write('0000000\0', 116, 8, 'ascii');
  h.write(size.toString(8).padStart(11, '0') + '\0', 124, 12, 'ascii');
  h.write('00000000000\0', 136, 12, 'ascii');
  h.fill(0x20, 148, 156); // checksum field counts as spaces
  h.write('0', 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += h[i]!;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return h;
}

function tarEntry(out: Buffer[], name: string, data: Buffer): void {
  out.push(tarHeader(name, data.length), data);
  const pad = (512 - (data.length % 512)) % 512;
  if (pad) out.push(Buffer.alloc(pad, 0));
}

/**
 * Builds an OCI archive holding the manifest tagged `fromTag` in `layoutDir`, re-tagged
 * `toTag`, with every blob of the layout. Import it with
 * `ctr -n k8s.io images import --base-name REPO -` to get `REPO:toTag`.
 * @throws OCILayoutError when the layout has no manifest tagged `fromTag`.
 */
export function layoutToArchive(layoutDir: string, fromTag: string, toTag: string): Buffer {
  const idx = readLayoutIndex(layoutDir);
  const m = idx.manifests.find((x) => x.annotations?.[REF_NAME] === fromTag);
  if (!m) throw new OCILayoutError(`OCI layout ${layoutDir} has no tag ${JSON.stringify(fromTag)} (has: ${layoutTags(layoutDir).join(', ')})`);
  const index: IndexJSON = { schemaVersion: 2, manifests: [{ ...m, annotations: { [REF_NAME]: toTag } }] };
  const out: Buffer[] = [];
  tarEntry(out, 'oci-layout', Buffer.from('{"imageLayoutVersion":"1.0.0"}'));
  tarEntry(out, 'index.json', Buffer.from(JSON.stringify(index)));
  const blobDir = join(layoutDir, 'blobs', 'sha256');
  for (const name of readdirSync(blobDir)) tarEntry(out, `blobs/sha256/${name}`, readFileSync(join(blobDir, name)));
  out.push(Buffer.alloc(1024, 0));
  return Buffer.concat(out);
}
