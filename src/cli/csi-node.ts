/**
 * A node's CSI: the `k8ts csi-hostpath` driver as its own process (or in this process
 * when k8ts runs as a library), registered with the kubelet the way
 * node-driver-registrar does (a pluginregistration.v1 socket in
 * `<kubelet-dir>/plugins_registry/`), and the built-in external-provisioner and
 * external-resizer for it, all speaking CSI over the driver's unix socket; and the
 * cluster's storage defaults (the `local-path` StorageClass and the driver's CSIDriver
 * object). The `k8ts csi-hostpath` command is src/csi/hostpath/command.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CSIDriver, StorageClass } from 'kubernetes-types/storage/v1.js';
import { isAlreadyExists } from '../apimachinery/errors.js';
import type { KObject } from '../api/resource.js';
import { ClientEventRecorder } from '../client/events.js';
import { SR } from '../client/storage-resources.js';
import type { Client } from '../client/types.js';
import { CSIClient } from '../csi/client.js';
import { DRIVER_NAME, HostPathDriver } from '../csi/hostpath/driver.js';
import type { PublishMode } from '../csi/hostpath/mount.js';
import { driverSocketPath, startRegistrar } from '../csi/registrar.js';
import { startExternalProvisioner } from '../controllers/csi/provisioner.js';
import { startExternalResizer } from '../controllers/csi/resizer.js';
import { startExternalAttacher } from '../controllers/csi/attacher.js';
import { startCapacityTracking } from '../controllers/csi/capacity.js';
import { vlog } from '../util/vlog.js';

/** The default StorageClass k8ts creates, as k3s' local-path (but provisioned through CSI). */
export const DEFAULT_STORAGE_CLASS = 'local-path';

export interface NodeCSIOptions {
  /** the node's client: the sidecars write PVs and claims with it */
  client: Client;
  nodeName: string;
  /** the node's data dir: volumes live in `<dataDir>/storage/` */
  dataDir: string;
  /** `<dataDir>/kubelet` */
  kubeletDir: string;
  /** bind mounts where containers are real processes, symlinks where they are simulated */
  publishMode: PublishMode;
  /** `--v` */
  verbosity?: number;
}

export interface RunningNodeCSI {
  stop(): Promise<void>;
}

/**
 * How to start the driver process: the small dist/csi-hostpath.mjs next to the bundle when
 * there is one, else this program again (`node [--import tsx] <main> csi-hostpath`), when it
 * was started as the k8ts command; undefined otherwise (the driver then runs in-process).
 */
function driverCommand(): string[] | undefined {
  const main = process.argv[1] ?? '';
  if (!/(?:cli[/\\]main\.ts|k8ts\.mjs|[/\\]k8ts)$/.test(main)) return undefined;
  const small = path.join(path.dirname(fs.realpathSync(main)), 'csi-hostpath.mjs');
  if (main.endsWith('.mjs') && fs.existsSync(small)) return [process.execPath, small];
  return [process.execPath, ...process.execArgv, main, 'csi-hostpath'];
}

async function waitForSocket(sock: string, proc: ChildProcess | undefined, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const client = new CSIClient(sock, { timeoutMs: 2000 });
  try {
    for (;;) {
      if (proc && proc.exitCode !== null) throw new Error(`csi-hostpath exited with ${proc.exitCode}`);
      if (fs.existsSync(sock) && (await client.probe().catch(() => false))) return;
      if (Date.now() > deadline) throw new Error(`csi-hostpath did not serve ${sock} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.close();
  }
}

/**
 * Starts the node's driver, its registration and its sidecars.
 * @throws Error when the driver does not come up
 */
export async function startNodeCSI(o: NodeCSIOptions): Promise<RunningNodeCSI> {
  const sock = driverSocketPath(o.kubeletDir, DRIVER_NAME);
  const verbosity = o.verbosity ?? 0;
  const self = driverCommand();
  let proc: ChildProcess | undefined;
  let inProcess: HostPathDriver | undefined;
  if (self) {
    const args = [
      '--endpoint',
      `unix://${sock}`,
      '--node-id',
      o.nodeName,
      '--data-dir',
      o.dataDir,
      '--publish-mode',
      o.publishMode,
      '--v',
      String(verbosity),
      '--exit-with-parent',
    ];
    proc = spawn(self[0]!, [...self.slice(1), ...args], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, K8TS_PARENT_PID: String(process.pid) } });
  } else {
    inProcess = new HostPathDriver({ nodeId: o.nodeName, dataDir: o.dataDir, endpoint: sock, publishMode: o.publishMode, log: vlog(verbosity, 4, 'csi-hostpath') });
    await inProcess.start();
  }
  const stops: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    if (proc && proc.exitCode === null) {
      const exited = new Promise<void>((r) => proc!.once('exit', () => r()));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000).unref())]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
    await inProcess?.stop();
  };
  try {
    await waitForSocket(sock, proc);
    const registrar = await startRegistrar({ kubeletDir: o.kubeletDir, driverName: DRIVER_NAME, driverEndpoint: sock, log: vlog(verbosity, 4, 'node-driver-registrar') });
    stops.push(() => registrar.stop());
    const sidecarLog = vlog(verbosity, 5, 'csi-sidecars');
    const csi = new CSIClient(sock, { log: sidecarLog });
    stops.push(async () => csi.close());
    const recorder = new ClientEventRecorder(o.client, { component: `${DRIVER_NAME}_${o.nodeName}` });
    const base = { client: o.client, csi, driverName: DRIVER_NAME, nodeName: o.nodeName, recorder, log: sidecarLog };
    const provisioner = await startExternalProvisioner(base);
    stops.push(() => provisioner.stop());
    const capacity = await startCapacityTracking(base);
    stops.push(() => capacity.stop());
    const attacher = await startExternalAttacher(base);
    stops.push(() => attacher.stop());
    const resizer = await startExternalResizer({ ...base, recorder: new ClientEventRecorder(o.client, { component: 'external-resizer ' + DRIVER_NAME }) });
    stops.push(() => resizer.stop());
  } catch (e) {
    await stop();
    throw e;
  }
  return { stop };
}

/**
 * The cluster's storage defaults, created once at start-up (k3s' local-storage
 * manifest, through CSI): the CSIDriver object of the built-in driver and the default
 * StorageClass `local-path` (WaitForFirstConsumer, reclaim Delete, expandable). What
 * exists already is left as it is.
 */
export async function ensureStorageDefaults(client: Client): Promise<void> {
  const driver: CSIDriver & KObject = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: { name: DRIVER_NAME },
    spec: {
      attachRequired: false,
      podInfoOnMount: true,
      volumeLifecycleModes: ['Persistent', 'Ephemeral'],
      fsGroupPolicy: 'File',
      storageCapacity: true,
      requiresRepublish: false,
    },
  };
  const sc: StorageClass & KObject = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: DRIVER_NAME,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
  };
  for (const [r, obj] of [
    [SR.csidrivers, driver],
    [SR.storageclasses, sc],
  ] as const) {
    await client.create(r, '', obj).catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
  }
}
