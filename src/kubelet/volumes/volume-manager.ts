/**
 * Sets up a pod's volumes before its sandbox starts, under
 * `<dataDir>/kubelet/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>`:
 * emptyDir (a directory with mode 0777; medium Memory a tmpfs sized as upstream when
 * the kubelet may mount, i.e. runs as root), configMap / secret / downwardAPI /
 * projected (files written atomically, refreshed at most every `refreshMs`), hostPath
 * (type checked and `…OrCreate` created, host-path.ts), anything else a plain
 * directory. With the pod's fsGroup, every volume but hostPath gets its group
 * (ownership.ts). A failing volume is retried with back-off (500 ms doubling to 2m2s)
 * and reported once per attempt through `onError`. Cleanup unmounts before deleting.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/volumemanager/volume_manager.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Pod, Volume } from 'kubernetes-types/core/v1.js';
import { parseQuantity, value } from '../../apimachinery/quantity.js';
import type { Clock } from '../../util/clock.js';
import { podResourceConfig } from '../cm/pod-cgroups.js';
import { writeAtomic } from './atomic-writer.js';
import { setUpHostPath } from './host-path.js';
import { isMountPoint, mountTmpfs, unmountUnder } from './mounts.js';
import { setVolumeOwnership } from './ownership.js';
import { pluginName, volumePayload, type SourceDeps } from './sources.js';
import type { CSIVolumePlugin, SetUpInfo } from './csi/mounter.js';
import { MountStepError } from './csi/errors.js';

/**
 * Upstream calculateEmptyDirMemorySize: node allocatable memory, lowered to the pod's
 * memory limit and then to the volume's sizeLimit when those are smaller (bytes; 0 = unknown).
 */
export function emptyDirMemorySize(pod: Pod, v: Volume, allocatableBytes: number): number {
  let size = allocatableBytes;
  const podLimit = podResourceConfig(pod).memoryLimit;
  if (podLimit && podLimit > 0 && (!size || podLimit <= size)) size = podLimit;
  const sl = v.emptyDir?.sizeLimit;
  if (sl !== undefined) {
    const b = value(parseQuantity(String(sl)));
    if (b > 0 && (!size || b <= size)) size = b;
  }
  return size;
}

/** A volume that could not be set up; `message` is the plugin's error. */
export class VolumeError extends Error {
  constructor(
    readonly volume: string,
    message: string,
    /** the whole event text when the plugin has its own (CSI: `MountVolume.MountDevice failed for volume …`) */
    readonly eventMessage?: string,
    /** the event reason when not FailedMount (`FailedAttachVolume`) */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'VolumeError';
  }
}

interface Mounted {
  hostPath: string;
  refreshedAt: number;
  /** the PV's `pv.beta.kubernetes.io/gid` annotation (PVC-backed volumes) */
  gid?: string;
}

interface Retry {
  delay: number;
  at: number;
  err: VolumeError;
}

/** upstream podAttachAndMountTimeout: 2m3s */
export const ATTACH_AND_MOUNT_TIMEOUT_MS = 123_000;

export class VolumeManager {
  private readonly mounted = new Map<string, Map<string, Mounted>>();
  private readonly retries = new Map<string, Retry>();
  /** pod uid → when its volumes first failed to be ready, and when the timeout was last reported (ms) */
  private readonly waiting = new Map<string, { since: number; reported?: number }>();

  /**
   * @param canMount whether tmpfs may be mounted (root); else medium Memory is a plain directory
   */
  constructor(
    private readonly kubeletDir: string,
    private readonly clock: Clock,
    private readonly refreshMs = 60_000,
    private readonly canMount = process.getuid?.() === 0,
    /** CSI volumes and PVC-backed volumes (none: they are plain directories) */
    private readonly csi?: CSIVolumePlugin,
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
    try {
      const out = await this.mountAll(pod, deps, onError);
      this.waiting.delete(uid);
      return out;
    } catch (e) {
      this.reportTimeout(pod, onError);
      throw e;
    }
  }

  /**
   * Upstream WaitForAttachAndMount's timeout: once a pod's volumes have not been ready
   * for 2m3s, a FailedMount naming the unmounted volumes, again every 2m3s.
   */
  private reportTimeout(pod: Pod, onError: (e: VolumeError) => void): void {
    const uid = pod.metadata?.uid ?? '';
    const now = this.clock.now();
    const w = this.waiting.get(uid) ?? { since: now };
    this.waiting.set(uid, w);
    if (now - w.since < ATTACH_AND_MOUNT_TIMEOUT_MS || (w.reported !== undefined && now - w.reported < ATTACH_AND_MOUNT_TIMEOUT_MS)) return;
    w.reported = now;
    const m = this.mounted.get(uid);
    const unmounted = (pod.spec?.volumes ?? [])
      .map((v) => v.name)
      .filter((n) => !m?.has(n))
      .sort();
    const msg = `Unable to attach or mount volumes: unmounted volumes=[${unmounted.join(' ')}], unattached volumes=[], failed to process volumes=[]: context deadline exceeded`;
    onError(new VolumeError(unmounted[0] ?? '', msg, msg));
  }

  private async mountAll(pod: Pod, deps: SourceDeps, onError: (e: VolumeError) => void): Promise<Map<string, string>> {
    const uid = pod.metadata?.uid ?? '';
    let m = this.mounted.get(uid);
    if (!m) this.mounted.set(uid, (m = new Map()));
    const out = new Map<string, string>();
    const now = this.clock.now();
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    const policy = pod.spec?.securityContext?.fsGroupChangePolicy === 'OnRootMismatch' ? 'OnRootMismatch' : 'Always';
    for (const v of pod.spec?.volumes ?? []) {
      const have = m.get(v.name);
      const projected = !!(v.configMap || v.secret || v.downwardAPI || v.projected);
      if (have && (!projected || now - have.refreshedAt < this.refreshMs)) {
        // a mounted claim whose volume has grown: NodeExpandVolume (upstream checkVolumeFSResize)
        if (this.csi?.expander && (v.persistentVolumeClaim || v.ephemeral)) await this.csi.expander.inUse(pod, v);
        out.set(v.name, have.hostPath);
        continue;
      }
      const rkey = `${uid}/${v.name}`;
      const retry = this.retries.get(rkey);
      if (retry && now < retry.at && !have) throw retry.err;
      const dir = path.join(this.podDir(uid), 'volumes', pluginName(v), v.name);
      try {
        let target = dir;
        const info: SetUpInfo = {};
        if (v.hostPath) target = setUpHostPath(v.hostPath);
        else if (this.csi?.handles(v)) target = await this.csi.setUp(pod, v, info);
        else {
          const payload = await volumePayload(pod, v, deps);
          if (payload) {
            const changed = writeAtomic(dir, payload, now);
            if (fsGroup !== undefined && (changed || !have)) setVolumeOwnership(dir, fsGroup, true, policy);
          } else {
            fs.mkdirSync(dir, { recursive: true, mode: 0o777 });
            fs.chmodSync(dir, 0o777);
            if (v.emptyDir?.medium === 'Memory' && this.canMount && !isMountPoint(dir)) {
              const alloc = deps.alloc.memory ? value(deps.alloc.memory) : 0;
              mountTmpfs(dir, emptyDirMemorySize(pod, v, alloc) || undefined);
            }
            if (fsGroup !== undefined) setVolumeOwnership(dir, fsGroup, false, policy);
          }
        }
        this.retries.delete(rkey);
        m.set(v.name, { hostPath: target, refreshedAt: now, gid: info.gid });
        out.set(v.name, target);
      } catch (e) {
        const err = e instanceof MountStepError ? new VolumeError(v.name, e.message, e.eventMessage, e.reason) : new VolumeError(v.name, (e as Error).message);
        const quiet = e instanceof MountStepError && e.quiet;
        // a wait (quiet) is polled at most every 2 s; a failure backs off to 2m2s
        const delay = retry ? Math.min(retry.delay * 2, quiet ? 2000 : 122_000) : 500;
        this.retries.set(rkey, { delay, at: now + delay, err });
        if (!quiet) onError(err);
        if (have) {
          out.set(v.name, have.hostPath); // keep serving the last good content
          continue;
        }
        throw err;
      }
    }
    return out;
  }

  /**
   * Upstream GetExtraSupplementalGroupsForPod: the GIDs of the `pv.beta.kubernetes.io/gid`
   * annotations of the pod's mounted volumes (distinct, in string order, integers only)
   * that the pod's securityContext.supplementalGroups does not already list.
   * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/volumemanager/volume_manager.go
   */
  extraSupplementalGroups(pod: Pod): number[] {
    const m = this.mounted.get(pod.metadata?.uid ?? '');
    const values = new Set<string>();
    for (const v of pod.spec?.volumes ?? []) {
      const gid = m?.get(v.name)?.gid;
      if (gid) values.add(gid);
    }
    const have = new Set(pod.spec?.securityContext?.supplementalGroups ?? []);
    const out: number[] = [];
    for (const s of [...values].sort()) {
      if (!/^[+-]?\d+$/.test(s)) continue;
      const gid = Number(s);
      if (!Number.isSafeInteger(gid) || have.has(gid)) continue;
      out.push(gid);
    }
    return out;
  }

  /** When the earliest mount retry of pod `uid` is due (ms since the epoch; undefined when none is waiting). */
  retryAt(uid: string): number | undefined {
    let at: number | undefined;
    const prefix = `${uid}/`;
    for (const [k, r] of this.retries) if (k.startsWith(prefix) && (at === undefined || r.at < at)) at = r.at;
    return at;
  }

  /**
   * Unmounts what is mounted below the pod's directory (tmpfs emptyDirs), removes the
   * directory and forgets the pod's volumes.
   * @throws Error when something stays mounted (the directory is then kept: nothing below a mount is deleted)
   */
  async cleanupPod(uid: string): Promise<void> {
    this.mounted.delete(uid);
    this.waiting.delete(uid);
    for (const k of this.retries.keys()) if (k.startsWith(`${uid}/`)) this.retries.delete(k);
    const dir = this.podDir(uid);
    await this.csi?.tearDownPod(uid);
    const left = unmountUnder(dir);
    if (left.length) throw new Error(`pod ${uid}: still mounted: ${left.join(', ')}`);
    // small (volumes are mounts or a few files): synchronous, so it never waits behind the thread pool
    fs.rmSync(dir, { recursive: true, force: true });
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
