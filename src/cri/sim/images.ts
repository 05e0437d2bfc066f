/**
 * The simulated image store: images "pulled" by name, with deterministic IDs and
 * digests derived from the normalised reference, and plausible sizes from the
 * table in image-profiles.ts.
 */
import { createHash } from 'node:crypto';
import { CRIError, type Image, type ImageSpec } from '../api.js';
import { imageProfile } from './image-profiles.js';
import { formatReference, parseImageReference, repositoryName, type ImageReference } from '../../util/image-reference.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Normalises `nginx` → `docker.io/library/nginx:latest`. @throws CRIError InvalidArgument */
export function normalizeImage(image: string): { ref: ImageReference; name: string } {
  let ref: ImageReference;
  try {
    ref = parseImageReference(image);
  } catch (e) {
    throw new CRIError('InvalidArgument', `failed to parse image reference ${JSON.stringify(image)}: ${(e as Error).message}`);
  }
  if (!ref.tag && !ref.digest) ref = { ...ref, tag: 'latest' };
  return { ref, name: formatReference(ref) };
}

export class ImageStore {
  private readonly byId = new Map<string, Image>();

  /** Adds (or returns) the image for `image`; `sizeBytes` overrides the derived size. */
  add(image: string, sizeBytes?: number): Image {
    const { ref, name } = normalizeImage(image);
    const existing = this.find(name);
    if (existing) return existing;
    const repo = repositoryName(ref);
    const digest = ref.digest || `sha256:${sha(`digest:${name}`)}`;
    const id = `sha256:${sha(`id:${repo}@${digest}`)}`;
    const img: Image = this.byId.get(id) ?? {
      id,
      repoTags: [],
      repoDigests: [`${repo}@${digest}`],
      size: sizeBytes ?? imageProfile(name).size,
      uid: 0,
      username: '',
      pinned: false,
    };
    if (ref.tag && !img.repoTags.includes(`${repo}:${ref.tag}`)) img.repoTags.push(`${repo}:${ref.tag}`);
    this.byId.set(id, img);
    return img;
  }

  /** Finds by ID, normalised tag or repo digest. */
  find(image: string): Image | undefined {
    const direct = this.byId.get(image) ?? this.byId.get(`sha256:${image}`);
    if (direct) return direct;
    let name: string;
    try {
      name = normalizeImage(image).name;
    } catch {
      return undefined;
    }
    for (const img of this.byId.values()) if (img.repoTags.includes(name) || img.repoDigests.includes(name)) return img;
    return undefined;
  }

  list(filter?: ImageSpec): Image[] {
    if (filter?.image) {
      const f = this.find(filter.image);
      return f ? [f] : [];
    }
    return [...this.byId.values()];
  }

  remove(spec: ImageSpec): void {
    const img = this.find(spec.image);
    if (img) this.byId.delete(img.id);
  }

  /** Puts back an image saved earlier (persistence). */
  restore(img: Image): void {
    this.byId.set(img.id, { ...img, repoTags: [...img.repoTags], repoDigests: [...img.repoDigests] });
  }

  usedBytes(): number {
    let n = 0;
    for (const i of this.byId.values()) n += i.size;
    return n;
  }
}
