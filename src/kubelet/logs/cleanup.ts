/**
 * Removal of a pod's container log directories when the pod goes.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_pods.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podLogDir } from '../kuberuntime/sandbox-config.js';

/**
 * Removes `<kubeletDir>/logs/<ns>_<name>_<uid>` (upstream evictPodLogsDirectories):
 * the one directory when `pod` is known, else every directory ending in `_<uid>` (an
 * orphan whose name is lost). Small, so done synchronously; a missing directory is fine.
 */
export function removePodLogs(kubeletDir: string, uid: string, pod?: Pod): void {
  if (pod?.metadata?.name) {
    fs.rmSync(podLogDir(kubeletDir, pod), { recursive: true, force: true });
    return;
  }
  const dir = path.join(kubeletDir, 'logs');
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) if (n.endsWith(`_${uid}`)) fs.rmSync(path.join(dir, n), { recursive: true, force: true });
}
