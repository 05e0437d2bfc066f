/**
 * Pods held at Permit: each waits until every plugin that asked it to wait allows it,
 * one rejects it, or its timeout fires (then it is rejected as upstream does:
 * `rejected due to timeout after waiting <d> at plugin <name>`).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/runtime/waiting_pods_map.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Code, Status } from './status.js';

/** Timer functions, injectable for tests. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class WaitingPod {
  private readonly pending = new Map<string, unknown>();
  private settled = false;
  private resolveFn!: (s: Status | null) => void;
  /** resolves with null (allowed) or the rejecting status */
  readonly done: Promise<Status | null>;

  constructor(
    readonly pod: Pod,
    pluginTimeoutsMs: Map<string, number>,
    private readonly timers: Timers,
  ) {
    this.done = new Promise((r) => (this.resolveFn = r));
    for (const [plugin, ms] of pluginTimeoutsMs) {
      const h = timers.setTimeout(() => this.reject(plugin, `rejected due to timeout after waiting ${ms / 1000}s at plugin ${plugin}`), ms);
      this.pending.set(plugin, h);
    }
  }

  /** Plugins still to allow. */
  pendingPlugins(): string[] {
    return [...this.pending.keys()];
  }

  /** `plugin` allows the pod; once all have, the pod proceeds to binding. */
  allow(plugin: string): void {
    if (this.settled) return;
    const h = this.pending.get(plugin);
    if (h !== undefined) this.timers.clearTimeout(h);
    this.pending.delete(plugin);
    if (this.pending.size === 0) this.settle(null);
  }

  /** Rejects the pod (Unschedulable with `msg`, attributed to `plugin`). */
  reject(plugin: string, msg: string): void {
    if (this.settled) return;
    this.settle(new Status(Code.Unschedulable, [msg]).withPlugin(plugin));
  }

  private settle(s: Status | null): void {
    this.settled = true;
    for (const h of this.pending.values()) this.timers.clearTimeout(h);
    this.pending.clear();
    this.resolveFn(s);
  }
}
