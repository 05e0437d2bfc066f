/**
 * The client programs the e2e tests drive: the real kubectl (1.32) and helm (v3).
 * `.tools/bin/` of the repository is looked at first (scripts/ensure-kubectl.sh unpacks
 * both there when they are not on PATH), then PATH.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `.tools/bin/<name>` when present, else `<name>` on PATH, else undefined. */
export function findTool(name: string): string | undefined {
  const local = join(ROOT, '.tools', 'bin', name);
  if (existsSync(local)) return local;
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.stdout.trim() || undefined;
}

/** Path of the kubectl binary. @throws Error (failing the test) naming scripts/ensure-kubectl.sh when none is installed */
export function kubectlPath(): string {
  const p = findTool('kubectl');
  if (!p) throw new Error('kubectl is not installed: run scripts/ensure-kubectl.sh (the e2e tests need the real kubectl 1.32)');
  return p;
}

/** Path of the helm (v3) binary. @throws Error (failing the test) naming scripts/ensure-kubectl.sh when none is installed */
export function helmPath(): string {
  const p = findTool('helm');
  if (!p) throw new Error('helm is not installed: run scripts/ensure-kubectl.sh (it unpacks helm v3 into .tools/bin)');
  return p;
}
