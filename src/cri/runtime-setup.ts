/**
 * Picks and starts the container runtime of a node, as k3s' agent does:
 *
 * 1. `--runtime sim`: the simulated runtime (no processes run).
 * 2. `--runtime remote --container-runtime-endpoint unix:///…`: that CRI runtime
 *    (containerd, CRI-O); it must answer, else startup fails.
 * 3. `--runtime remote` without an endpoint, `containerd` (and runc) installed and
 *    root: a node-private containerd supervised by this process, with config, root,
 *    state and socket under `<dataDir>/containerd/`, CNI for the node's podCIDR, the
 *    pause image and registry mirrors (cri/containerd).
 * 4. Otherwise: the simulated runtime, with `reason` saying loudly why (the CLI prints
 *    it in the banner; the node carries the label `k8ts.io/runtime=sim`).
 *
 * @see https://docs.k3s.io/advanced#using-an-alternative-container-runtime
 */
import { join } from 'node:path';
import type { Runtime } from './api.js';
import { findExecutable, startManagedContainerd, type ManagedContainerd, type ManagedContainerdOptions } from './containerd/supervisor.js';
import { RemoteRuntime } from './remote/remote.js';
import { SimRuntime } from './sim/index.js';

export interface NodeRuntimeOptions {
  /** what `--runtime` asked for */
  runtime: 'sim' | 'remote';
  /** `--container-runtime-endpoint`, e.g. `unix:///run/containerd/containerd.sock` */
  endpoint?: string;
  /** the node's data dir (a managed containerd lives in `<dataDir>/containerd/`) */
  dataDir: string;
  /** the node's podCIDR (CNI range of a managed containerd; the sim's IPAM) */
  podCIDR: string;
  /** `--pause-image`, default `registry.k8s.io/pause:3.10` */
  pauseImage?: string;
  /** `--registries`: a k3s-style registries.yaml for a managed containerd */
  registriesFile?: string;
  /** an OCI layout (scripts/images/build.sh `pause`) imported as the pause image when absent */
  pauseImageLayout?: string;
  /** how long to wait for an explicit endpoint, ms (default 10 000) */
  connectTimeoutMs?: number;
  /** extra settings for a managed containerd (bridge name, log level, …) */
  managed?: Partial<ManagedContainerdOptions>;
  /** told about a managed containerd's exits and restarts */
  onContainerdEvent?: ManagedContainerdOptions['onEvent'];
  /** injection points for tests */
  deps?: {
    findExecutable?: (name: string) => string | undefined;
    isRoot?: () => boolean;
    startManaged?: (o: ManagedContainerdOptions) => Promise<ManagedContainerd>;
    connect?: (endpoint: string, waitMs: number) => Promise<Runtime>;
  };
}

export interface NodeRuntime {
  runtime: Runtime;
  /** 'remote' (real containers) or 'sim' */
  kind: 'sim' | 'remote';
  /** one line for the startup banner, e.g. `remote (managed containerd at unix:///…/containerd.sock)` */
  description: string;
  /** set when `remote` was asked for but the node runs simulated containers: why */
  reason?: string;
  /** the CRI endpoint in use (remote only) */
  endpoint?: string;
  /** the supervised containerd, when this process runs one */
  managed?: ManagedContainerd;
  /** closes the CRI connection and stops a managed containerd (containers keep running) */
  stop(): Promise<void>;
}

/** The pause image the kubelet uses by default (upstream v1.32). */
export const DEFAULT_PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

function simRuntime(o: NodeRuntimeOptions, reason?: string): NodeRuntime {
  const runtime = new SimRuntime({ podCIDR: o.podCIDR, stateDir: join(o.dataDir, 'sim-runtime') });
  return {
    runtime,
    kind: 'sim',
    description: reason ? `sim (SIMULATED containers: ${reason})` : 'sim (SIMULATED containers: no processes run)',
    ...(reason ? { reason } : {}),
    stop: () => runtime.close(),
  };
}

/**
 * Starts the node's runtime per the rules above.
 * @throws CRIError Unavailable when an explicit endpoint does not answer;
 *   ManagedContainerdError / CNIConfigError / RegistriesConfigError when a managed
 *   containerd cannot be set up although containerd is installed and we are root.
 */
export async function startNodeRuntime(o: NodeRuntimeOptions): Promise<NodeRuntime> {
  if (o.runtime === 'sim') return simRuntime(o);
  const d = o.deps ?? {};
  const connect = d.connect ?? ((ep: string, waitMs: number) => RemoteRuntime.connect(ep, { waitMs }));
  if (o.endpoint) {
    const runtime = await connect(o.endpoint, o.connectTimeoutMs ?? 10_000);
    return { runtime, kind: 'remote', endpoint: o.endpoint, description: `remote (CRI at ${o.endpoint})`, stop: () => runtime.close() };
  }
  const find = d.findExecutable ?? findExecutable;
  const isRoot = d.isRoot ?? (() => process.getuid?.() === 0);
  if (!find('containerd')) return simRuntime(o, 'no --container-runtime-endpoint and containerd is not installed (scripts/install-deps.sh installs it)');
  if (!find('runc')) return simRuntime(o, 'no --container-runtime-endpoint and runc is not installed (scripts/install-deps.sh installs it)');
  if (!isRoot()) return simRuntime(o, 'no --container-runtime-endpoint and a managed containerd needs root');
  const managed = await (d.startManaged ?? startManagedContainerd)({
    dataDir: o.dataDir,
    podCIDR: o.podCIDR,
    pauseImage: o.pauseImage ?? DEFAULT_PAUSE_IMAGE,
    registriesFile: o.registriesFile,
    pauseImageLayout: o.pauseImageLayout,
    onEvent: o.onContainerdEvent,
    ...o.managed,
  });
  let runtime: Runtime;
  try {
    runtime = await connect(managed.endpoint, o.connectTimeoutMs ?? 10_000);
  } catch (e) {
    await managed.stop();
    throw e;
  }
  return {
    runtime,
    kind: 'remote',
    endpoint: managed.endpoint,
    managed,
    description: `remote (managed containerd at ${managed.endpoint}, pid ${managed.pid ?? '?'})`,
    async stop() {
      await runtime.close();
      await managed.stop();
    },
  };
}
