/**
 * The all-in-one server's control plane as kube-system pods, as a kubeadm cluster shows
 * it: `kube-apiserver-<node>`, `kube-scheduler-<node>`, `kube-controller-manager-<node>`
 * (and `etcd-<node>` with managed etcd: a supervised child process) — process pods
 * of the local node's kubelet (src/kubelet/pod/process-pods.ts), each
 * with its component's own klog-style log, which `kubectl logs -n kube-system
 * kube-scheduler-<node>` streams.
 *
 * Every component logs through one process-wide {@link Verbosity} (`--v`, changed at
 * run time with `PUT /debug/flags/v` on the API server). Each component's lines go, in
 * the CRI log format, to the file the kubelet serves its pod's container log from; the
 * file starts empty at each server start, as a new container's log does. Without a
 * local node (`--disable-agent`) there are no pods and the lines go nowhere.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { processPod, processPodLogPath, type ProcessPod } from '../kubelet/index.js';
import { KLogger, type Logger, type Verbosity } from '../util/klog.js';

/** The image tag kubeadm v1.32 runs the control plane from. */
const VERSION = 'v1.32.0';

/**
 * A control-plane component and its health check. Its pod requests no CPU (kubeadm's
 * manifests request 100–250m): the components share the server's process, which the
 * node's capacity does not account for either.
 */
export interface ControlPlaneComponent {
  name: 'kube-apiserver' | 'kube-scheduler' | 'kube-controller-manager' | 'etcd';
  healthy: () => boolean | Promise<boolean>;
  /** a component in a supervised child process (the managed etcd): its image, command line, PID and what the annotation names */
  child?: { image: string; command: string[]; pid: () => number | undefined; startedAt: () => number; program: string };
}

export interface ControlPlanePods {
  /** each component's logger (a logger writing nowhere for components without a pod) */
  logger(name: ControlPlaneComponent['name']): Logger;
  /** writes a line as it is to the component's log (a child's own log lines, e.g. etcd's) */
  rawLog(name: ControlPlaneComponent['name']): (line: string) => void;
  /** the process pods for the local node's kubelet */
  readonly pods: ProcessPod[];
  close(): Promise<void>;
}

/** A CRI log line: `<RFC 3339 with nanoseconds> stderr F <text>` (klog writes to stderr). */
function criLine(text: string, ms = Date.now()): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 23)}000000Z stderr F ${text}\n`;
}

/**
 * Sets up the components' pods and loggers.
 * @param nodeName the local node (undefined: no local kubelet, no pods)
 * @param kubeletDir the local kubelet's directory (`<data-dir>/kubelet`)
 */
export function controlPlanePods(o: { nodeName?: string; kubeletDir: string; verbosity: Verbosity; components: ControlPlaneComponent[] }): ControlPlanePods {
  const startedAt = Date.now();
  const streams: WriteStream[] = [];
  const loggers = new Map<string, Logger>();
  const writers = new Map<string, (line: string) => void>();
  const pods: ProcessPod[] = [];
  for (const c of o.components) {
    let write: (line: string) => void = () => undefined;
    if (o.nodeName) {
      const pp = c.child
        ? processPod(
            {
              name: c.name,
              command: c.child.command,
              image: c.child.image,
              healthy: c.healthy,
              pid: c.child.pid,
              get startedAt() {
                return c.child!.startedAt();
              },
            },
            o.nodeName,
            c.child.program,
          )
        : processPod({ name: c.name, command: [c.name], image: `registry.k8s.io/${c.name}:${VERSION}`, healthy: c.healthy, startedAt }, o.nodeName);
      pods.push(pp);
      const path = processPodLogPath(o.kubeletDir, pp.pod);
      mkdirSync(dirname(path), { recursive: true });
      const ws = createWriteStream(path, { flags: 'w' });
      ws.on('error', () => undefined);
      streams.push(ws);
      write = (line) => void ws.write(criLine(line));
    }
    loggers.set(c.name, new KLogger({ write, verbosity: o.verbosity }));
    writers.set(c.name, write);
  }
  const none = new KLogger({ write: () => undefined, verbosity: o.verbosity });
  return {
    logger: (name) => loggers.get(name) ?? none,
    rawLog: (name) => writers.get(name) ?? (() => undefined),
    pods,
    async close() {
      await Promise.all(streams.map((s) => new Promise<void>((r) => s.end(() => r()))));
    },
  };
}

/** `<data-dir>/kubelet` of the local node (see kubelet/index.ts). */
export const kubeletDirOf = (dataDir: string): string => join(dataDir, 'kubelet');
