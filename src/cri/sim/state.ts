/**
 * Persistence of the simulated runtime, so that a restart of `k8ts server` on the same
 * data directory finds its containers as a kubelet restart finds containerd's: images,
 * sandboxes (with their IPs), containers (state, exit code, reason, timestamps, log
 * path, the memory layer of their filesystem). One JSON file, `<dir>/state.json`,
 * replaced atomically (write to a temporary file, rename), written a moment after
 * changes (debounced) and at close.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ContainerConfig, ContainerState, Image, PodSandboxConfig, PodSandboxState } from '../api.js';
import type { SimFsSnapshot } from './fs.js';
import type { SimClock } from './process.js';

export const STATE_VERSION = 1;

export interface SavedSandbox {
  id: string;
  config: PodSandboxConfig;
  state: PodSandboxState;
  /** ns since epoch */
  createdAt: number;
  ip?: string;
  name: string;
  runtimeHandler?: string;
}

export interface SavedContainer {
  id: string;
  sandboxId: string;
  config: ContainerConfig;
  name: string;
  imageRef: string;
  state: ContainerState;
  /** ns since epoch */
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  logPath: string;
  /** `trap ACTION TERM` of the main process */
  termTrap?: string;
  /** the memory layer, when the container changed it */
  fs?: SimFsSnapshot;
  /** next PID for an exec session */
  nextPid: number;
}

export interface SimState {
  version: number;
  /** ms since epoch */
  savedAt: number;
  images: Image[];
  sandboxes: SavedSandbox[];
  containers: SavedContainer[];
}

/** Reads and writes `<dir>/state.json`. */
export class StateStore {
  readonly file: string;
  private timer: unknown;
  private closed = false;

  /**
   * @param snapshot produces the state to write
   * @param debounceMs ms between a change and the write
   */
  constructor(
    dir: string,
    private readonly clock: SimClock,
    private readonly snapshot: () => SimState,
    private readonly debounceMs: number,
  ) {
    this.file = path.join(dir, 'state.json');
  }

  /**
   * The saved state, or undefined when there is none.
   * @throws Error when the file exists but cannot be read as a state of this version
   */
  load(): SimState | undefined {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    const st = JSON.parse(text) as SimState;
    if (st?.version !== STATE_VERSION || !Array.isArray(st.sandboxes) || !Array.isArray(st.containers) || !Array.isArray(st.images)) {
      throw new Error(`${this.file}: not a simulated runtime state (version ${STATE_VERSION})`);
    }
    return st;
  }

  /** Writes soon (once per `debounceMs`, however many changes come meanwhile). */
  changed(): void {
    if (this.closed || this.timer !== undefined) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.save();
    }, this.debounceMs);
  }

  /** Writes now (synchronously). */
  save(): void {
    if (this.closed) return;
    const tmp = `${this.file}.tmp`;
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, JSON.stringify(this.snapshot()), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }

  /** Writes a last time and stops writing. */
  close(): void {
    if (this.closed) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.save();
    this.closed = true;
  }
}
