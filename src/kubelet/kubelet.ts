/**
 * The kubelet: watches the pods bound to its node (fieldSelector spec.nodeName),
 * syncs each through a serialized pod worker, terminates deleted and finished pods,
 * cleans up runtime pods that vanished from the API, and adopts what a previous
 * kubelet left in the runtime (all state is read back from CRI labels, so nothing is
 * created twice).
 *
 * When a pod is synced follows upstream: on API changes to it; when the 1 s runtime
 * relist (PLEG) sees its sandboxes or containers change; when a probe result flips;
 * when a back-off it met ends (crash loop, image pull, volume mount); 10 s after a
 * sync that failed or hit a back-off (backOffPeriod); else every 60–90 s (syncFrequency
 * with upstream's jitter, fixed per pod).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet.go
 */
import type { PodTraceSink } from '../trace/recorder.js';
import { traceStep } from './trace.js';
import { TokenManager } from './token/manager.js';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ConfigMap, Pod, Secret, Service } from 'kubernetes-types/core/v1.js';
import { isNotFound as isApiNotFound } from '../apimachinery/errors.js';
import type { EventRecorder } from '../client/events.js';
import { Informer } from '../client/informer.js';
import { R, type Client } from '../client/types.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';

const RUNTIME_CLASSES = { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false } as const;
import type { Runtime } from '../cri/api.js';
import { value } from '../apimachinery/quantity.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { PodCgroups } from './cm/pod-cgroups.js';
import { podRef, type RuntimePodStatus } from './container/runtime.js';
import type { NodeAllocatable, RuntimeFieldValues } from './env/downward.js';
import type { EnvDeps } from './env/env.js';
import { serviceEnvMap } from './env/service-env.js';
import { Msg, Reason } from './events.js';
import { ImageManager } from './images/image-manager.js';
import { computePodActions } from './kuberuntime/pod-actions.js';
import { KubeRuntimeManager } from './kuberuntime/runtime-manager.js';
import { ReasonCache } from './kuberuntime/reason-cache.js';
import { RuntimeStatusCache } from './kuberuntime/runtime-cache.js';
import type { DNSSettings } from './kuberuntime/sandbox-config.js';
import { removePodLogs } from './logs/cleanup.js';
import type { MachineInfo } from './nodestatus/setters.js';
import { PodWorkers } from './pod-workers.js';
import { ProberManager } from './prober/prober-manager.js';
import type { NetworkProber } from './prober/probe.js';
import { generateAPIPodStatus } from './status/pod-status.js';
import { StatusManager } from './status/status-manager.js';
import { VolumeManager } from './volumes/volume-manager.js';
import { FileSource } from './config/file-source.js';
import { MirrorClient } from './pod/mirror-client.js';
import { StaticPodManager } from './pod/static-pods.js';
import { processPodStatus, type ProcessPod } from './pod/process-pods.js';
import type { CSIVolumePlugin } from './volumes/csi/mounter.js';

interface KubeletCoreOptions {
  client: Client;
  runtime: Runtime;
  recorder: EventRecorder;
  clock: Clock;
  nodeName: string;
  /** `<dataDir>/kubelet` */
  kubeletDir: string;
  machine: MachineInfo;
  dns: DNSSettings;
  network: NetworkProber;
  /** pod cgroups under `--cgroup-root` (undefined: the runtime places pods) */
  cgroups?: PodCgroups;
  /** resync of a pod after a successful sync, ms (upstream syncFrequency; default 60 s, plus up to 50 % jitter) */
  resyncMs?: number;
  /** resync of a pod after a sync that failed or met a back-off, ms (upstream backOffPeriod; default 10 s) */
  backOffMs?: number;
  /** runtime relist period (PLEG), ms (default 1000) */
  relistMs?: number;
  /** orphan cleanup period, ms (default 2000) */
  housekeepingMs?: number;
  /** upstream `--pod-manifest-path` / `staticPodPath`: static pod manifests (directory or file) */
  staticPodPath?: string;
  /** how often the static pod path is re-read besides on change notifications, ms (upstream fileCheckFrequency, 20 s) */
  fileCheckFrequencyMs?: number;
  /** in-process components shown as static pods (status from their health checks; never run by the runtime) */
  processPods?: ProcessPod[];
  log?: (msg: string, err?: unknown) => void;
  /** the CSI volume plugin (csi, PVC and generic ephemeral volumes) */
  csi?: CSIVolumePlugin;
  /** the pod creation trace (src/trace) */
  trace?: PodTraceSink;
}

type Phase = 'terminated';

/** upstream syncFrequency */
const RESYNC_MS = 60_000;
/** upstream backOffPeriod */
const BACKOFF_MS = 10_000;
const MIN_REQUEUE_MS = 100;
/** how often a process pod's health is checked (upstream's default probe periodSeconds, 10 s) */
const PROCESS_PROBE_MS = 10_000;
/** upstream workerResyncIntervalJitterFactor: the resync comes after 1–1.5 × syncFrequency */
const RESYNC_JITTER = 0.5;

/** A fixed number in [0, 1) per pod UID (FNV-1a), so pods created together do not resync in lockstep. */
function spread(uid: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) h = Math.imul(h ^ uid.charCodeAt(i), 0x01000193);
  return (h >>> 0) / 2 ** 32;
}

const logTo = (o: KubeletCoreOptions, msg: string, e?: unknown): void => o.log?.(msg, e);

export class Kubelet {
  private readonly pods = new Map<string, Pod>();
  private readonly states = new Map<string, Phase>();
  /** pods whose volumes the trace has seen mounted (one VolumesMounted step per pod) */
  private readonly volumesTraced = new Set<string>();
  private readonly podInformer: Informer<Pod & { [k: string]: unknown }>;
  private readonly svcInformer: Informer<Service & { [k: string]: unknown }>;
  private readonly workers: PodWorkers;
  readonly status: StatusManager;
  readonly volumes: VolumeManager;
  readonly prober: ProberManager;
  readonly runtimeManager: KubeRuntimeManager;
  private readonly reasons = new ReasonCache();
  /** bound ServiceAccount tokens for projected volumes */
  private readonly tokens: TokenManager;
  /** shared relists and status calls for every pod worker */
  readonly runtimeCache: RuntimeStatusCache;
  private runtimeName = '';
  /** static pods from `staticPodPath` and their mirror pods */
  private readonly staticPods: StaticPodManager;
  private readonly fileSource?: FileSource;
  private filePods: Pod[] = [];
  /** process pods by UID */
  private readonly processPods: Map<string, ProcessPod>;
  /** pod syncs run so far (tests, benchmarks) */
  syncs = 0;
  private timers: TimerHandle[] = [];
  private stopped = false;

  constructor(private readonly o: KubeletCoreOptions) {
    const log = o.log ?? (() => undefined);
    this.tokens = new TokenManager(o.client, () => o.clock.now(), { log });
    this.podInformer = new Informer(o.client, R.pods, { fieldSelector: `spec.nodeName=${o.nodeName}` });
    this.svcInformer = new Informer(o.client, R.services);
    this.status = new StatusManager(
      o.client,
      (e, p) => log(`status update of ${p} failed`, e),
      (uid) => this.staticPods.statusTarget(uid),
    );
    // mirror pods are always told apart from API pods (never run; orphans deleted), static pods only come with a path
    const sp = new StaticPodManager({
      mirrors: new MirrorClient(o.client, o.nodeName),
      now: () => o.clock.now(),
      wake: (uid) => this.workers.wake(uid),
      mirrorReady: (uid) => this.status.resend(uid),
      log,
    });
    this.staticPods = sp;
    if (o.staticPodPath) {
      this.fileSource = new FileSource({
        path: o.staticPodPath,
        nodeName: o.nodeName,
        clock: o.clock,
        periodMs: o.fileCheckFrequencyMs,
        log,
        onPods: (pods) => {
          this.filePods = pods;
          this.setStaticPods();
        },
      });
    }
    this.processPods = new Map((o.processPods ?? []).map((p) => [p.pod.metadata!.uid!, p]));
    // tmpfs only where containers are host processes (a simulated one would never see it)
    this.volumes = new VolumeManager(o.kubeletDir, o.clock, undefined, o.runtime.features.hostProcesses && process.getuid?.() === 0, o.csi);
    this.prober = new ProberManager(o.runtime, o.recorder, o.clock, o.network, (uid) => this.workers.wake(uid));
    const images = new ImageManager(o.runtime, o.recorder, o.clock, (ns, n) => this.getSecret(ns, n));
    images.trace = o.trace;
    this.runtimeManager = new KubeRuntimeManager({
      runtime: o.runtime,
      recorder: o.recorder,
      clock: o.clock,
      images,
      reasons: this.reasons,
      kubeletDir: o.kubeletDir,
      dns: o.dns,
      nodeHostname: o.machine.hostname,
      memoryCapacity: value(o.machine.memory),
      onSandboxIPs: (id, ips) => this.runtimeCache.noteSandboxIPs(id, ips),
      runtimeHandler: (name) => this.lookupRuntimeHandler(name),
      trace: o.trace,
    });
    this.runtimeCache = new RuntimeStatusCache(o.runtime, () => this.runtimeName);
    this.workers = new PodWorkers(
      (uid) => this.syncPod(uid),
      o.clock,
      (uid, e) => log(`sync of pod ${uid} failed`, e),
      o.backOffMs ?? BACKOFF_MS,
    );
  }

  /**
   * The handler of RuntimeClass `name`, passed to RunPodSandbox as runtime_handler
   * (upstream runtimeclass.Manager.LookupRuntimeHandler).
   * @throws Error `runtimeclass.node.k8s.io "<name>" not found` (the lister's NotFound text) for an unknown class
   */
  private async lookupRuntimeHandler(name: string): Promise<string> {
    const rc = await this.o.client.get(RUNTIME_CLASSES, '', name).then((o) => o as unknown as RuntimeClass, notFoundAsUndefined);
    if (!rc) throw new Error(`runtimeclass.node.k8s.io ${JSON.stringify(name)} not found`);
    return rc.handler ?? '';
  }

  /** Hands every static pod (from files and processes) to the static pod manager; syncs those that came, stops those that went. */
  private setStaticPods(): void {
    const pods = [...this.filePods, ...[...this.processPods.values()].map((p) => p.pod)];
    for (const p of this.staticPods.setStaticPods(pods)) this.remove(p);
    for (const p of pods) this.upsert(p);
  }

  /** Is `pod` one of the in-process components' pods (nothing in the runtime: its log is the component's)? */
  isProcessPod(pod: Pod): boolean {
    return this.processPods.has(pod.metadata?.uid ?? '');
  }

  /** Starts watching pods; resolves once the first list is in (so adoption sees every pod). */
  async start(): Promise<void> {
    const v = await this.o.runtime.version();
    this.runtimeName = v.runtimeName;
    // static pods first: they run whether or not the API server answers
    if (this.fileSource) this.fileSource.start();
    else if (this.processPods.size) this.setStaticPods();
    const mirror = (p: Pod, deleted: boolean): boolean => this.staticPods.observeAPIPod(p, deleted);
    this.podInformer.addEventHandler({
      add: (p) => mirror(p, false) || this.upsert(p),
      update: (old, p) => {
        if (old.metadata?.uid !== p.metadata?.uid && !mirror(old, true)) this.remove(old);
        if (!mirror(p, false)) this.upsert(p);
      },
      delete: (p) => mirror(p, true) || this.remove(p),
    });
    this.svcInformer.start();
    this.podInformer.start();
    await Promise.all([this.podInformer.waitForSync(), this.svcInformer.waitForSync()]);
    await this.relist().catch((e: unknown) => logTo(this.o, 'runtime relist failed', e));
    this.every(this.o.relistMs ?? 1000, () => this.relist());
    this.every(this.o.housekeepingMs ?? 2000, () => this.housekeeping());
    await this.housekeeping();
  }

  private every(ms: number, fn: () => unknown): void {
    const loop = (): void => {
      if (this.stopped) return;
      const h = this.o.clock.setTimeout(() => {
        this.timers = this.timers.filter((t) => t !== h);
        void Promise.resolve()
          .then(fn)
          .catch((e: unknown) => this.o.log?.('periodic task failed', e))
          .finally(loop);
      }, ms);
      this.timers.push(h);
    };
    loop();
  }

  /** PLEG: wakes the pods whose sandboxes or containers changed since the last relist. */
  private async relist(): Promise<void> {
    for (const uid of await this.runtimeCache.pleg()) if (this.pods.has(uid)) this.workers.wake(uid);
  }

  private upsert(p: Pod): void {
    const uid = p.metadata?.uid;
    if (!uid) return;
    const old = this.pods.get(uid);
    this.pods.set(uid, p);
    if (!old) traceStep(this.o.trace, p, 'KubeletWatchReceived');
    // Status-only changes (mostly our own writes) are reconciled by the next resync, as upstream.
    if (old && isDeepStrictEqual(old.spec, p.spec) && sameMeta(old, p)) return;
    this.workers.wake(uid);
  }

  private remove(p: Pod): void {
    const uid = p.metadata?.uid;
    if (!uid) return;
    this.pods.delete(uid);
    this.workers.wake(uid);
  }

  /** Pods the kubelet currently knows (tests, debugging). */
  knownPods(): Pod[] {
    return [...this.pods.values()];
  }

  /** Waits until no pod worker is running (tests). */
  idle(): Promise<void> {
    return this.workers.idle();
  }

  /** When pod `uid`'s next timed sync is due (ms since the epoch; undefined: none pending). */
  nextSync(uid: string): number | undefined {
    return this.workers.nextSync(uid);
  }

  /** Wakes every pod now (tests, and after runtime events). */
  resyncAll(): void {
    for (const uid of this.pods.keys()) this.workers.wake(uid);
  }

  private getConfigMap(ns: string, name: string): Promise<ConfigMap | undefined> {
    return this.o.client.get(R.configmaps, ns, name).then((o) => o as ConfigMap, notFoundAsUndefined);
  }

  private getSecret(ns: string, name: string): Promise<Secret | undefined> {
    return this.o.client.get(R.secrets, ns, name).then((o) => o as Secret, notFoundAsUndefined);
  }

  private alloc(): NodeAllocatable {
    return { cpu: this.o.machine.cpu, memory: this.o.machine.memory, 'ephemeral-storage': this.o.machine.ephemeralStorage };
  }

  private runtimeValues(podIPs: string[]): RuntimeFieldValues {
    return { nodeName: this.o.nodeName, hostIPs: [this.o.machine.hostIP], podIPs };
  }

  private envDeps(pod: Pod, podIPs: string[]): EnvDeps {
    return {
      getConfigMap: (ns, n) => this.getConfigMap(ns, n),
      getSecret: (ns, n) => this.getSecret(ns, n),
      serviceEnv: serviceEnvMap(this.svcInformer.list() as Service[], pod.metadata?.namespace ?? '', pod.spec?.enableServiceLinks !== false),
      runtimeValues: this.runtimeValues(podIPs),
      alloc: this.alloc(),
    };
  }

  private podStatus(pod: Pod): Promise<RuntimePodStatus> {
    const m = pod.metadata ?? {};
    return this.runtimeCache.podStatus(m.uid ?? '', m.name ?? '', m.namespace ?? '');
  }

  private apiStatus(pod: Pod, ps: RuntimePodStatus, terminal = false): ReturnType<typeof generateAPIPodStatus> {
    const withStatus: Pod = { ...pod, status: this.status.get(pod.metadata?.uid ?? '') ?? pod.status };
    return generateAPIPodStatus(withStatus, ps, { reasons: this.reasons, probes: this.prober, hostIPs: [this.o.machine.hostIP], now: new Date(this.o.clock.now()) }, terminal);
  }

  /**
   * The pod worker's body: one sync of one pod. Returns when the pod wants its next
   * sync (ms since the epoch): at the end of a back-off it met, 10 s after a failure,
   * else after the resync period; undefined once the pod is gone.
   */
  private async syncPod(uid: string): Promise<number | undefined> {
    if (this.stopped) return undefined;
    this.syncs++;
    const pod = this.pods.get(uid);
    if (!pod) {
      await this.cleanupOrphan(uid);
      return undefined;
    }
    const r = await this.syncKnownPod(uid, pod);
    const now = this.o.clock.now();
    const failed = r.failed || this.status.needsRetry(uid);
    const next = now + (failed ? (this.o.backOffMs ?? BACKOFF_MS) : (this.o.resyncMs ?? RESYNC_MS) * (1 + RESYNC_JITTER * spread(uid)));
    // never sooner than MIN_REQUEUE_MS: a back-off end already past must not spin the worker
    return Math.max(now + MIN_REQUEUE_MS, Math.min(next, r.retryAt));
  }

  private async syncKnownPod(uid: string, pod: Pod): Promise<{ failed: boolean; retryAt: number }> {
    const proc = this.processPods.get(uid);
    if (proc) return this.syncProcessPod(pod, proc);
    const ok = { failed: false, retryAt: Infinity };
    // a pod new to this node starts at once from an empty runtime status (no relist to wait for)
    const m = pod.metadata ?? {};
    let ps = (!m.deletionTimestamp && this.runtimeCache.newPodStatus(uid, m.name ?? '', m.namespace ?? '')) || (await this.podStatus(pod));
    if (pod.metadata?.deletionTimestamp) {
      await this.terminate(pod, ps, true);
      return ok;
    }
    if (this.states.get(uid) === 'terminated') return ok;
    // a static pod whose file replaced another of its name waits until that one has stopped
    if (this.staticPods.isStatic(uid) && !this.staticPods.allowStart(pod)) return { failed: false, retryAt: this.o.clock.now() + (this.o.backOffMs ?? BACKOFF_MS) };
    // a static pod's mirror pod, made right before anything else (upstream SyncPod)
    const mirrorAt = this.staticPods.isStatic(uid)
      ? await this.staticPods
          .syncMirror(pod)
          .catch((e: unknown) => (logTo(this.o, `mirror pod of ${m.namespace}/${m.name} not synced`, e), this.o.clock.now() + (this.o.backOffMs ?? BACKOFF_MS)))
      : Infinity;
    this.prober.syncPod(pod, ps);
    let status = this.apiStatus(pod, ps);
    if (status.phase === 'Succeeded' || status.phase === 'Failed') {
      await this.terminate(pod, ps, false);
      return ok;
    }
    void this.status.setPodStatus(pod, status);

    let volumes: Map<string, string>;
    try {
      volumes = await this.volumes.mountPod(
        pod,
        {
          getConfigMap: (ns, n) => this.getConfigMap(ns, n),
          getSecret: (ns, n) => this.getSecret(ns, n),
          getServiceAccountToken: (r) => this.tokens.getToken(r),
          runtimeValues: this.runtimeValues(ps.ips),
          alloc: this.alloc(),
        },
        (e) => {
          const msg = e.eventMessage ?? Msg.mountFailed(e.volume, e.message);
          this.o.recorder.event(podRef(pod), 'Warning', e.reason ?? Reason.FailedMountVolume, msg);
          traceStep(this.o.trace, pod, 'FailedMount', { detail: e.volume, message: msg });
        },
      );
      if (!this.volumesTraced.has(uid)) {
        this.volumesTraced.add(uid);
        traceStep(this.o.trace, pod, 'VolumesMounted', { detail: `${volumes.size} volume(s)` });
      }
    } catch {
      // FailedMount recorded; the mount is retried when its back-off ends
      return { failed: true, retryAt: this.volumes.retryAt(uid) ?? Infinity };
    }
    let cgroupParent: string | undefined;
    if (this.o.cgroups) {
      try {
        cgroupParent = await this.o.cgroups.ensure(pod);
      } catch (e) {
        this.o.recorder.event(podRef(pod), 'Warning', Reason.FailedToCreatePodContainer, Msg.podCgroupFailed((e as Error).message));
        return { failed: true, retryAt: Infinity };
      }
    }
    const actions = computePodActions(pod, ps, this.prober);
    const podDir = this.volumes.podDir(uid);
    const res = await this.runtimeManager.syncPod(pod, ps, actions, {
      volumes,
      volumeGroups: this.volumes.extraSupplementalGroups(pod),
      podDir,
      envDeps: (ips) => this.envDeps(pod, ips),
      cgroupParent,
    });
    const latest = this.pods.get(uid) ?? pod;
    if (res.changed) {
      // what this sync did, read back at once (no wait for the shared relist), so the status goes out now
      const lm = latest.metadata ?? {};
      ps = await this.runtimeCache.podStatusNow(uid, lm.name ?? '', lm.namespace ?? '', res.started);
      this.prober.syncPod(latest, ps);
    }
    status = this.apiStatus(latest, ps);
    if (status.phase === 'Succeeded' || status.phase === 'Failed') {
      await this.terminate(latest, ps, false);
      return ok;
    }
    if (res.changed) traceStep(this.o.trace, latest, 'StatusWrite', { detail: status.phase });
    await this.status.setPodStatus(latest, status);
    await this.runtimeManager.gcPod(ps);
    return { failed: res.failed, retryAt: Math.min(res.retryAt, mirrorAt) };
  }

  /** A process pod's sync: its mirror pod, then its status from the component's health check; again after the probe period. */
  private async syncProcessPod(pod: Pod, p: ProcessPod): Promise<{ failed: boolean; retryAt: number }> {
    const uid = pod.metadata!.uid!;
    const backOff = () => this.o.clock.now() + (this.o.backOffMs ?? BACKOFF_MS);
    const mirrorAt = await this.staticPods.syncMirror(pod).catch((e: unknown) => (logTo(this.o, `mirror pod of ${pod.metadata?.name} not synced`, e), backOff()));
    const healthy = await Promise.resolve()
      .then(() => p.component.healthy())
      .catch(() => false);
    await this.status.setPodStatus(pod, processPodStatus(pod, p.component, healthy, this.o.machine.hostIP, this.status.get(uid)));
    return { failed: false, retryAt: Math.min(mirrorAt, this.o.clock.now() + PROCESS_PROBE_MS) };
  }

  /**
   * Stops a pod (upstream SyncTerminatingPod → SyncTerminatedPod): Killing events and
   * StopContainer with the grace period, StopPodSandbox, final status with a terminal
   * phase, the pod cgroup removed; when deleting also RemovePodSandbox, pod
   * directories, and the API delete (grace 0, uid precondition).
   */
  private async terminate(pod: Pod, ps: RuntimePodStatus, deleting: boolean): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    if (this.states.get(uid) !== 'terminated') {
      // liveness/startup probes stop before the kill, so they cannot restart what is being stopped
      this.prober.removePod(uid);
      await this.runtimeManager.killPod(pod, ps, deleting ? this.deletionGrace(pod) : undefined);
      const after = await this.podStatus(pod);
      await this.status.setPodStatus(pod, this.apiStatus(pod, after, true));
      this.states.set(uid, 'terminated');
      ps = after;
    }
    this.o.cgroups?.remove(uid);
    if (!deleting) return;
    await this.runtimeManager.removePod(ps);
    await this.volumes.cleanupPod(uid);
    this.o.cgroups?.remove(uid);
    removePodLogs(this.o.kubeletDir, uid, pod);
    await this.status.deletePod(pod);
    this.runtimeManager.forgetPod(uid);
    this.runtimeCache.forget(uid);
    this.tokens.deletePod(uid);
  }

  /** The grace period of a pod being deleted (upstream pod workers: the deletion grace, at least 1 s). */
  private deletionGrace(pod: Pod): number {
    const g = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    return Math.max(1, g);
  }

  /** A pod that is gone from the API (or a static pod whose file went): stop and remove whatever the runtime still has. */
  private async cleanupOrphan(uid: string): Promise<void> {
    const ps = await this.runtimeCache.podStatus(uid, '', '');
    // a static pod is stopped as itself (its grace period and preStop hooks, upstream SyncPodKill);
    // for any other pod what the runtime recorded (grace period, preStop) stands in for the lost spec
    const removed = this.staticPods.removedPod(uid);
    const orphan: Pod = removed ?? { metadata: { uid, name: ps.name, namespace: ps.namespace }, spec: { containers: [] } };
    await this.runtimeManager.killPod(orphan, ps, removed ? this.deletionGrace(removed) : 2);
    await this.runtimeManager.removePod(ps);
    await this.volumes.cleanupPod(uid);
    this.o.cgroups?.remove(uid);
    removePodLogs(this.o.kubeletDir, uid);
    this.prober.removePod(uid);
    this.runtimeManager.forgetPod(uid);
    this.runtimeCache.forget(uid);
    this.status.forget(uid);
    this.states.delete(uid);
    this.volumesTraced.delete(uid);
    const waiting = this.staticPods.stopped(uid);
    if (waiting) this.workers.wake(waiting);
  }

  /** Finds runtime pods and pod directories whose pod is not bound here any more. */
  private async housekeeping(): Promise<void> {
    if (!this.podInformer.hasSynced()) return;
    const orphans = new Set<string>();
    // what the last relist saw (at most one relist period old)
    for (const uid of this.runtimeCache.podUIDs()) if (!this.pods.has(uid)) orphans.add(uid);
    for (const uid of this.volumes.podDirsOnDisk()) if (!this.pods.has(uid)) orphans.add(uid);
    for (const uid of this.o.cgroups?.podsOnDisk() ?? []) if (!this.pods.has(uid)) orphans.add(uid);
    for (const uid of orphans) if (!this.workers.busy(uid)) this.workers.wake(uid);
    this.staticPods.cleanupOrphanedMirrors();
  }

  /** Stops watching and syncing; containers keep running (a new kubelet adopts them). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.fileSource?.stop();
    for (const t of this.timers) this.o.clock.clearTimeout(t);
    this.timers = [];
    this.podInformer.stop();
    this.svcInformer.stop();
    await this.workers.close();
    for (const uid of this.pods.keys()) this.prober.removePod(uid);
  }

  /** The directory layout root (`<dataDir>/kubelet`). */
  get rootDir(): string {
    return path.resolve(this.o.kubeletDir);
  }
}

function notFoundAsUndefined(e: unknown): undefined {
  if (isApiNotFound(e)) return undefined;
  throw e;
}

function sameMeta(a: Pod, b: Pod): boolean {
  const strip = (p: Pod): unknown => {
    const { resourceVersion: _rv, managedFields: _mf, ...rest } = p.metadata ?? {};
    return rest;
  };
  return isDeepStrictEqual(strip(a), strip(b));
}
