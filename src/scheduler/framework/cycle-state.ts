/**
 * CycleState: the scratchpad plugins share during one scheduling cycle of one pod.
 * Values are keyed by string (by convention `"<ExtensionPoint><PluginName>"`) and must
 * implement `clone()`, so preemption can fork the state when it simulates removing pods.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/cycle_state.go
 */
import type { PodInfo } from './types.js';

/** Data a plugin stores in the CycleState. */
export interface StateData {
  /** A copy safe to mutate independently; immutable data may return `this`. */
  clone(): StateData;
}

/** Thrown by {@link CycleState.read} when the key is absent (upstream ErrNotFound). */
export class StateNotFoundError extends Error {
  constructor(key: string) {
    super(`not found: ${key}`);
    this.name = 'StateNotFoundError';
  }
}

export class CycleState {
  private readonly storage = new Map<string, StateData>();
  /** Filter plugins to skip because their PreFilter returned Skip. */
  skipFilterPlugins: Set<string> = new Set();
  /** Score plugins to skip because their PreScore returned Skip. */
  skipScorePlugins: Set<string> = new Set();
  /** whether this cycle records per-plugin durations (upstream samples 10 % of cycles) */
  recordPluginMetrics = false;
  /**
   * called after each plugin run when set (the pod creation trace; t0 = performance.now()
   * at the start; `rejected`: the nodes a Filter plugin rejected in that run)
   */
  pluginObserver?: (plugin: string, point: string, t0: number, rejected?: readonly string[]) => void;
  /** the parsed pod of this cycle (from the queue), when the runner knows it */
  podInfo: PodInfo | null = null;

  /** Returns the value, or throws {@link StateNotFoundError}. */
  read<T extends StateData>(key: string): T {
    const v = this.storage.get(key);
    if (v === undefined) throw new StateNotFoundError(key);
    return v as T;
  }

  /** Returns the value or undefined (no exception on the hot path). */
  get<T extends StateData>(key: string): T | undefined {
    return this.storage.get(key) as T | undefined;
  }

  write(key: string, value: StateData): void {
    this.storage.set(key, value);
  }

  delete(key: string): void {
    this.storage.delete(key);
  }

  /** A deep copy: every value cloned, skip sets copied. */
  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.storage) c.storage.set(k, v.clone());
    c.skipFilterPlugins = new Set(this.skipFilterPlugins);
    c.skipScorePlugins = new Set(this.skipScorePlugins);
    c.recordPluginMetrics = this.recordPluginMetrics;
    c.pluginObserver = this.pluginObserver;
    c.podInfo = this.podInfo;
    return c;
  }
}
