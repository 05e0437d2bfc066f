/**
 * What the simulated runtime keeps per sandbox and per container (runtime.ts owns
 * the maps, host.ts runs their processes, state.ts saves them).
 */
import type { Container, ContainerConfig, PodSandboxConfig } from '../api.js';
import type { SimBehavior, SimContainerBehavior } from './behavior.js';
import type { SimFs } from './fs.js';
import type { CRILogWriter } from './logs.js';
import type { SimProcess } from './process.js';

export interface SandboxRec {
  id: string;
  config: PodSandboxConfig;
  state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  /** ns since epoch */
  createdAt: number;
  ip?: string;
  /** the reserved name `<pod>_<ns>_<uid>_<attempt>` */
  name: string;
  behavior: SimBehavior;
  runtimeHandler?: string;
}

export interface ContainerRec {
  id: string;
  sandboxId: string;
  config: ContainerConfig;
  /** the reserved name `<container>_<pod>_<ns>_<uid>_<attempt>` */
  name: string;
  imageRef: string;
  state: Container['state'];
  /** ns since epoch (0: not yet) */
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  /** absolute path of the CRI log ('' = none) */
  logPath: string;
  behavior: SimContainerBehavior;
  fs?: SimFs;
  /** the filesystem changed since the container started (saved only then) */
  fsDirty?: boolean;
  /** the main process (PID 1) */
  proc?: SimProcess;
  /** running exec sessions */
  execs: Set<SimProcess>;
  nextPid: number;
  log?: CRILogWriter;
}
