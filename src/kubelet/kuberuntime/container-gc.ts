import * as fs from 'node:fs';
import type { Runtime } from '../../cri/api.js';
import type { RuntimePodStatus } from '../container/runtime.js';
import { isNotFound } from './errors.js';

/**
 * Container garbage collection for one pod (upstream containerGC with the default
 * policy MaxPerPodContainer=1, MinAge=0): of each container name, the newest exited
 * container stays (lastState, `kubectl logs -p`), older ones are removed with their
 * log files; not-ready sandboxes other than the newest go once they hold no container.
 * Returns how many were removed.
 * @throws CRIError from RemoveContainer/RemovePodSandbox other than NotFound
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_gc.go
 */
export async function gcPodContainers(runtime: Runtime, ps: RuntimePodStatus): Promise<number> {
  let removed = 0;
  const keptExited = new Set<string>();
  const alive = new Set<string>();
  for (const c of ps.containers) {
    if (c.state !== 'exited') {
      alive.add(c.sandboxId);
      continue;
    }
    if (!keptExited.has(c.name)) {
      keptExited.add(c.name);
      alive.add(c.sandboxId);
      continue;
    }
    try {
      await runtime.removeContainer(c.id);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (c.logPath) await fs.promises.rm(c.logPath, { force: true });
    removed++;
  }
  for (const sb of ps.sandboxes.slice(1)) {
    if (sb.ready || alive.has(sb.id)) continue;
    try {
      await runtime.removePodSandbox(sb.id);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    removed++;
  }
  return removed;
}
