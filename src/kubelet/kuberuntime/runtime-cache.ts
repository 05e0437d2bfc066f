/**
 * The kubelet's reads of runtime state, shared between pod workers (the role of
 * upstream's PLEG relist + pod cache): one unfiltered ListPodSandbox + ListContainers
 * serves every pod worker that asked while it was being prepared, and the per-item
 * PodSandboxStatus / ContainerStatus answers are reused while the item's state in the
 * list is unchanged. With N pods syncing at once this makes 2 list calls instead of
 * 2N, and no status calls for pods whose containers did not change.
 *
 * Freshness is that of a direct read: a relist answers only callers that asked before
 * it started (a caller arriving while one is in flight waits for the next), so a
 * worker always sees what it did itself before asking. The cached status calls are
 * keyed by (id, state): a sandbox's IPs and a container's start/exit details do not
 * change without a state change visible in the list.
 *
 * It is also the kubelet's PLEG: every list records, per pod, which sandboxes and
 * containers exist in which state, and {@link RuntimeStatusCache.pleg} (the 1 s relist)
 * names the pods whose record differs from the one it saw the time before, whichever
 * list (its own or a pod worker's) saw the change first.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/pleg/generic.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/container/cache.go
 */
import { CRILabels, type Container, type PodSandbox, type Runtime } from '../../cri/api.js';
import type { RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '../container/runtime.js';
import { isNotFound } from './errors.js';
import { toRuntimeContainerStatus } from './runtime-status.js';

interface Snapshot {
  sandboxes: Map<string, PodSandbox[]>;
  containers: Map<string, Container[]>;
}

/** Per pod: the sorted `id=state` of every sandbox and container it has in the runtime. */
function podStates(sbs: Map<string, PodSandbox[]>, ctrs: Map<string, Container[]>): Map<string, string> {
  const out = new Map<string, string>();
  const parts: string[] = [];
  const add = (uid: string): void => {
    if (out.has(uid)) return;
    parts.length = 0;
    for (const s of sbs.get(uid) ?? []) parts.push(`${s.id}=${s.state}`);
    for (const c of ctrs.get(uid) ?? []) parts.push(`${c.id}=${c.state}`);
    if (parts.length > 1) parts.sort();
    out.set(uid, parts.join(','));
  };
  for (const uid of sbs.keys()) add(uid);
  for (const uid of ctrs.keys()) add(uid);
  return out;
}

interface Cached<T> {
  state: string;
  value: T;
  /** the number of lists started when this entry was made: a list that started later and misses the item drops it */
  gen: number;
}

const ms = (ns: number): number => (ns ? Math.floor(ns / 1e6) : 0);

function group<T extends { labels: Record<string, string> }>(items: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const uid = it.labels[CRILabels.podUID];
    if (!uid) continue;
    const l = m.get(uid);
    if (l) l.push(it);
    else m.set(uid, [it]);
  }
  return m;
}

export class RuntimeStatusCache {
  private inflight: Promise<Snapshot> | undefined;
  private queued: Promise<Snapshot> | undefined;
  /** sandbox id → IPs while in the listed state (undefined: the sandbox vanished) */
  private readonly sandboxIPs = new Map<string, Cached<string[] | undefined>>();
  /** container id → converted status while in the listed state (undefined: it vanished) */
  private readonly containerStatus = new Map<string, Cached<RuntimeContainerStatus | undefined>>();
  /** CRI list calls made (tests, benchmarks) */
  relists = 0;
  /** the newest list's per-pod states */
  private latest: Map<string, string> = new Map();
  /** the per-pod states {@link pleg} last compared against */
  private plegSeen: Map<string, string> = new Map();
  /** lists completed so far */
  private listed = 0;
  /** UIDs some completed list has shown, or whose status a caller has read (see {@link newPodStatus}) */
  private readonly known = new Set<string>();

  /** @param runtimeName prefix of containerIDs (`containerd://…`) */
  constructor(
    private readonly runtime: Runtime,
    private readonly runtimeName: () => string,
  ) {}

  /**
   * Everything the runtime has for pod `uid` (lists newest first), read after this call.
   * @throws CRIError from the list calls, or from a status call other than NotFound
   */
  async podStatus(uid: string, name: string, namespace: string): Promise<RuntimePodStatus> {
    this.known.add(uid);
    const snap = await this.relist();
    return this.assemble(uid, name, namespace, snap.sandboxes.get(uid) ?? [], snap.containers.get(uid) ?? []);
  }

  /**
   * Like {@link podStatus}, from lists of this pod only (label selector on its UID) that
   * start now instead of after the shared relist in flight: for the worker that just
   * changed the pod (started its containers) and reports the result right away. The
   * per-item status answers are shared with {@link podStatus}; the PLEG record is not
   * touched (the next relist reports the change as usual). `changedIds`: containers the
   * caller just started, whose ContainerStatus is asked for together with the lists.
   * @throws CRIError from the list calls, or from a status call other than NotFound
   */
  async podStatusNow(uid: string, name: string, namespace: string, changedIds: readonly string[] = []): Promise<RuntimePodStatus> {
    this.known.add(uid);
    const filter = { labelSelector: { [CRILabels.podUID]: uid } };
    // the containers the caller just changed are asked about alongside the lists (one round trip, not two)
    const early = changedIds.map((id) => this.runtime.containerStatus(id).catch(() => undefined));
    const [sbs, ctrs, raws] = await Promise.all([this.runtime.listPodSandbox(filter), this.runtime.listContainers(filter), Promise.all(early)]);
    for (const raw of raws) {
      const c = raw && ctrs.find((x) => x.id === raw.id);
      // kept only when the list saw it in the same state (else statusOf asks again)
      if (c && c.state === raw.state)
        this.containerStatus.set(c.id, { state: raw.state, value: toRuntimeContainerStatus(raw, c.podSandboxId, this.runtimeName()), gen: this.relists });
    }
    const own = (x: { labels: Record<string, string> }): boolean => x.labels[CRILabels.podUID] === uid; // a runtime ignoring the selector
    return this.assemble(uid, name, namespace, sbs.filter(own), ctrs.filter(own));
  }

  /** A pod's status from its listed sandboxes and containers (status calls only for items not cached in their listed state). */
  private async assemble(uid: string, name: string, namespace: string, sbs: PodSandbox[], ctrs: Container[]): Promise<RuntimePodStatus> {
    const sandboxIPs = await Promise.all(sbs.map((sb) => this.ipsOf(sb)));
    const sandboxes: RuntimeSandboxStatus[] = [];
    sbs.forEach((sb, i) => {
      const ips = sandboxIPs[i];
      if (ips) sandboxes.push({ id: sb.id, ready: sb.state === 'SANDBOX_READY', attempt: sb.metadata.attempt, createdAt: ms(sb.createdAt), ips });
    });
    sandboxes.sort((a, b) => b.createdAt - a.createdAt);
    const containers = (await Promise.all(ctrs.map((c) => this.statusOf(c)))).filter((c): c is RuntimeContainerStatus => !!c);
    containers.sort((a, b) => b.createdAt - a.createdAt || b.restartCount - a.restartCount);
    const live = sandboxes.find((s) => s.ready) ?? sandboxes[0];
    return { uid, name, namespace, sandboxes, containers, ips: live?.ips ?? [] };
  }

  /**
   * The status of a pod the runtime cannot have anything of, without a list: at least
   * one list has completed, none of them showed `uid`, and nobody asked for `uid`'s
   * status before (whoever asked may have acted on the runtime since). Upstream's pod
   * worker likewise starts a pod first seen after its cache's first relist from an
   * empty status instead of waiting for the next relist. Returns undefined otherwise:
   * then {@link podStatus} must read.
   *
   * Only the pod's own worker may call this, before its first runtime action; the answer
   * is given once per UID (a second call returns undefined).
   */
  newPodStatus(uid: string, name: string, namespace: string): RuntimePodStatus | undefined {
    if (this.listed === 0 || this.known.has(uid)) return undefined;
    this.known.add(uid);
    return { uid, name, namespace, sandboxes: [], containers: [], ips: [] };
  }

  /**
   * Records the IPs a caller just read with PodSandboxStatus for sandbox `id` (ready),
   * so the next relist that lists it ready does not ask again.
   */
  noteSandboxIPs(id: string, ips: string[]): void {
    this.sandboxIPs.set(id, { state: 'SANDBOX_READY', value: ips, gen: this.relists });
  }

  /** Drops what is remembered of pod `uid` once the kubelet is done with it (its runtime objects are removed). */
  forget(uid: string): void {
    this.known.delete(uid);
  }

  /**
   * Relists (a list that starts after this call) and returns the UIDs of pods whose
   * sandboxes or containers appeared, vanished or changed state since the previous
   * call (upstream GenericPLEG.Relist, reduced to "this pod changed").
   * @throws CRIError from the list calls
   */
  async pleg(): Promise<string[]> {
    await this.relist();
    const cur = this.latest;
    const changed: string[] = [];
    for (const [uid, st] of cur) if (this.plegSeen.get(uid) !== st) changed.push(uid);
    for (const uid of this.plegSeen.keys()) if (!cur.has(uid)) changed.push(uid);
    this.plegSeen = cur;
    return changed;
  }

  /** UIDs of the pods the newest list saw in the runtime (housekeeping). */
  podUIDs(): IterableIterator<string> {
    return this.latest.keys();
  }

  /** A list that starts after this call: the one about to start, else the one after the current. */
  private relist(): Promise<Snapshot> {
    if (this.queued) return this.queued;
    const start = (): Promise<Snapshot> => {
      const p = this.list().finally(() => {
        if (this.inflight === p) this.inflight = undefined;
      });
      this.inflight = p;
      return p;
    };
    if (!this.inflight) {
      // every worker woken in this synchronous pass (the periodic resync) joins the same list
      this.queued = Promise.resolve().then(() => {
        this.queued = undefined;
        return start();
      });
      return this.queued;
    }
    this.queued = this.inflight
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.queued = undefined;
        return start();
      });
    return this.queued;
  }

  private async list(): Promise<Snapshot> {
    const gen = ++this.relists;
    const [sbs, ctrs] = await Promise.all([this.runtime.listPodSandbox(), this.runtime.listContainers()]);
    // forget what the runtime no longer has (entries made while this list ran may be newer than it)
    const ids = new Set<string>();
    for (const s of sbs) ids.add(s.id);
    for (const [k, v] of this.sandboxIPs) if (v.gen < gen && !ids.has(k)) this.sandboxIPs.delete(k);
    ids.clear();
    for (const c of ctrs) ids.add(c.id);
    for (const [k, v] of this.containerStatus) if (v.gen < gen && !ids.has(k)) this.containerStatus.delete(k);
    const snap = { sandboxes: group(sbs), containers: group(ctrs) };
    this.latest = podStates(snap.sandboxes, snap.containers);
    for (const uid of this.latest.keys()) this.known.add(uid);
    this.listed++;
    return snap;
  }

  private async ipsOf(sb: PodSandbox): Promise<string[] | undefined> {
    const hit = this.sandboxIPs.get(sb.id);
    if (hit && hit.state === sb.state) return hit.value;
    let ips: string[] | undefined;
    try {
      const st = await this.runtime.podSandboxStatus(sb.id);
      ips = st.network?.ip ? [st.network.ip, ...st.network.additionalIps.map((x) => x.ip)] : [];
    } catch (e) {
      if (!isNotFound(e)) throw e;
      ips = undefined;
    }
    this.sandboxIPs.set(sb.id, { state: sb.state, value: ips, gen: this.relists });
    return ips;
  }

  private async statusOf(c: Container): Promise<RuntimeContainerStatus | undefined> {
    const hit = this.containerStatus.get(c.id);
    if (hit && hit.state === c.state) return hit.value;
    let st: RuntimeContainerStatus | undefined;
    try {
      const raw = await this.runtime.containerStatus(c.id);
      st = toRuntimeContainerStatus(raw, c.podSandboxId, this.runtimeName());
      // the list and the status call can disagree when the container changed in between:
      // cache under the state the status call saw, so the next relist re-reads it
      this.containerStatus.set(c.id, { state: raw.state, value: st, gen: this.relists });
      return st;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    this.containerStatus.set(c.id, { state: c.state, value: undefined, gen: this.relists });
    return st;
  }
}
