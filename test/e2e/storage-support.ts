/**
 * What the storage e2e files share (storage-csi*, storage-docs, storage-helm,
 * containerd-storage*): kubectl helpers over a cluster a `before` hook starts, pod and
 * kubelet-config manifests, the host's mount points, a CSI driver served by the test
 * process and registered with the kubelet, and the `k8ts server` on a private containerd.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csiServices, serveUnix, stopServer, type UnaryImpl } from '../../src/csi/grpc.js';
import { startRegistrar, type RunningRegistrar } from '../../src/csi/registrar.js';
import { startTestContainerd, type TestContainerd } from '../support/containerd.js';
import { publishTestImages } from '../support/images.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { unmountUnder } from '../support/tmp.js';
import { startCluster, type Cluster } from './harness.js';

/** An Event as the storage tests read it. */
export interface Ev {
  reason: string;
  message: string;
  type: string;
  source?: { component?: string; host?: string };
}

/** kubectl helpers of {@link kubectlHelpers}; every one but `tryGet`, `exists` and `fails` asserts kubectl's exit code 0. */
export interface KubectlHelpers<T> {
  /** `kubectl get ARGS -o json`, parsed; the assertion message is kubectl's stderr */
  get(args: string[]): T;
  /** as `get`, `undefined` when kubectl fails (e.g. NotFound) */
  tryGet(args: string[]): T | undefined;
  /** whether `kubectl get ARGS -o name` succeeds */
  exists(args: string[]): boolean;
  /** `kubectl apply -f -` of `yaml` */
  apply(yaml: string): void;
  /** the events of the object `kind`/`name` (a field selector on involvedObject) */
  events(kind: string, name: string): Ev[];
  /** kubectl's stdout; the assertion message names the command and its stderr */
  ok(args: string[], input?: string): string;
  /** kubectl's trimmed stderr, asserting a non-zero exit code */
  fails(args: string[], input?: string): string;
}

/**
 * kubectl helpers over the cluster `cluster()` returns when a helper is called (so they
 * can be made before a `before` hook starts it). `T` is what `get` parses to.
 */
// biome-ignore lint/suspicious/noExplicitAny: by default a test reads kubectl's JSON untyped, as `JSON.parse` does
export function kubectlHelpers<T = any>(cluster: () => Cluster | undefined): KubectlHelpers<T> {
  const run = (args: string[], input?: string) => cluster()!.kubectl(args, { input });
  const get = (args: string[]): T => {
    const r = run(['get', ...args, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as T;
  };
  return {
    get,
    tryGet: (args) => {
      const r = run(['get', ...args, '-o', 'json']);
      return r.code === 0 ? (JSON.parse(r.stdout) as T) : undefined;
    },
    exists: (args) => run(['get', ...args, '-o', 'name']).code === 0,
    apply: (yaml) => {
      const r = run(['apply', '-f', '-'], yaml);
      assert.equal(r.code, 0, r.stderr);
    },
    events: (kind, name) => {
      const r = run(['get', 'events', '--field-selector', `involvedObject.kind=${kind},involvedObject.name=${name}`, '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { items: Ev[] }).items;
    },
    ok: (args, input) => {
      const r = run(args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
    fails: (args, input) => {
      const r = run(args, input);
      assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should fail: ${r.stdout}`);
      return r.stderr.trim();
    },
  };
}

/** A ReadWriteOnce claim `name` of `size` (a quantity) in the default StorageClass. */
export const rwoClaim = (name: string, size: string): string => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: ${size}
`;

/**
 * A busybox pod (container `app`, `sleep 3600`) using claim `claim` as volume `data`:
 * mounted at /data, or with `devicePath` as a raw block device there; with
 * `gracePeriod`, its terminationGracePeriodSeconds.
 */
export const claimPod = (name: string, claim: string, o: { gracePeriod?: number; devicePath?: string } = {}): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:${o.gracePeriod === undefined ? '' : `\n  terminationGracePeriodSeconds: ${o.gracePeriod}`}
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'sleep 3600']
${o.devicePath === undefined ? '    volumeMounts:\n    - name: data\n      mountPath: /data' : `    volumeDevices:\n    - name: data\n      devicePath: ${o.devicePath}`}
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: ${claim}
`;

/**
 * A busybox pod (container `c`, terminationGracePeriodSeconds 1) running `sh -c 'cmd'`
 * (`cmd` without single quotes) with claim `claim` as volume `data`: mounted at /data, or
 * with `devicePath` as a raw block device there.
 */
export const shellClaimPod = (name: string, cmd: string, claim: string, devicePath?: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: busybox:1.36
    command: [sh, -c, '${cmd}']
${devicePath === undefined ? '    volumeMounts:\n    - {name: data, mountPath: /data}' : `    volumeDevices:\n    - {name: data, devicePath: ${devicePath}}`}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: ${claim}}
`;

/**
 * A temp dir holding `kubelet-config.yaml`, a KubeletConfiguration with `syncFrequency: 3s`
 * (the kubelet checks mounted claims for expansion on each pod sync; 1 min by default).
 * `remove()` deletes the dir.
 */
export function fastSyncKubeletConfig(): { file: string; remove(): void } {
  const dir = fs.mkdtempSync(join(tmpdir(), 'k8ts-e2e-kcfg-'));
  const file = join(dir, 'kubelet-config.yaml');
  fs.writeFileSync(file, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsyncFrequency: 3s\n');
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Mount points at or below `dir` (this process shares the host's mount namespace). */
export function mountsUnder(dir: string): string[] {
  return fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((m) => m === dir || m.startsWith(`${dir}/`));
}

/** A CSI driver served by the test process, registered with a kubelet. */
export interface TestDriver {
  registrar: RunningRegistrar;
  /** stops the registrar, then the driver's gRPC server */
  stop(): Promise<void>;
}

/**
 * Serves CSI driver `driver` on `<kubeletDir>/plugins/<driver>/csi.sock` — Identity
 * (GetPluginInfo with vendorVersion 0.0.1, no plugin capabilities, Probe) and a Node
 * service whose NodeGetInfo answers `nodeId`, with no node capabilities, and the other
 * methods `node` (NodePublishVolume …) — and registers it through the kubelet's plugins_registry.
 * @throws what serveUnix or startRegistrar throws, with the server stopped
 */
export async function serveTestDriver(kubeletDir: string, driver: string, nodeId: string, node: Record<string, UnaryImpl>): Promise<TestDriver> {
  const sock = join(kubeletDir, 'plugins', driver, 'csi.sock');
  const s = csiServices();
  const server = await serveUnix(sock, [
    [s.Identity!, { GetPluginInfo: async () => ({ name: driver, vendorVersion: '0.0.1' }), GetPluginCapabilities: async () => ({ capabilities: [] }), Probe: async () => ({}) }],
    [s.Node!, { NodeGetInfo: async () => ({ nodeId }), NodeGetCapabilities: async () => ({ capabilities: [] }), ...node }],
  ]);
  let registrar: RunningRegistrar;
  try {
    registrar = await startRegistrar({ kubeletDir, driverName: driver, driverEndpoint: sock });
  } catch (err) {
    await stopServer(server);
    throw err;
  }
  return {
    registrar,
    stop: async () => {
      await registrar.stop();
      await stopServer(server);
    },
  };
}

/** The `k8ts server` on a private containerd, with its test registry. */
export interface ContainerdServer {
  cluster: Cluster;
  /** deletes every pod (not waiting), unmounts what is left under the data dir, stops server, containerd and registry */
  stop(): Promise<void>;
}

/**
 * Starts a test registry with the test images, a private containerd mirroring it, and
 * `k8ts server --runtime remote` on it with kube-proxy disabled (the node is the host
 * itself; its iptables and routes are not the test's to change), plus `args`.
 * @throws what a start throws, with what had started stopped
 */
export async function startServerOnContainerd(args: string[] = []): Promise<ContainerdServer> {
  let registry: TestRegistry | undefined;
  let ctrd: TestContainerd | undefined;
  let c: Cluster | undefined;
  const stop = async (): Promise<void> => {
    try {
      c?.kubectl(['delete', 'pod', '--all', '--wait=false']);
      if (c) unmountUnder(c.dir);
      await c?.stop();
    } finally {
      await ctrd?.stop();
      await registry?.stop();
    }
  };
  try {
    registry = await startRegistry();
    await publishTestImages(registry.host);
    ctrd = await startTestContainerd({ mirror: registry.host });
    c = await startCluster({
      args: ['--runtime', 'remote', '--container-runtime-endpoint', ctrd.endpoint, '--cgroup-root', ctrd.cgroupParent, '--disable-kube-proxy', ...args],
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { cluster: c, stop };
}

/**
 * kubectl helpers of the containerd files, where pulls make commands slow: `kubectl(...args)`
 * (150 s timeout; stdout, asserting exit code 0 with the command and its stderr), `apply`
 * (`kubectl apply -f -`) and `phase` (a pod's status.phase, `''` before it has one).
 */
export function slowKubectl(cluster: () => Cluster | undefined): { kubectl(...args: string[]): string; apply(yaml: string): void; phase(pod: string): string } {
  const kubectl = (...args: string[]): string => {
    const r = cluster()!.kubectl(args, { timeoutMs: 150_000 });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  return {
    kubectl,
    apply: (yaml) => {
      const r = cluster()!.kubectl(['apply', '-f', '-'], { input: yaml });
      assert.equal(r.code, 0, r.stderr);
    },
    phase: (pod) => JSON.parse(kubectl('get', 'pod', pod, '-o', 'json')).status?.phase ?? '',
  };
}
