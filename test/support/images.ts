/**
 * The offline test images (scripts/images/build.sh): built once into `.tmp/images/`
 * of the repo (rebuilt when the build inputs change), pushed to a test registry.
 *
 * Layouts: `pause` (tag 3.10), `busybox` (1.36), `httpd` (1.36, busybox httpd on :80).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pushLayout } from '../../scripts/images/push.js';
import { IMAGE_BUILD_PACKAGES, requirePackages } from './deps.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where build.sh writes the layouts. */
export const IMAGES_DIR = join(REPO_ROOT, '.tmp', 'images');

export type TestImage = 'pause' | 'busybox' | 'httpd';
const TAGS: Record<TestImage, string> = { pause: '3.10', busybox: '1.36', httpd: '1.36' };

/**
 * Builds (or reuses) the layouts; returns each layout's directory.
 * @throws Error naming the missing packages and `sudo scripts/install-deps.sh`; with build.sh's output when it fails
 */
export function buildTestImages(): Record<TestImage, string> {
  requirePackages(IMAGE_BUILD_PACKAGES, 'the offline test images (scripts/images/build.sh)');
  const r = spawnSync('bash', [join(REPO_ROOT, 'scripts/images/build.sh'), IMAGES_DIR], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scripts/images/build.sh failed (${r.status}):\n${r.stdout}${r.stderr}`);
  return { pause: join(IMAGES_DIR, 'pause'), busybox: join(IMAGES_DIR, 'busybox'), httpd: join(IMAGES_DIR, 'httpd') };
}

/** Pushes `image` to `registryHost` as `repoTag` (e.g. `k8ts/busybox:1.36`); returns the manifest digest. */
export function pushTestImage(registryHost: string, image: TestImage, repoTag: string): Promise<string> {
  return pushLayout(join(IMAGES_DIR, image), TAGS[image], registryHost, repoTag);
}

/**
 * Builds the images and pushes the standard set: `k8ts/busybox:1.36`, `k8ts/httpd:1.36`,
 * and, for registries used as docker.io / registry.k8s.io mirrors, `library/busybox:1.36`
 * and `pause:3.10`. Returns the pullable references on this registry.
 */
export async function publishTestImages(registryHost: string): Promise<{ busybox: string; httpd: string; pause: string }> {
  buildTestImages();
  await pushTestImage(registryHost, 'busybox', 'k8ts/busybox:1.36');
  await pushTestImage(registryHost, 'busybox', 'library/busybox:1.36');
  await pushTestImage(registryHost, 'httpd', 'k8ts/httpd:1.36');
  await pushTestImage(registryHost, 'pause', 'pause:3.10');
  return {
    busybox: `${registryHost}/k8ts/busybox:1.36`,
    httpd: `${registryHost}/k8ts/httpd:1.36`,
    pause: `${registryHost}/pause:3.10`,
  };
}
