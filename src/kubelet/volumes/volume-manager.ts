/**
 * Sets up a pod's volumes before its sandbox starts, under
 * `<dataDir>/kubelet/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>`:
 * emptyDir (a directory), configMap / secret / downwardAPI / projected (files written
 * atomically, refreshed at most every `refreshMs`), hostPath (passed through as is;
 * the kubelet does not create or check host paths), anything else a plain directory.
 * A failing volume is retried with back-off (500 ms doubling to 2m2s) and reported
 * once per attempt through `onError`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/volumemanager/volume_manager.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clock } from '../clock.js';
import { writeAtomic } from './atomic-writer.js';
import { pluginName, volumePayload, type SourceDeps } from './sources.js';

/** A volume that could not be set up; `message` is the plugin's error. */
export class VolumeError extends Error {
  constructor(
    readonly volume: string,
    message: string,
  ) {
    super(message);
    this.name = 'VolumeError';
  }
}

interface Mounted {
  hostPath: string;
  refreshedAt: number;
}

interface Retry {
  delay: number;
  at: number;
  err: VolumeError;
}

export class VolumeManager {
  private readonly mounted = new Map<string, Map<string, Mounted>>();
  private readonly retries = new Map<string, Retry>();

  constructor(
    private readonly kubeletDir: string,
    private readonly clock: Clock,
    private readonly refreshMs = 60_000,
  ) {}

  /** `<kubeletDir>/pods/<uid>` */
  podDir(uid: string): string {
    return path.join(this.kubeletDir, 'pods', uid);
  }

  /**
   * Mounts every volume of `pod`; returns volume name → host path.
   * @param onError called for each newly failed attempt (for the FailedMount event)
   * @throws VolumeError for the first volume that is not ready (still failing or in back-off)
   */
  async mountPod(pod: Pod, deps: SourceDeps, onError: (e: VolumeError) => void): Promise<Map<string, string>> {
    const uid = pod.metadata?.uid ?? '';
    let m = this.mounted.get(uid);
    if (!m) this.mounted.set(uid, (m = new Map()));
    const out = new Map<string, string>();
    const now = this.clock.now();
    for (const v of pod.spec?.volumes ?? []) {
      if (v.hostPath) {
        out.set(v.name, v.hostPath.path);
        continue;
      }
      const have = m.get(v.name);
      const projected = !!(v.configMap || v.secret || v.downwardAPI || v.projected);
      if (have && (!projected || now - have.refreshedAt < this.refreshMs)) {
        out.set(v.name, have.hostPath);
        continue;
      }
      const rkey = `${uid}/${v.name}`;
      const retry = this.retries.get(rkey);
      if (retry && now < retry.at && !have) throw retry.err;
      const dir = path.join(this.podDir(uid), 'volumes', pluginName(v), v.name);
      try {
        const payload = await volumePayload(pod, v, deps);
        if (payload) writeAtomic(dir, payload, now);
        else fs.mkdirSync(dir, { recursive: true, mode: 0o777 });
        this.retries.delete(rkey);
        m.set(v.name, { hostPath: dir, refreshedAt: now });
        out.set(v.name, dir);
      } catch (e) {
        const err = new VolumeError(v.name, (e as Error).message);
        const delay = retry ? Math.min(retry.delay * 2, 122_000) : 500;
        this.retries.set(rkey, { delay, at: now + delay, err });
        onError(err);
        if (have) {
          out.set(v.name, have.hostPath); // keep serving the last good content
          continue;
        }
        throw err;
      }
    }
    return out;
  }

  /** Removes everything under the pod's directory and forgets its mounts. */
  async cleanupPod(uid: string): Promise<void> {
    this.mounted.delete(uid);
    for (const k of this.retries.keys()) if (k.startsWith(`${uid}/`)) this.retries.delete(k);
    await fs.promises.rm(this.podDir(uid), { recursive: true, force: true });
  }

  /** UIDs that have a pod directory on disk (for orphan cleanup). */
  podDirsOnDisk(): string[] {
    try {
      return fs.readdirSync(path.join(this.kubeletDir, 'pods'));
    } catch {
      return [];
    }
  }
}
