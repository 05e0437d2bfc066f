/**
 * Puts locally built images into containerd's `k8s.io` namespace (the one its CRI
 * plugin serves) with `ctr`, so a node can start pods offline: the pause image in
 * particular must exist under exactly the `sandbox_image` name.
 *
 * @see https://github.com/containerd/containerd/blob/v1.6.20/docs/cri/config.md
 */
import { spawn } from 'node:child_process';
import { layoutTags, layoutToArchive, normalizeRef } from './oci-archive.js';

/** Thrown when `ctr` fails; carries its stderr. */
export class CtrError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CtrError';
  }
}

/** Runs `ctr --address SOCK -n k8s.io ARGS…`, feeding `input` on stdin; resolves stdout. */
export function ctr(address: string, args: string[], input?: Buffer, ctrBin = 'ctr'): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(ctrBin, ['--address', address, '--namespace', 'k8s.io', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.stderr.on('data', (d: Buffer) => err.push(d));
    p.on('error', (e) => reject(new CtrError(`ctr ${args[0] ?? ''}: ${e.message}`)));
    p.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new CtrError(`ctr ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString('utf8').trim()}`));
    });
    p.stdin.on('error', () => {});
    p.stdin.end(input ?? Buffer.alloc(0));
  });
}

/** Whether containerd (k8s.io namespace) has an image named `ref` (normalized as CRI does). */
export async function hasImage(address: string, ref: string, ctrBin?: string): Promise<boolean> {
  const { full } = normalizeRef(ref);
  const out = await ctr(address, ['images', 'ls', '-q', `name==${full}`], undefined, ctrBin);
  return out.split('\n').some((l) => l.trim() === full);
}

/**
 * Imports one tag of an OCI layout directory into containerd as `ref` (e.g. the layout
 * tag `3.10` of scripts/images' pause layout as `registry.k8s.io/pause:3.10`), and
 * unpacks it for the default snapshotter. `fromTag` defaults to the layout's only tag.
 * @throws OCILayoutError for a bad layout/tag, CtrError when ctr fails.
 */
export async function importLayout(address: string, layoutDir: string, ref: string, fromTag?: string, ctrBin?: string): Promise<void> {
  const tag = fromTag ?? layoutTags(layoutDir)[0] ?? 'latest';
  const { repo, tag: toTag } = normalizeRef(ref);
  const archive = layoutToArchive(layoutDir, tag, toTag);
  await ctr(address, ['images', 'import', '--base-name', repo, '-'], archive, ctrBin);
}
