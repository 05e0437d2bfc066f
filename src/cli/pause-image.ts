/**
 * The pause image for a managed containerd on a machine that cannot reach
 * registry.k8s.io: built once, offline, from our own pause.c with scripts/images/build.sh
 * (gcc + umoci + busybox-static from scripts/install-deps.sh) into `<data-dir>/images`,
 * and imported by the containerd supervisor under the --pause-image name when absent.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (this file is bundled into dist/ or run from src/cli/). */
function repoRoot(): string {
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(d, 'scripts', 'images', 'build.sh'))) return d;
    d = dirname(d);
  }
  return d;
}

/**
 * Path of the pause image OCI layout, building it when possible; undefined when the
 * build tools are missing (containerd then needs the image from a registry or mirror).
 */
export function pauseImageLayout(dataDir: string): string | undefined {
  const out = join(dataDir, 'images');
  const script = join(repoRoot(), 'scripts', 'images', 'build.sh');
  if (!existsSync(script)) return undefined;
  const r = spawnSync('bash', [script, out], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`pause image not built (${r.stderr.trim().split('\n').pop() ?? 'build failed'}); containerd will pull it`);
    return undefined;
  }
  return join(out, 'pause');
}
