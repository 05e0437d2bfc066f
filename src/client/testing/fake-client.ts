/**
 * An in-memory {@link Client} for component tests (kubelet, scheduler, leader
 * election), in the manner of client-go's fake clientset: objects per resource with
 * resourceVersions, uids and creation timestamps; list and watch with field and label
 * selectors (objects leaving a watch's selector are sent as DELETED, entering as
 * ADDED; events arrive on the microtask queue); JSON merge and strategic merge patches
 * (the real strategic merge of src/apimachinery, e.g. pod conditions by `type`);
 * status subresources; uid preconditions; the pods/binding subresource; optional
 * graceful pod deletion; and a log of every call for assertions.
 * Not a conformance fake: no admission, validation or defaulting.
 *
 * @see https://github.com/kubernetes/client-go/blob/v0.32.0/testing/fixture.go
 */
import { randomUUID } from 'node:crypto';
import type { KObject } from '../../api/resource.js';
import { newAlreadyExists, newBadRequest, newConflict, newNotFound } from '../../apimachinery/errors.js';
import { parseSelector } from '../../apimachinery/labels.js';
import type { JsonObject } from '../../apimachinery/patch/json-value.js';
import { applyMergePatch } from '../../apimachinery/patch/merge-patch.js';
import { strategicMergeKindKey, strategicMergePatch } from '../../apimachinery/patch/strategic-merge-patch.js';
import type { Client, DeleteOptions, KList, ListOptions, PatchType, ResourceRef, WatchEvent, WatchHandle, WatchOptions, WriteOptions } from '../types.js';

/** One recorded call (reads and writes). */
interface Call {
  verb: string;
  resource: string;
  ns: string;
  name: string;
  subresource?: string;
  body?: unknown;
}

/** One recorded write, as the scheduler tests read them (a pods/binding create is verb `binding`). */
interface Write {
  verb: 'create' | 'update' | 'patch' | 'delete' | 'binding';
  resource: string;
  namespace: string;
  name: string;
  subresource?: string;
  body?: unknown;
}

interface FakeClientOptions {
  /** the clock (ms since the epoch) for creation and deletion timestamps; default `Date.now` */
  now?: () => number;
  /**
   * Deleting a pod that is bound to a node and not finished sets its deletionTimestamp
   * (grace period from the options, the object or the spec; 30 s by default) instead of
   * removing it, as the API server does; the kubelet then deletes it with grace 0.
   * Default false: every delete removes the object at once.
   */
  gracefulPodDeletion?: boolean;
}

interface Watcher {
  ref: ResourceRef;
  ns: string;
  match: (o: KObject) => boolean;
  onEvent: (e: WatchEvent) => void;
  stopped: boolean;
  end: () => void;
}

const clone = <T>(o: T): T => structuredClone(o);
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);

/** RFC 3339 at whole seconds, as metav1.Time serializes. */
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** Reads a dotted field path like `spec.nodeName` or `involvedObject.name` ("" when absent). */
function field(obj: KObject, p: string): string {
  let v: unknown = obj;
  for (const part of p.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v === undefined || v === null ? '' : String(v);
}

/** A predicate for `opts`' field selector (`a=b`, `a==b`, `a!=b`, comma-separated) and label selector. */
function matcher(opts: { fieldSelector?: string; labelSelector?: string }): (o: KObject) => boolean {
  const terms = (opts.fieldSelector ?? '')
    .split(',')
    .filter(Boolean)
    .map((t) => {
      const neq = t.indexOf('!=');
      if (neq >= 0) return { key: t.slice(0, neq), value: t.slice(neq + 2), eq: false };
      const i = t.indexOf('=');
      return { key: t.slice(0, i), value: t[i + 1] === '=' ? t.slice(i + 2) : t.slice(i + 1), eq: true };
    });
  const labels = parseSelector(opts.labelSelector ?? '');
  return (o) => terms.every((t) => (field(o, t.key) === t.value) === t.eq) && labels.matches(o.metadata?.labels);
}

const uidPreconditionFailed = (r: ResourceRef, name: string, want: string, have: string | undefined): Error =>
  newConflict(r, name, `Precondition failed: UID in precondition: ${want}, UID in object meta: ${have}`);

export class FakeClient implements Client {
  private readonly store = new Map<string, Map<string, KObject>>();
  private readonly watchers = new Set<Watcher>();
  private rv = 1;
  private readonly now: () => number;
  private readonly gracefulPodDeletion: boolean;
  /** every call, in order */
  readonly calls: Call[] = [];
  /** Called before each verb; throw to inject failures. */
  hook?: (c: Call) => void;
  /** fail the next `count` pods/binding calls with `error` */
  failBindings: { count: number; error: Error } | null = null;

  constructor(opts: FakeClientOptions = {}) {
    this.now = opts.now ?? (() => Date.now());
    this.gracefulPodDeletion = opts.gracefulPodDeletion ?? false;
  }

  /** Every write, in order (reads left out). */
  get writes(): Write[] {
    return this.calls
      .filter((c) => WRITE_VERBS.has(c.verb) && c.resource !== 'raw')
      .map((c) => ({
        verb: c.verb === 'create' && c.subresource === 'binding' ? 'binding' : (c.verb as Write['verb']),
        resource: c.resource,
        namespace: c.ns,
        name: c.name,
        ...(c.subresource !== undefined ? { subresource: c.subresource } : {}),
        ...(c.body !== undefined ? { body: c.body } : {}),
      }));
  }

  private bucket(r: ResourceRef): Map<string, KObject> {
    const k = `${r.group}/${r.resource}`;
    let b = this.store.get(k);
    if (!b) this.store.set(k, (b = new Map()));
    return b;
  }

  private key(r: ResourceRef, ns: string, name: string): string {
    return r.namespaced ? `${ns}/${name}` : name;
  }

  private record(c: Call): void {
    this.calls.push(c);
    this.hook?.(c);
  }

  private stored(r: ResourceRef, ns: string, name: string): KObject {
    const o = this.bucket(r).get(this.key(r, ns, name));
    if (!o) throw newNotFound(r, name);
    return o;
  }

  private notify(r: ResourceRef, old: KObject | undefined, obj: KObject | undefined): void {
    for (const w of this.watchers) {
      if (w.stopped || w.ref.resource !== r.resource || w.ref.group !== r.group) continue;
      const o = (obj ?? old)!;
      if (w.ns && o.metadata?.namespace !== w.ns) continue;
      const was = old ? w.match(old) : false;
      const is = obj ? w.match(obj) : false;
      const type: WatchEvent['type'] | undefined = is ? (was ? 'MODIFIED' : 'ADDED') : was ? 'DELETED' : undefined;
      if (!type) continue;
      const ev = { type, object: clone(o) };
      queueMicrotask(() => !w.stopped && w.onEvent(ev));
    }
  }

  private put(r: ResourceRef, o: KObject, old: KObject | undefined): KObject {
    o.metadata = { ...o.metadata, resourceVersion: String(++this.rv) };
    this.bucket(r).set(this.key(r, o.metadata.namespace ?? '', o.metadata.name ?? ''), o);
    this.notify(r, old, o);
    return clone(o);
  }

  /** The stored object (a copy), or undefined. */
  peek<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string): T | undefined {
    const o = this.bucket(r).get(this.key(r, ns, name));
    return o ? (clone(o) as T) : undefined;
  }

  /** All stored objects of a resource (copies). */
  all<T extends KObject = KObject>(r: ResourceRef): T[] {
    return [...this.bucket(r).values()].map((o) => clone(o) as T);
  }

  async get<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string): Promise<T> {
    this.record({ verb: 'get', resource: r.resource, ns, name });
    return clone(this.stored(r, ns, name)) as T;
  }

  async list<T extends KObject = KObject>(r: ResourceRef, ns: string, opts: ListOptions = {}): Promise<KList<T>> {
    this.record({ verb: 'list', resource: r.resource, ns, name: '' });
    const match = matcher(opts);
    const items = [...this.bucket(r).values()].filter((o) => (!ns || o.metadata?.namespace === ns) && match(o));
    return {
      apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
      kind: `${r.kind}List`,
      metadata: { resourceVersion: String(this.rv) },
      items: items.map((o) => clone(o) as T),
    };
  }

  async create<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, _opts?: WriteOptions): Promise<T> {
    this.record({ verb: 'create', resource: r.resource, ns, name: obj.metadata?.name ?? '', body: clone(obj) });
    const o = clone(obj) as KObject;
    o.metadata = { ...o.metadata };
    if (!o.metadata.name && o.metadata.generateName) o.metadata.name = o.metadata.generateName + randomUUID().slice(0, 5);
    if (!o.metadata.name) throw newBadRequest('name or generateName is required');
    if (r.namespaced) o.metadata.namespace = ns || o.metadata.namespace || 'default';
    if (this.bucket(r).has(this.key(r, o.metadata.namespace ?? '', o.metadata.name))) throw newAlreadyExists(r, o.metadata.name);
    o.metadata.uid ??= randomUUID();
    o.metadata.creationTimestamp ??= rfc3339(this.now());
    o.apiVersion ??= r.group ? `${r.group}/${r.version}` : r.version;
    o.kind ??= r.kind;
    return this.put(r, o, undefined) as T;
  }

  /**
   * Replaces the object; `resourceVersion`, when set, must be the stored one. The main
   * resource keeps the stored status; the `status` subresource keeps everything else.
   */
  async update<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, opts?: WriteOptions & { subresource?: string }): Promise<T> {
    const name = obj.metadata?.name ?? '';
    this.record({ verb: 'update', resource: r.resource, ns, name, subresource: opts?.subresource, body: clone(obj) });
    const old = this.stored(r, ns, name);
    const rv = obj.metadata?.resourceVersion;
    if (rv && rv !== old.metadata?.resourceVersion) throw newConflict(r, name);
    let o = clone(obj) as KObject;
    if (opts?.subresource === 'status') o = { ...clone(old), status: o.status };
    else if (old.status !== undefined && r.resource !== 'leases') o.status = clone(old.status);
    o.metadata = { ...o.metadata, uid: old.metadata?.uid, creationTimestamp: old.metadata?.creationTimestamp };
    return this.put(r, o, old) as T;
  }

  /** `merge` (RFC 7386) or `strategic` patches; a `metadata.uid` in the patch is a precondition. */
  async patch<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: string }): Promise<T> {
    this.record({ verb: 'patch', resource: r.resource, ns, name, subresource: opts?.subresource, body: clone(patch) });
    if (type !== 'merge' && type !== 'strategic') throw newBadRequest(`fake client: patch type ${type} not supported`);
    const old = this.stored(r, ns, name);
    const uid = (patch as KObject).metadata?.uid;
    if (uid && uid !== old.metadata?.uid) throw uidPreconditionFailed(r, name, uid, old.metadata?.uid);
    let o = (
      type === 'strategic'
        ? strategicMergePatch(old, patch as object, strategicMergeKindKey(old.apiVersion ?? '', old.kind ?? ''))
        : applyMergePatch(old as unknown as JsonObject, patch as JsonObject)
    ) as KObject;
    if (opts?.subresource === 'status') o = { ...clone(old), status: o.status };
    return this.put(r, o, old) as T;
  }

  /** Removes the object (see {@link FakeClientOptions.gracefulPodDeletion}); resolves to the deleted object. */
  async delete(r: ResourceRef, ns: string, name: string, opts: DeleteOptions = {}): Promise<KObject> {
    this.record({ verb: 'delete', resource: r.resource, ns, name, body: clone(opts) });
    const old = this.stored(r, ns, name);
    const want = opts.preconditions?.uid;
    if (want && want !== old.metadata?.uid) throw uidPreconditionFailed(r, name, want, old.metadata?.uid);
    if (this.gracefulPodDeletion && r.resource === 'pods') {
      const spec = (old.spec ?? {}) as { terminationGracePeriodSeconds?: number; nodeName?: string };
      const grace = opts.gracePeriodSeconds ?? old.metadata?.deletionGracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
      const phase = (old.status as { phase?: string } | undefined)?.phase;
      if (grace > 0 && spec.nodeName && phase !== 'Succeeded' && phase !== 'Failed') {
        const o = clone(old);
        o.metadata = {
          ...o.metadata,
          deletionTimestamp: old.metadata?.deletionTimestamp ?? rfc3339(this.now() + grace * 1000),
          deletionGracePeriodSeconds: Math.min(grace, old.metadata?.deletionGracePeriodSeconds ?? grace),
        };
        return this.put(r, o, old);
      }
    }
    this.bucket(r).delete(this.key(r, ns, name));
    const gone = { ...clone(old), metadata: { ...old.metadata, resourceVersion: String(++this.rv) } };
    this.notify(r, gone, undefined);
    return clone(gone);
  }

  async deleteCollection(r: ResourceRef, ns: string, opts: ListOptions & DeleteOptions = {}): Promise<KObject> {
    for (const o of (await this.list(r, ns, opts)).items) await this.delete(r, o.metadata?.namespace ?? '', o.metadata?.name ?? '', opts);
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' } as KObject;
  }

  /** Supports pods/binding: sets spec.nodeName once (uid precondition, conflict when already bound), as the API server. */
  async createSubresource<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, subresource: string, body: KObject): Promise<T> {
    this.record({ verb: 'create', resource: r.resource, ns, name, subresource, body: clone(body) });
    if (r.resource !== 'pods' || subresource !== 'binding') throw newBadRequest(`fake client: subresource ${r.resource}/${subresource} not supported`);
    if (this.failBindings && this.failBindings.count > 0) {
      this.failBindings.count--;
      throw this.failBindings.error;
    }
    const old = this.stored(r, ns, name);
    const uid = body.metadata?.uid;
    if (uid && uid !== old.metadata?.uid) throw newConflict(r, name, 'Precondition failed: UID in precondition');
    const spec = (old.spec ?? {}) as Record<string, unknown>;
    if (spec.nodeName) throw newConflict(r, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`);
    const next = clone(old);
    next.spec = { ...spec, nodeName: (body as { target?: { name?: string } }).target?.name ?? '' };
    this.put(r, next, old);
    return { apiVersion: 'v1', kind: 'Status', status: 'Success', code: 201 } as unknown as T;
  }

  watch<T extends KObject = KObject>(r: ResourceRef, ns: string, opts: WatchOptions, onEvent: (e: WatchEvent<T>) => void): WatchHandle {
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    const w: Watcher = { ref: r, ns, match: matcher(opts), onEvent: onEvent as (e: WatchEvent) => void, stopped: false, end };
    this.watchers.add(w);
    return {
      stop: () => {
        w.stopped = true;
        this.watchers.delete(w);
        end();
      },
      done,
    };
  }

  /** Ends every open watch (as a server restart would); informers resume. */
  closeWatches(): void {
    for (const w of this.watchers) {
      w.stopped = true;
      w.end();
    }
    this.watchers.clear();
  }

  async raw(method: string, path: string): Promise<{ status: number; body: string }> {
    this.record({ verb: method.toLowerCase(), resource: 'raw', ns: '', name: path });
    return { status: 404, body: '' };
  }
}
