/**
 * The pod half of the kwok-style pool: one list+watch of all bound pods (not one per node),
 * and for pods bound to a pool node the kubelet's visible effects without a runtime —
 * kwok's default stages with the kubelet's status semantics:
 * - pod-ready: a bound pod gets the status a kubelet posts once its containers run
 *   (one status write, an update of pods/status; pod IP from the node's podCIDR, the
 *   node's for hostNetwork);
 * - pod-complete: a pod owned by a Job (restartPolicy Never/OnFailure) then completes
 *   (phase Succeeded, containers terminated with reason Completed, exit code 0);
 * - pod-delete: a pod with a deletionTimestamp is deleted with grace period 0 and a UID
 *   precondition, as the kubelet's status manager does once containers are gone.
 * Per pod the pool keeps a few strings (no parsed object once it is handled).
 *
 * @see https://github.com/kubernetes-sigs/kwok/blob/main/pkg/kwok/controllers/pod_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/status/status_manager.go (deletion)
 */
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { isConflict, isNotFound, StatusError } from '../apimachinery/errors.js';
import { R, type Client, type WatchHandle } from '../client/types.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import { PodIPAllocator } from './ipam.js';
import type { EventRecorder } from '../client/events.js';
import { PodStageRunner } from './stage/pod-stages.js';
import type { CompiledStage } from './stage/stage.js';
import { simulatedPodStatus } from './pod-status.js';
import { KeyedWorkQueue } from './work-queue.js';

type PodObj = Pod & KObject;

/** What the pool remembers of one pod between events. */
interface PodRecord {
  uid: string;
  node: string;
  ip: string;
  /** the pod waiting for its next write (dropped once written) */
  pending?: PodObj;
  /** last stage written: ready → complete; deleting once asked */
  stage: 'none' | 'ready' | 'complete' | 'deleting';
}

export interface PodLifecycleOptions {
  client: Client;
  clock: Clock;
  /** node name → its InternalIP and podCIDR */
  nodes: Map<string, { ip: string; podCIDR: string }>;
  /** status writes and deletes in flight (default 32) */
  concurrency?: number;
  /** kwok Pod stages replacing the built-in ones (see stage/pod-stages.ts) */
  stages?: CompiledStage[];
  /** for the stages' `next.event` */
  recorder?: EventRecorder;
}

function isJobPod(p: Pod): boolean {
  return (p.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Job' && o.controller) && p.spec?.restartPolicy !== 'Always';
}

/** Runs kwok's default pod stages for every pod bound to a pool node. */
export class PodLifecycle {
  private readonly pods = new Map<string, PodRecord>();
  private readonly queue: KeyedWorkQueue;
  private readonly ipam = new PodIPAllocator();
  private watch?: WatchHandle;
  private retry?: TimerHandle;
  private stopped = false;
  private rv = '';
  /** pods made Running / Succeeded / deleted so far */
  readonly counts = { ready: 0, complete: 0, deleted: 0 };

  /** set when Stages drive the pods instead of the built-in stages */
  readonly stager?: PodStageRunner;

  constructor(private readonly o: PodLifecycleOptions) {
    this.queue = new KeyedWorkQueue(o.concurrency ?? 32, (key) => this.sync(key));
    if (o.stages?.length) {
      this.stager = new PodStageRunner({
        client: o.client,
        clock: o.clock,
        stages: o.stages,
        recorder: o.recorder,
        nodeIP: (node) => o.nodes.get(node)?.ip,
        podIP: (node, _uid, key) => {
          const r = this.pods.get(key);
          const n = o.nodes.get(node);
          if (!n) return '';
          if (r && r.node === node) return (r.ip ||= this.ipam.allocate(node, n.podCIDR));
          return this.ipam.allocate(node, n.podCIDR);
        },
      });
    }
  }

  start(): void {
    void this.listAndWatch();
  }

  stop(): void {
    this.stopped = true;
    this.queue.stop();
    this.stager?.stop();
    this.watch?.stop();
    if (this.retry !== undefined) this.o.clock.clearTimeout(this.retry);
  }

  /** Resolves when no write is waiting or in flight. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async listAndWatch(): Promise<void> {
    if (this.stopped) return;
    try {
      const seen = new Set<string>();
      let cont: string | undefined;
      do {
        const l = await this.o.client.list<PodObj>(R.pods, '', { limit: 500, continue: cont, fieldSelector: BOUND });
        for (const p of l.items) {
          seen.add(key(p));
          this.observe(p);
        }
        cont = l.metadata.continue || undefined;
        this.rv = l.metadata.resourceVersion ?? '';
      } while (cont);
      for (const k of [...this.pods.keys()]) if (!seen.has(k)) this.forget(k);
      this.startWatch();
    } catch {
      this.retry = this.o.clock.setTimeout(() => void this.listAndWatch(), 1000);
    }
  }

  private startWatch(): void {
    if (this.stopped) return;
    let gone = false;
    this.watch = this.o.client.watch<PodObj>(R.pods, '', { resourceVersion: this.rv, allowWatchBookmarks: true, fieldSelector: BOUND }, (e) => {
      if (e.type === 'ERROR') {
        gone = (e.object as unknown as { code?: number }).code === 410;
        return;
      }
      const rv = e.object.metadata?.resourceVersion;
      if (rv) this.rv = rv;
      if (e.type === 'BOOKMARK') return;
      if (e.type === 'DELETED') this.forget(key(e.object));
      else this.observe(e.object);
    });
    const again = (): void => {
      if (this.stopped) return;
      this.retry = this.o.clock.setTimeout(() => void (gone ? this.listAndWatch() : this.startWatch()), gone ? 0 : 100);
    };
    void this.watch.done.then(again, (e: unknown) => {
      gone ||= e instanceof StatusError && e.code === 410;
      again();
    });
  }

  private forget(k: string): void {
    const r = this.pods.get(k);
    this.stager?.forget(k);
    if (!r) return;
    this.pods.delete(k);
    if (r.ip) this.ipam.release(r.node, r.ip);
  }

  /** Decides whether the pod needs a write and queues it. */
  private observe(p: PodObj): void {
    const node = p.spec?.nodeName;
    if (!node) return;
    const n = this.o.nodes.get(node);
    if (!n) return;
    const k = key(p);
    let r = this.pods.get(k);
    if (r && r.uid !== p.metadata?.uid) {
      this.forget(k);
      r = undefined;
    }
    if (!r) {
      r = { uid: p.metadata?.uid ?? '', node, ip: '', stage: 'none' };
      this.pods.set(k, r);
    }
    if (this.stager) {
      if (!r.ip && p.status?.podIP && !p.spec?.hostNetwork) r.ip = this.ipam.claim(node, n.podCIDR, p.status.podIP);
      this.stager.observe(k, p);
      return;
    }
    const phase = p.status?.phase;
    if (p.metadata?.deletionTimestamp) {
      if (r.stage !== 'deleting') {
        r.stage = 'deleting';
        r.pending = p;
        this.queue.add(k);
      }
      return;
    }
    if (phase === 'Succeeded' || phase === 'Failed') {
      r.stage = 'complete';
      return;
    }
    if (phase === 'Running' && p.status?.containerStatuses?.length) {
      if (r.stage === 'none') r.stage = 'ready'; // a restart of the pool: adopt
      if (!r.ip && p.status.podIP && !p.spec?.hostNetwork) r.ip = this.ipam.claim(node, n.podCIDR, p.status.podIP);
      if (isJobPod(p) && r.stage === 'ready') {
        r.pending = p;
        this.queue.add(k);
      }
      return;
    }
    if (r.stage === 'none') {
      r.pending = p;
      this.queue.add(k);
    }
  }

  private async sync(k: string): Promise<void> {
    const r = this.pods.get(k);
    const p = r?.pending;
    if (!r || !p) return;
    r.pending = undefined;
    const ns = p.metadata!.namespace!;
    const name = p.metadata!.name!;
    try {
      if (r.stage === 'deleting') {
        await this.o.client.delete(R.pods, ns, name, { gracePeriodSeconds: 0, preconditions: { uid: r.uid } });
        this.counts.deleted++;
        return;
      }
      const n = this.o.nodes.get(r.node)!;
      if (!r.ip && !p.spec?.hostNetwork) r.ip = this.ipam.allocate(r.node, n.podCIDR);
      const complete = r.stage === 'ready';
      const status = simulatedPodStatus(p, n.ip, p.spec?.hostNetwork ? n.ip : r.ip, this.o.clock.now(), complete);
      await this.o.client.update(R.pods, ns, statusUpdate(p, status), { subresource: 'status' });
      if (complete) {
        r.stage = 'complete';
        this.counts.complete++;
      } else {
        r.stage = 'ready';
        this.counts.ready++;
      }
    } catch (e) {
      if (isNotFound(e) || (r.stage === 'deleting' && isConflict(e))) return;
      // try again with the next event of this pod (or its resync after a relist); a
      // conflict means a newer pod is on its way, which then replaces this one
      if (r.stage !== 'deleting') r.pending ??= p;
      this.retryLater(k);
    }
  }

  private retryLater(k: string): void {
    this.o.clock.setTimeout(() => {
      if (!this.stopped) this.queue.add(k);
    }, 1000);
  }
}

/**
 * The pool's pods: those bound to a node (kwok's pod field selector when it manages all
 * nodes; pods of other nodes are skipped by name).
 */
const BOUND = 'spec.nodeName!=';

/**
 * The pods/status update (PUT) that writes `status`: the observed pod with its
 * resourceVersion (a pod changed meanwhile is a Conflict, and its newer version comes as
 * the next event) and uid, without managedFields (a status write keeps the stored ones).
 * Cheaper for the API server than a merge patch of the same status: no patch to decode
 * and apply to the stored object.
 */
export function statusUpdate(p: PodObj, status: PodStatus): PodObj {
  const { managedFields: _mf, ...metadata } = p.metadata ?? {};
  return { ...p, metadata, status };
}

function key(p: KObject): string {
  return `${p.metadata?.namespace}/${p.metadata?.name}`;
}
