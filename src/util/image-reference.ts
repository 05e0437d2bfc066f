/**
 * Container image references as the docker/distribution grammar defines them:
 * `[domain/]path[:tag][@digest]`, normalised the way `ParseNormalizedNamed` does
 * (`nginx` → `docker.io/library/nginx`), with upstream's error texts.
 *
 * @see https://github.com/distribution/reference/blob/main/normalize.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/util/parsers/parsers.go
 */

export interface ImageReference {
  /** e.g. "docker.io" */
  domain: string;
  /** e.g. "library/nginx" */
  path: string;
  /** "" when absent */
  tag: string;
  /** "" when absent, e.g. "sha256:…" */
  digest: string;
}

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$|^\[[0-9a-fA-F:]+\](?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}$/;

/** Thrown for references the grammar rejects; `message` is upstream's text. */
class InvalidReferenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidReferenceError';
  }
}

/**
 * Parses and normalises an image reference.
 * @throws InvalidReferenceError "invalid reference format" or
 *   "invalid reference format: repository name (library/Nginx) must be lowercase"
 */
export function parseImageReference(ref: string): ImageReference {
  if (!ref || ref.length > 255 + 128 + 72) throw new InvalidReferenceError('invalid reference format');
  let rest = ref;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new InvalidReferenceError('invalid reference format');
  }
  let tag = '';
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw new InvalidReferenceError('invalid reference format');
  }
  let domain = 'docker.io';
  let path = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase()) {
      domain = first;
      path = rest.slice(slash + 1);
      if (!DOMAIN.test(domain)) throw new InvalidReferenceError('invalid reference format');
    }
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  const parts = path.split('/');
  for (const p of parts) {
    if (!COMPONENT.test(p)) {
      if (COMPONENT.test(p.toLowerCase())) {
        throw new InvalidReferenceError(`invalid reference format: repository name (${path}) must be lowercase`);
      }
      throw new InvalidReferenceError('invalid reference format');
    }
  }
  return { domain, path, tag, digest };
}

/** `docker.io/library/nginx` */
export function repositoryName(r: ImageReference): string {
  return `${r.domain}/${r.path}`;
}

/** Full normalised string: `docker.io/library/nginx:1.14.2` or `…@sha256:…`. */
export function formatReference(r: ImageReference): string {
  return `${repositoryName(r)}${r.tag ? `:${r.tag}` : ''}${r.digest ? `@${r.digest}` : ''}`;
}

/**
 * Upstream applyDefaultImageTag: adds `:latest` when neither tag nor digest is given;
 * the returned string keeps the user's spelling otherwise (`nginx` → `nginx:latest`).
 * @throws InvalidReferenceError with message
 *   `couldn't parse image name "x": invalid reference format`
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/images/image_manager.go
 */
export function applyDefaultImageTag(image: string): string {
  let r: ImageReference;
  try {
    r = parseImageReference(image);
  } catch (e) {
    throw new InvalidReferenceError(`couldn't parse image name ${JSON.stringify(image)}: ${(e as Error).message}`);
  }
  if (!r.tag && !r.digest) return `${image}:latest`;
  return image;
}
