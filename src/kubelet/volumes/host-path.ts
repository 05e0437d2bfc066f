/**
 * hostPath volumes: the path is used as is; its `type` is checked (and for the
 * `…OrCreate` types created) the way upstream's hostPath plugin does, with its errors
 * (`hostPath type check failed: /x is not a directory`), which become FailedMount
 * events and keep the pod in ContainerCreating.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/hostpath/host_path.go (checkType)
 */
import * as fs from 'node:fs';
import type { HostPathVolumeSource } from 'kubernetes-types/core/v1.js';

const kindOf = (p: string): fs.Stats | undefined => {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
};

/**
 * Checks (and creates) `src.path` per `src.type`; returns the host path.
 * @throws Error with upstream's message when the type does not match or creation fails
 */
export function setUpHostPath(src: HostPathVolumeSource): string {
  const p = src.path;
  const st = kindOf(p);
  const fail = (what: string): never => {
    throw new Error(`hostPath type check failed: ${p} is not ${what}`);
  };
  switch (src.type ?? '') {
    case '':
      return p;
    case 'DirectoryOrCreate':
      if (!st) {
        fs.mkdirSync(p, { recursive: true, mode: 0o755 });
        fs.chmodSync(p, 0o755);
        return p;
      }
      if (!st.isDirectory()) fail('a directory');
      return p;
    case 'Directory':
      if (!st?.isDirectory()) fail('a directory');
      return p;
    case 'FileOrCreate':
      if (!st) {
        try {
          fs.closeSync(fs.openSync(p, fs.constants.O_CREAT | fs.constants.O_RDONLY, 0o644));
        } catch (e) {
          throw new Error(`open ${p}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
        }
        return p;
      }
      if (st.isDirectory()) fail('a file');
      return p;
    case 'File':
      if (!st || st.isDirectory()) fail('a file');
      return p;
    case 'Socket':
      if (!st?.isSocket()) fail('a socket file');
      return p;
    case 'CharDevice':
      if (!st?.isCharacterDevice()) fail('a character device');
      return p;
    case 'BlockDevice':
      if (!st?.isBlockDevice()) fail('a block device');
      return p;
    default:
      throw new Error(`hostPath type check failed: unsupported type ${src.type}`);
  }
}
