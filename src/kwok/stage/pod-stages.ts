/**
 * Pods on kwok-style nodes driven by kwok `Stage`s (`k8ts server --kwok-nodes N
 * --kwok-stages FILE`) instead of the built-in stages: every event of a pod bound to a
 * pool node picks the pod's stage (./stage.ts), waits the stage's delay (one timer per
 * pod with a pending stage) and carries out `next` with the pod as last seen, in kwok's
 * order — the Event, the finalizers, deletion (grace period 0, UID precondition), the
 * status rendered from `statusTemplate` (a strategic merge patch of pods/status, so
 * conditions and container statuses merge by type and name as kwok's patch does). The
 * write's watch event then picks the next stage.
 *
 * Template functions as kwok's: Now, Quote, YAML, Version, NodeName, NodeIP, NodeIPWith,
 * NodePort, PodIP, PodIPWith (pod IPs from the node's podCIDR; the node's IP for
 * hostNetwork pods).
 *
 * @see https://github.com/kubernetes-sigs/kwok/blob/main/pkg/kwok/controllers/stage_controller.go
 * @see https://github.com/kubernetes-sigs/kwok/blob/main/pkg/kwok/controllers/renderer.go (the functions)
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parse as parseYAML, stringify as toYAML } from 'yaml';
import type { KObject } from '../../api/resource.js';
import { isConflict, isNotFound } from '../../apimachinery/errors.js';
import { rfc3339, type EventRecorder } from '../../client/events.js';
import { R, type Client } from '../../client/types.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { TemplateFunc } from './gotemplate.js';
import { selectStage, type CompiledStage } from './stage.js';

type PodObj = Pod & KObject;

export interface PodStageOptions {
  client: Client;
  clock: Clock;
  /** the Pod stages (resourceRef v1/Pod) */
  stages: CompiledStage[];
  recorder?: EventRecorder;
  /** node name → its InternalIP */
  nodeIP(node: string): string | undefined;
  /** the pod's IP on `node` (allocated once per pod UID) */
  podIP(node: string, uid: string, key: string): string;
  /** the k8ts version kwok's `Version` gives */
  version?: string;
  random?: () => number;
}

interface Pending {
  stage: string;
  timer?: TimerHandle;
  pod: PodObj;
}

/** kwok's template functions bound to one pod. */
export function podTemplateFuncs(p: PodObj, o: Pick<PodStageOptions, 'nodeIP' | 'podIP' | 'version'>, now: Date): Record<string, TemplateFunc> {
  const node = p.spec?.nodeName ?? '';
  const podIP = (nodeName: unknown, hostNetwork: unknown, uid: unknown, name: unknown, ns: unknown): string =>
    hostNetwork === true ? (o.nodeIP(String(nodeName)) ?? '') : o.podIP(String(nodeName), String(uid), `${String(ns)}/${String(name)}`);
  return {
    Now: () => rfc3339(now),
    Quote: (v) => JSON.stringify(typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v)),
    YAML: (v, indent) => {
      const pad = ' '.repeat(2 * (Number(indent) || 0));
      return toYAML(v)
        .trimEnd()
        .split('\n')
        .map((l) => pad + l)
        .join('\n');
    },
    Version: () => o.version ?? 'k8ts',
    NodeName: () => node,
    NodeIP: () => o.nodeIP(node) ?? '',
    NodeIPWith: (n) => o.nodeIP(String(n)) ?? '',
    NodePort: () => 0,
    PodIP: () => podIP(node, p.spec?.hostNetwork === true, p.metadata?.uid, p.metadata?.name, p.metadata?.namespace),
    PodIPWith: podIP,
  };
}

/** Runs the Pod stages of pods bound to pool nodes. */
export class PodStageRunner {
  private readonly pending = new Map<string, Pending>();
  private stopped = false;
  /** `next`s carried out so far, by stage name */
  readonly applied = new Map<string, number>();

  constructor(private readonly o: PodStageOptions) {}

  /** The pod `k` changed (or was listed): (re)decides its stage. */
  observe(k: string, p: PodObj): void {
    if (this.stopped) return;
    const stage = selectStage(this.o.stages, p, this.o.random);
    const cur = this.pending.get(k);
    if (cur && stage && cur.stage === stage.name) {
      cur.pod = p; // same stage: its timer stands, the latest pod is used
      return;
    }
    this.forget(k);
    if (!stage) return;
    const entry: Pending = { stage: stage.name, pod: p };
    this.pending.set(k, entry);
    const delay = stage.delayMs(p, this.o.clock.now(), this.o.random);
    entry.timer = this.o.clock.setTimeout(() => {
      entry.timer = undefined;
      void this.apply(k, stage, entry);
    }, delay);
  }

  forget(k: string): void {
    const cur = this.pending.get(k);
    if (cur?.timer !== undefined) this.o.clock.clearTimeout(cur.timer);
    this.pending.delete(k);
  }

  stop(): void {
    this.stopped = true;
    for (const k of [...this.pending.keys()]) this.forget(k);
  }

  private async apply(k: string, stage: CompiledStage, entry: Pending): Promise<void> {
    if (this.stopped || this.pending.get(k) !== entry) return;
    this.pending.delete(k);
    const p = entry.pod;
    const ns = p.metadata!.namespace!;
    const name = p.metadata!.name!;
    const uid = p.metadata!.uid!;
    const next = stage.spec.next;
    try {
      if (next.event?.reason)
        this.o.recorder?.event({ ...p, apiVersion: 'v1', kind: 'Pod' }, next.event.type === 'Warning' ? 'Warning' : 'Normal', next.event.reason, next.event.message ?? '');
      const fin = next.finalizers;
      if (fin) {
        const before = p.metadata?.finalizers ?? [];
        let after = fin.empty ? [] : [...before];
        after = after.filter((f) => !(fin.remove ?? []).some((r) => r.value === f));
        for (const a of fin.add ?? []) if (!after.includes(a.value)) after.push(a.value);
        if (after.length !== before.length || after.some((f, i) => f !== before[i])) {
          await this.o.client.patch(R.pods, ns, name, 'merge', { metadata: { uid, resourceVersion: p.metadata?.resourceVersion, finalizers: after.length ? after : null } });
        }
      }
      if (next.delete) {
        await this.o.client.delete(R.pods, ns, name, { gracePeriodSeconds: 0, preconditions: { uid } });
      } else if (stage.status) {
        const text = stage.status.execute(p, podTemplateFuncs(p, this.o, new Date(this.o.clock.now())));
        const status = (parseYAML(text) as Record<string, unknown> | null) ?? {};
        await this.o.client.patch(R.pods, ns, name, 'strategic', { metadata: { uid }, status }, { subresource: 'status' });
      }
      this.applied.set(stage.name, (this.applied.get(stage.name) ?? 0) + 1);
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) return; // gone, or changed: its next event decides again
      // anything else (a template error, an invalid status): try again in a second
      if (!this.stopped && !this.pending.has(k)) {
        const again: Pending = { stage: stage.name, pod: p };
        this.pending.set(k, again);
        again.timer = this.o.clock.setTimeout(() => void this.apply(k, stage, again), 1000);
      }
    }
  }
}
