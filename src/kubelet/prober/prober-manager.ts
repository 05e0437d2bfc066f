/**
 * Probe workers, one per (pod, container, probe kind), on the injected clock: the
 * first probe after initialDelaySeconds, then every periodSeconds; liveness and
 * readiness wait for the startup probe; results flip after successThreshold /
 * failureThreshold consecutive outcomes. Initial results as upstream: readiness
 * Failure, liveness Success, startup Unknown. A failed liveness/startup result is held
 * until the container is replaced. Failed attempts record `Unhealthy` events
 * (`Liveness probe failed: <output>`); a probe that could not run at all records
 * `… probe errored: …` and does not count either way.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/prober/worker.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/prober/prober_manager.go
 */
import type { Container, Pod, Probe } from 'kubernetes-types/core/v1.js';
import type { Runtime } from '../../cri/api.js';
import type { EventRecorder } from '../../client/events.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { containerFieldPath, podRef, type RuntimePodStatus } from '../container/runtime.js';
import { Msg, Reason } from '../events.js';
import type { ProbeVerdicts } from '../kuberuntime/pod-actions.js';
import type { ProbeKind, ProbeLookup } from '../status/pod-status.js';
import { runProbe, type NetworkProber } from './probe.js';

type Result = 'success' | 'failure' | 'unknown';
const KIND_NAME: Record<ProbeKind, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

interface Worker {
  pod: Pod;
  container: Container;
  kind: ProbeKind;
  probe: Probe;
  containerID: string;
  rawId: string;
  startedAt: number;
  running: boolean;
  podIP: string;
  result: Result;
  run: number;
  lastOutcome?: Result;
  onHold: boolean;
  timer?: TimerHandle;
  busy: boolean;
  stopped: boolean;
}

export class ProberManager implements ProbeLookup, ProbeVerdicts {
  private readonly workers = new Map<string, Worker>();

  constructor(
    private readonly runtime: Runtime,
    private readonly recorder: EventRecorder,
    private readonly clock: Clock,
    private readonly net: NetworkProber,
    private readonly onChange: (podUID: string) => void,
  ) {}

  private key(uid: string, name: string, kind: ProbeKind): string {
    return `${uid}/${name}/${kind}`;
  }

  /** Creates/updates workers for `pod` and tells them the current containers (call on every sync). */
  syncPod(pod: Pod, ps: RuntimePodStatus): void {
    const uid = pod.metadata?.uid ?? '';
    const containers = [...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...(pod.spec?.containers ?? [])];
    for (const c of containers) {
      for (const kind of ['startup', 'liveness', 'readiness'] as const) {
        const probe = kind === 'startup' ? c.startupProbe : kind === 'liveness' ? c.livenessProbe : c.readinessProbe;
        if (!probe) continue;
        const k = this.key(uid, c.name, kind);
        let w = this.workers.get(k);
        if (!w) {
          w = {
            pod,
            container: c,
            kind,
            probe,
            containerID: '',
            rawId: '',
            startedAt: 0,
            running: false,
            podIP: '',
            result: 'unknown',
            run: 0,
            onHold: false,
            busy: false,
            stopped: false,
          };
          this.workers.set(k, w);
        }
        w.pod = pod;
        const st = ps.containers.find((x) => x.name === c.name);
        w.podIP = ps.ips[0] ?? '';
        const newId = st?.containerID ?? '';
        w.running = st?.state === 'running';
        w.startedAt = st?.startedAt ?? 0;
        w.rawId = st?.id ?? '';
        if (newId && newId !== w.containerID) {
          w.containerID = newId;
          w.result = kind === 'readiness' ? 'failure' : kind === 'liveness' ? 'success' : 'unknown';
          w.run = 0;
          w.lastOutcome = undefined;
          w.onHold = false;
          this.schedule(w, 0);
        } else if (!w.timer && !w.busy && w.running && !w.onHold) this.schedule(w, 0);
      }
    }
  }

  private schedule(w: Worker, ms: number): void {
    if (w.stopped) return;
    if (w.timer !== undefined) this.clock.clearTimeout(w.timer);
    w.timer = this.clock.setTimeout(() => {
      w.timer = undefined;
      void this.tick(w);
    }, ms);
  }

  private async tick(w: Worker): Promise<void> {
    if (w.stopped || w.busy) return;
    const period = (w.probe.periodSeconds ?? 10) * 1000;
    const again = (): void => this.schedule(w, period);
    if (!w.running || w.onHold) return; // resumes when syncPod sees a (new) running container
    const uid = w.pod.metadata?.uid ?? '';
    if (w.kind !== 'startup') {
      const startup = this.workers.get(this.key(uid, w.container.name, 'startup'));
      if (startup && startup.result !== 'success') return again();
    } else if (w.result === 'success') return;
    const delay = (w.probe.initialDelaySeconds ?? 0) * 1000;
    const since = this.clock.now() - w.startedAt;
    if (since < delay) return this.schedule(w, delay - since);
    w.busy = true;
    const id = w.containerID;
    const out = await runProbe(this.runtime, this.net, w.pod, w.container, w.rawId, w.podIP, w.probe);
    w.busy = false;
    if (w.stopped || id !== w.containerID) return;
    const name = KIND_NAME[w.kind];
    const fieldPath = containerFieldPath(w.pod, w.container.name);
    let r: Result;
    if (out.error !== undefined) {
      // upstream: a probe that could not run is reported, and its result thrown away
      this.recorder.event(podRef(w.pod), 'Warning', Reason.ContainerUnhealthy, `${name} probe errored: ${out.error}`, fieldPath);
      if (!w.onHold) again();
      return;
    }
    if (out.result === 'success' || out.result === 'warning') {
      if (out.result === 'warning') this.recorder.event(podRef(w.pod), 'Warning', Reason.ContainerProbeWarning, Msg.probeWarning(name, out.output), fieldPath);
      r = 'success';
    } else {
      this.recorder.event(podRef(w.pod), 'Warning', Reason.ContainerUnhealthy, Msg.probeFailed(name, out.output), fieldPath);
      r = 'failure';
    }
    if (w.lastOutcome === r) w.run++;
    else {
      w.lastOutcome = r;
      w.run = 1;
    }
    const threshold = r === 'failure' ? (w.probe.failureThreshold ?? 3) : (w.probe.successThreshold ?? 1);
    if (w.run >= threshold && w.result !== r) {
      w.result = r;
      if (r === 'failure' && w.kind !== 'readiness') {
        w.onHold = true;
        w.run = 0;
      }
      this.onChange(uid);
    }
    if (w.kind === 'startup' && w.result === 'success') return;
    if (!w.onHold) again();
  }

  result(podUID: string, containerName: string, containerID: string, kind: ProbeKind): 'success' | 'failure' | 'unknown' | undefined {
    const w = this.workers.get(this.key(podUID, containerName, kind));
    if (!w) return undefined;
    if (!containerID || w.containerID !== containerID) return kind === 'readiness' ? 'failure' : kind === 'liveness' ? 'success' : 'unknown';
    return w.result;
  }

  private byId(containerID: string, kind: ProbeKind): Worker | undefined {
    for (const w of this.workers.values()) if (w.kind === kind && w.containerID === containerID) return w;
    return undefined;
  }

  livenessFailed(containerID: string): boolean {
    return this.byId(containerID, 'liveness')?.result === 'failure';
  }

  startupFailed(containerID: string): boolean {
    return this.byId(containerID, 'startup')?.result === 'failure';
  }

  started(containerID: string, c: Container): boolean {
    if (!c.startupProbe) return true;
    return this.byId(containerID, 'startup')?.result === 'success';
  }

  /** Stops and forgets every worker of a pod. */
  removePod(uid: string): void {
    for (const [k, w] of this.workers) {
      if (!k.startsWith(`${uid}/`)) continue;
      w.stopped = true;
      if (w.timer !== undefined) this.clock.clearTimeout(w.timer);
      this.workers.delete(k);
    }
  }
}
