/**
 * Executes a pod's actions against the CRI runtime (upstream kubeGenericRuntimeManager
 * SyncPod / startContainer / killPodWithSyncResult): sandbox (re)creation, container
 * start with CrashLoopBackOff (10 s doubling to 300 s), image pulls, config errors,
 * Created/Started/Killing/BackOff events, and the reason cache behind waiting states.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_manager.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_container.go
 */
import type { PodTraceSink } from '../../trace/recorder.js';
import { imageFailureStep, traceStep } from '../trace.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Container, EphemeralContainer, Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerConfig, Image, PodSandboxConfig, Runtime } from '../../cri/api.js';
import type { EventRecorder } from '../../client/events.js';
import { formatDuration } from '../../apimachinery/duration.js';
import { sleep, type Clock } from '../../util/clock.js';
import { containerFieldPath, formatPod, latestStatus, podRef, type RuntimePodStatus } from '../container/runtime.js';
import { ContainerConfigError, makeEnvironmentVariables, type EnvDeps } from '../env/env.js';
import { Msg, Reason, WaitingReason } from '../events.js';
import type { ImageManager } from '../images/image-manager.js';
import { runLifecycleHandler } from '../lifecycle/handlers.js';
import { Backoff } from '../util/backoff.js';
import { gcPodContainers } from './container-gc.js';
import { generateContainerConfig, writeEtcHosts } from './container-config.js';
import { criErrorMessage, criErrorString, isNotFound } from './errors.js';
import type { KillReason, PodActions } from './pod-actions.js';
import type { ReasonCache } from './reason-cache.js';
import { generateSandboxConfig, type DNSSettings } from './sandbox-config.js';
import { verifyRunAsNonRoot, type ImageUser } from './security-context.js';

export { ReasonCache } from './reason-cache.js';

interface RuntimeManagerDeps {
  runtime: Runtime;
  recorder: EventRecorder;
  clock: Clock;
  images: ImageManager;
  reasons: ReasonCache;
  kubeletDir: string;
  dns: DNSSettings;
  nodeHostname: string;
  /** the node's memory in bytes (OOM score adjustment of Burstable containers) */
  memoryCapacity: number;
  /** told the IPs read with PodSandboxStatus right after RunPodSandbox (the kubelet's status cache keeps them) */
  onSandboxIPs?: (sandboxId: string, ips: string[]) => void;
  /**
   * The CRI runtime handler of a RuntimeClass (upstream runtimeClassManager.LookupRuntimeHandler);
   * rejects when the class does not exist. Without it the class name is passed through.
   */
  runtimeHandler?: (runtimeClassName: string) => Promise<string>;
  /** the pod creation trace (src/trace) */
  trace?: PodTraceSink;
}

/** Per-sync inputs the kubelet provides. */
interface SyncContext {
  /** volume name → host path */
  volumes: Map<string, string>;
  /** supplemental groups the pod's volumes add (`pv.beta.kubernetes.io/gid`) */
  volumeGroups?: readonly number[];
  podDir: string;
  /** environment dependencies once the pod IPs are known */
  envDeps(podIPs: string[]): EnvDeps;
  /** the pod's cgroup (sandbox cgroup_parent) when the kubelet manages pod cgroups */
  cgroupParent?: string;
}

const MIN_GRACE_S = 2;

/**
 * What one {@link KubeRuntimeManager.syncPod} did (upstream PodSyncResult, reduced to
 * what the pod worker needs to pick its next wake-up).
 */
interface SyncResult {
  /** something was started, stopped or created (the runtime state changed) */
  changed: boolean;
  /** a step failed or was skipped for a back-off (upstream: the sync returned an error) */
  failed: boolean;
  /** earliest end of a crash-loop or image-pull back-off met here, ms since the epoch (Infinity: none) */
  retryAt: number;
  /** IDs of the containers this sync started (their status is read right after) */
  started: string[];
}

export class KubeRuntimeManager {
  readonly crashBackoff: Backoff;

  constructor(private readonly d: RuntimeManagerDeps) {
    this.crashBackoff = new Backoff(d.clock, 10_000, 300_000);
  }

  private event(pod: Pod, c: Container | undefined, type: 'Normal' | 'Warning', reason: string, msg: string): void {
    if (!pod.metadata?.name) return; // an orphan rebuilt from CRI labels: no object to record against
    this.d.recorder.event(podRef(pod), type, reason, msg, c ? containerFieldPath(pod, c.name) : undefined);
  }

  /** Applies `a` to the runtime; reports what changed, what failed and when a back-off ends. */
  async syncPod(pod: Pod, ps: RuntimePodStatus, a: PodActions, ctx: SyncContext): Promise<SyncResult> {
    const r: SyncResult = { changed: false, failed: false, retryAt: Infinity, started: [] };
    if (a.killPod) {
      r.changed = await this.killPod(pod, ps);
      if (!a.createSandbox) return r;
    } else {
      await Promise.all(a.containersToKill.map((k) => this.killContainer(pod, k.container, k.status.id, k.message, k.reason ?? '')));
      r.changed = a.containersToKill.length > 0;
    }
    let sandboxId = a.sandboxId;
    let config: PodSandboxConfig;
    let podIPs = ps.ips;
    // image checks of the containers started right after a new sandbox run while it is created
    const early = new Map<Container, Promise<Image | undefined>>();
    if (a.createSandbox) {
      for (const c of [...a.initToStart, ...a.containersToStart]) early.set(c, this.d.images.prefetchStatus(c));
      if (a.sandboxId) this.event(pod, undefined, 'Normal', Reason.SandboxChanged, Msg.sandboxChanged);
      config = generateSandboxConfig(pod, a.attempt, this.d.kubeletDir, this.d.dns, ctx.cgroupParent);
      fs.mkdirSync(config.logDirectory, { recursive: true, mode: 0o755 }); // sync: see writeEtcHosts
      try {
        const rcName = pod.spec?.runtimeClassName;
        const handler = rcName && this.d.runtimeHandler ? await this.d.runtimeHandler(rcName) : (rcName ?? undefined);
        sandboxId = await this.d.runtime.runPodSandbox(config, handler || undefined);
        traceStep(this.d.trace, pod, 'RunPodSandbox');
      } catch (e) {
        this.event(pod, undefined, 'Warning', Reason.FailedCreatePodSandBox, Msg.createSandboxFailed(criErrorString(e)));
        traceStep(this.d.trace, pod, 'FailedCreatePodSandBox', { message: Msg.createSandboxFailed(criErrorString(e)) });
        r.failed = true;
        return r;
      }
      r.changed = true;
      try {
        const st = await this.d.runtime.podSandboxStatus(sandboxId);
        podIPs = st.network?.ip ? [st.network.ip, ...st.network.additionalIps.map((x) => x.ip)] : [];
        if (st.state === 'SANDBOX_READY') this.d.onSandboxIPs?.(sandboxId, podIPs);
        traceStep(this.d.trace, pod, 'CNIAdd', { detail: podIPs.join(',') || undefined });
      } catch (e) {
        this.event(pod, undefined, 'Warning', Reason.FailedStatusPodSandBox, `Unable to get pod sandbox status: ${criErrorString(e)}`);
        r.failed = true;
        return r;
      }
    } else {
      // nothing to start (the steady state of every resync): no config, hosts file or env to prepare
      if (!a.initToStart.length && !a.containersToStart.length && !a.ephemeralToStart.length) return r;
      config = generateSandboxConfig(pod, ps.sandboxes[0]?.attempt ?? 0, this.d.kubeletDir, this.d.dns, ctx.cgroupParent);
    }
    const etcHosts = pod.spec?.hostNetwork ? undefined : writeEtcHosts(ctx.podDir, podIPs, config.hostname);
    const env = ctx.envDeps(podIPs);
    // upstream starts ephemeral containers first: a debugger must not wait for init containers
    for (const c of a.ephemeralToStart) {
      const ok = await this.startContainer(pod, c, ps, sandboxId, config, ctx, env, etcHosts, r, true);
      r.changed = r.changed || ok !== 'skipped';
    }
    for (const c of a.initToStart) {
      const ok = await this.startContainer(pod, c, ps, sandboxId, config, ctx, env, etcHosts, r, false, early.get(c));
      r.changed = r.changed || ok !== 'skipped';
      if (ok !== 'started' && c.restartPolicy !== 'Always') return r;
    }
    for (const c of a.containersToStart) {
      const ok = await this.startContainer(pod, c, ps, sandboxId, config, ctx, env, etcHosts, r, false, early.get(c));
      r.changed = r.changed || ok !== 'skipped';
    }
    return r;
  }

  /**
   * Upstream doBackOff: the newest *exited* instance of the container (not necessarily
   * the latest one: a container killed by a failed liveness probe in this very sync is
   * still listed as running, and the one before it counts) sets the time the back-off
   * runs from. Within the back-off: CrashLoopBackOff, a BackOff event, and `r` learns
   * when it ends; past it: the back-off grows (10 s doubling to 5 min) and the start goes on.
   */
  private inBackOff(pod: Pod, c: Container, ps: RuntimePodStatus, r: SyncResult): boolean {
    const st = ps.containers.find((x) => x.name === c.name && x.state === 'exited');
    if (!st) return false;
    const key = `${pod.metadata?.uid}_${c.name}`;
    if (this.crashBackoff.isInBackOffSince(key, st.finishedAt)) {
      const backoff = this.crashBackoff.get(key);
      this.event(pod, c, 'Warning', Reason.BackOffStartContainer, Msg.backOffRestart(c.name, formatPod(pod)));
      this.d.reasons.set(pod.metadata!.uid!, c.name, WaitingReason.CrashLoopBackOff, Msg.crashLoop(formatDuration(backoff), c.name, formatPod(pod)));
      traceStep(this.d.trace, pod, 'CrashLoopBackOff', { detail: c.name, message: Msg.crashLoop(formatDuration(backoff), c.name, formatPod(pod)) });
      r.failed = true;
      r.retryAt = Math.min(r.retryAt, st.finishedAt + backoff);
      return true;
    }
    this.crashBackoff.next(key, st.finishedAt);
    return false;
  }

  private async startContainer(
    pod: Pod,
    c: Container,
    ps: RuntimePodStatus,
    sandboxId: string,
    sandboxConfig: PodSandboxConfig,
    ctx: SyncContext,
    env: EnvDeps,
    etcHosts: string | undefined,
    r: SyncResult,
    ephemeral = false,
    earlyImage?: Promise<Image | undefined>,
  ): Promise<'started' | 'failed' | 'skipped'> {
    const uid = pod.metadata!.uid!;
    if (!ephemeral && this.inBackOff(pod, c, ps, r)) return 'skipped';
    const fail = (reason: string, message: string, event = true): 'failed' => {
      r.failed = true;
      if (event)
        this.event(
          pod,
          c,
          'Warning',
          Reason.FailedToCreateContainer,
          Msg.error(
            reason === WaitingReason.CreateContainerConfigError || reason === WaitingReason.CreateContainerError || reason === WaitingReason.RunContainerError ? message : reason,
          ),
        );
      this.d.reasons.set(uid, c.name, reason, message);
      return 'failed';
    };
    const img = await this.d.images.ensureImageExists(pod, c, sandboxConfig, earlyImage);
    if (!img.ok) traceStep(this.d.trace, pod, imageFailureStep(img.reason), { detail: c.image, message: `${img.reason}: ${img.message}` });
    if (!img.ok) {
      if (img.retryAt !== undefined) r.retryAt = Math.min(r.retryAt, img.retryAt);
      return fail(img.reason, img.message);
    }
    // kubectl debug --target: the debugger joins the target container's PID namespace
    let targetId = '';
    const targetName = ephemeral ? (c as EphemeralContainer).targetContainerName : undefined;
    if (targetName) {
      const target = latestStatus(ps, targetName);
      if (!target) return fail(WaitingReason.CreateContainerConfigError, `unable to find target container ${targetName}`);
      targetId = target.id;
    }
    const prev = latestStatus(ps, c.name);
    const logDir = path.join(sandboxConfig.logDirectory, c.name);
    const restartCount = prev ? prev.restartCount + 1 : restartCountFromLogDir(logDir);
    let containerId: string;
    try {
      const vars = await makeEnvironmentVariables(pod, c, env);
      const imageUser = img.image ? userOf(img.image) : await this.imageUser(img.imageRef);
      verifyRunAsNonRoot(pod, c, imageUser);
      fs.mkdirSync(logDir, { recursive: true, mode: 0o755 });
      const cfg = await generateContainerConfig({
        pod,
        container: c,
        restartCount,
        imageRef: img.imageRef,
        env: vars,
        volumes: ctx.volumes,
        podDir: ctx.podDir,
        etcHostsPath: etcHosts,
        imageUser,
        memoryCapacity: this.d.memoryCapacity,
        seccompRoot: path.join(this.d.kubeletDir, 'seccomp'),
        volumeGroups: ctx.volumeGroups,
      });
      if (targetId) withTargetPidNamespace(cfg, targetId);
      try {
        containerId = await this.d.runtime.createContainer(sandboxId, cfg, sandboxConfig);
        traceStep(this.d.trace, pod, 'CreateContainer', { detail: c.name });
      } catch (e) {
        traceStep(this.d.trace, pod, 'CreateContainerError', { detail: c.name, message: criErrorMessage(e) });
        return fail(WaitingReason.CreateContainerError, criErrorMessage(e));
      }
    } catch (e) {
      if (e instanceof ContainerConfigError) return fail(WaitingReason.CreateContainerConfigError, e.message);
      throw e;
    }
    this.event(pod, c, 'Normal', Reason.CreatedContainer, Msg.created(c.name));
    try {
      await this.d.runtime.startContainer(containerId);
      traceStep(this.d.trace, pod, 'StartContainer', { detail: c.name });
    } catch (e) {
      return fail(WaitingReason.RunContainerError, criErrorMessage(e));
    }
    r.started.push(containerId);
    this.event(pod, c, 'Normal', Reason.StartedContainer, Msg.started(c.name));
    const postStart = c.lifecycle?.postStart;
    if (postStart) {
      const msg = await runLifecycleHandler(this.hooks(), pod, c, containerId, postStart);
      if (msg !== undefined) {
        this.event(pod, c, 'Warning', Reason.FailedPostStartHook, Msg.postStartHookFailed);
        await this.killContainer(pod, c, containerId, 'FailedPostStartHook', 'postStartHook').catch(() => undefined);
        this.d.reasons.set(uid, c.name, WaitingReason.PostStartHookError, msg);
        r.failed = true;
        return 'failed';
      }
    }
    this.d.reasons.delete(uid, c.name);
    return 'started';
  }

  /** The user an image runs as (upstream getImageUser), asking the runtime. */
  private async imageUser(imageRef: string): Promise<ImageUser> {
    return userOf(await this.d.runtime.imageStatus({ image: imageRef }).catch(() => undefined));
  }

  private hooks(): Parameters<typeof runLifecycleHandler>[0] {
    return {
      runtime: this.d.runtime,
      recorder: this.d.recorder,
      clock: this.d.clock,
      podIPs: async (pod) => {
        const sbs = await this.d.runtime.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': pod.metadata?.uid ?? '' }, state: 'SANDBOX_READY' });
        for (const sb of sbs) {
          const st = await this.d.runtime.podSandboxStatus(sb.id);
          if (st.network?.ip) return [st.network.ip, ...st.network.additionalIps.map((x) => x.ip)];
        }
        return [];
      },
    };
  }

  /**
   * Grace period for stopping a container, in seconds (upstream setTerminationGracePeriod):
   * the deletion grace period once the pod is being deleted, else a failed probe's own
   * terminationGracePeriodSeconds, else the pod's (default 30).
   */
  gracePeriod(pod: Pod, c?: Container, reason: KillReason = ''): number {
    const del = pod.metadata?.deletionGracePeriodSeconds;
    if (del !== undefined && pod.metadata?.deletionTimestamp) return del;
    const probe = reason === 'liveness' ? c?.livenessProbe : reason === 'startup' ? c?.startupProbe : undefined;
    if (probe?.terminationGracePeriodSeconds !== undefined) return probe.terminationGracePeriodSeconds;
    return pod.spec?.terminationGracePeriodSeconds ?? 30;
  }

  /**
   * Upstream killContainer: `Killing` event, the preStop hook (bounded by the grace
   * period, whose elapsed whole seconds it consumes), then StopContainer with what is
   * left (at least 2 s): the runtime sends SIGTERM, and SIGKILL when that runs out.
   * A container already gone (NotFound) counts as stopped.
   */
  async killContainer(pod: Pod, c: Container | undefined, id: string, message: string, reason: KillReason = '', graceOverride?: number): Promise<void> {
    const name = c?.name ?? '';
    let grace = graceOverride ?? this.gracePeriod(pod, c, reason);
    this.event(pod, c, 'Normal', Reason.KillingContainer, message || Msg.stopping(name));
    const preStop = c?.lifecycle?.preStop;
    if (preStop && grace > 0) {
      const start = this.d.clock.now();
      const hook = runLifecycleHandler(this.hooks(), pod, c!, id, preStop).then((msg) => {
        if (msg !== undefined) this.event(pod, c, 'Warning', Reason.FailedPreStopHook, Msg.preStopHookFailed);
      });
      await Promise.race([hook, sleep(this.d.clock, grace * 1000)]);
      grace -= Math.floor((this.d.clock.now() - start) / 1000);
    }
    grace = Math.max(MIN_GRACE_S, grace);
    try {
      await this.d.runtime.stopContainer(id, grace);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /**
   * Stops every running container (regular ones in parallel first, then sidecars), each
   * with its preStop hook and the grace period, then every ready sandbox. Returns
   * whether anything was stopped.
   */
  async killPod(pod: Pod, ps: RuntimePodStatus, graceOverride?: number): Promise<boolean> {
    const spec = pod.spec;
    const byName = new Map<string, Container>(
      [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...((spec?.ephemeralContainers ?? []) as Container[])].map((c) => [c.name, c]),
    );
    const running = ps.containers.filter((s) => s.state === 'running' || s.state === 'created');
    const isSidecar = (n: string): boolean => !!spec?.initContainers?.some((c) => c.name === n);
    const stop = (list: typeof running): Promise<void[]> =>
      Promise.all(
        list.map(async (s) => {
          if (s.state === 'created') {
            await this.d.runtime.stopContainer(s.id, 0).catch((e: unknown) => {
              if (!isNotFound(e)) throw e;
            });
            return;
          }
          await this.killContainer(pod, byName.get(s.name) ?? this.restoreSpec(s), s.id, '', '', graceOverride);
        }),
      );
    await stop(running.filter((s) => !isSidecar(s.name)));
    await stop(running.filter((s) => isSidecar(s.name)));
    let changed = running.length > 0;
    for (const sb of ps.sandboxes) {
      if (!sb.ready) continue;
      await this.d.runtime.stopPodSandbox(sb.id);
      changed = true;
    }
    return changed;
  }

  /** What the runtime recorded of a container whose spec is gone (upstream restoreSpecsFromContainerLabels). */
  private restoreSpec(s: RuntimePodStatus['containers'][number]): Container {
    return { name: s.name, ...(s.preStop ? { lifecycle: { preStop: s.preStop } } : {}) };
  }

  /** Removes every container and sandbox of the pod (after killPod). */
  async removePod(ps: RuntimePodStatus): Promise<void> {
    for (const c of ps.containers) await this.d.runtime.removeContainer(c.id).catch(() => undefined);
    for (const sb of ps.sandboxes) {
      await this.d.runtime.stopPodSandbox(sb.id).catch(() => undefined);
      await this.d.runtime.removePodSandbox(sb.id);
    }
  }

  /** Container garbage collection for one pod: see {@link gcPodContainers}. Returns how many were removed. */
  gcPod(ps: RuntimePodStatus): Promise<number> {
    return gcPodContainers(this.d.runtime, ps);
  }

  forgetPod(uid: string): void {
    this.crashBackoff.forgetPrefix(`${uid}_`);
    this.d.images.backoff.forgetPrefix(`${uid}_`);
    this.d.reasons.forgetPod(uid);
  }
}

/** The user an image runs as (upstream getImageUser): its uid, else its user name, else root. */
function userOf(st: Image | undefined): ImageUser {
  if (st?.uid !== undefined) return { uid: st.uid };
  if (st?.username) return { username: st.username };
  return { uid: 0 };
}

/**
 * Upstream calcRestartCountByLogDir: when the runtime lost a container's history (e.g.
 * after a node reboot), continue after the highest `<n>.log` in its log directory
 * instead of overwriting 0.log.
 */
export function restartCountFromLogDir(dir: string): number {
  let n = 0;
  let files: string[];
  try {
    files = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const f of files) {
    const m = /^(\d+)\.log(\..*)?$/.exec(f);
    if (m) n = Math.max(n, Number(m[1]) + 1);
  }
  return n;
}

/**
 * CRI NamespaceOption for an ephemeral container with a target (upstream namespacesForPod
 * with a target ID): `pid: TARGET` plus `target_id`, the target's runtime container ID.
 * src/cri/api.ts does not model TARGET / targetId yet, so this widens the object in
 * place; the simulated runtime ignores it.
 *
 * @see https://github.com/kubernetes/cri-api/blob/v0.32.0/pkg/apis/runtime/v1/api.proto (NamespaceOption)
 */
export function withTargetPidNamespace(cfg: ContainerConfig, targetId: string): void {
  const sc = (cfg.linux ??= {}).securityContext ?? (cfg.linux.securityContext = {});
  sc.namespaceOptions = { ...sc.namespaceOptions, pid: 'TARGET', targetId };
}
