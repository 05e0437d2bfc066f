/**
 * An in-memory {@link Client} for kubelet tests: objects per resource, resourceVersions,
 * watches with field/label selectors (objects leaving a selector are reported as
 * DELETED), merge/strategic patches (strategic treated as JSON merge patch, which is
 * what the kubelet sends), status subresources, graceful pod deletion with uid
 * preconditions, and a log of every write for assertions.
 */
import { randomUUID } from 'node:crypto';
import type { KObject } from '../../api/resource.js';
import { newAlreadyExists, newConflict, newNotFound, newBadRequest } from '../../apimachinery/errors.js';
import type {
  Client,
  DeleteOptions,
  KList,
  ListOptions,
  PatchType,
  ResourceRef,
  WatchEvent,
  WatchHandle,
  WatchOptions,
  WriteOptions,
} from '../../client/types.js';

interface Watcher {
  ref: ResourceRef;
  ns: string;
  opts: WatchOptions;
  onEvent: (e: WatchEvent) => void;
  stopped: boolean;
  end: () => void;
}

export interface Call {
  verb: string;
  resource: string;
  ns: string;
  name: string;
  subresource?: string;
  body?: unknown;
}

const clone = <T>(o: T): T => structuredClone(o);

/** Reads a dotted field path like `spec.nodeName` or `involvedObject.name`. */
function field(obj: KObject, p: string): string {
  let v: unknown = obj;
  for (const part of p.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v === undefined || v === null ? '' : String(v);
}

function selects(obj: KObject, opts: { fieldSelector?: string; labelSelector?: string }): boolean {
  for (const term of (opts.fieldSelector ?? '').split(',').filter(Boolean)) {
    const neg = term.includes('!=');
    const [k, v] = term.split(neg ? '!=' : /==?/);
    if ((field(obj, k) === v) === neg) return false;
  }
  const labels = obj.metadata?.labels ?? {};
  for (const term of (opts.labelSelector ?? '').split(',').filter(Boolean)) {
    const neg = term.includes('!=');
    const [k, v] = term.split(neg ? '!=' : /==?/);
    if (v === undefined) {
      if (!(k in labels)) return false;
    } else if ((labels[k] === v) === neg) return false;
  }
  return true;
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return clone(patch);
  const out: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class FakeClient implements Client {
  private readonly store = new Map<string, Map<string, KObject>>();
  private readonly watchers = new Set<Watcher>();
  private rv = 1;
  readonly calls: Call[] = [];
  /** Called before each verb; throw to inject failures. */
  hook?: (c: Call) => void;

  constructor(private readonly now: () => number = () => Date.now()) {}

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

  private notify(r: ResourceRef, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KObject, old?: KObject): void {
    for (const w of this.watchers) {
      if (w.stopped || w.ref.resource !== r.resource || w.ref.group !== r.group) continue;
      if (w.ns && obj.metadata?.namespace !== w.ns) continue;
      const now = selects(obj, w.opts);
      const before = old ? selects(old, w.opts) : false;
      let t: WatchEvent['type'] | undefined;
      if (type === 'DELETED') t = before || now ? 'DELETED' : undefined;
      else if (now) t = before || type === 'MODIFIED' ? (before ? 'MODIFIED' : 'ADDED') : 'ADDED';
      else if (before) t = 'DELETED';
      if (t) {
        const ev = { type: t, object: clone(obj) };
        queueMicrotask(() => !w.stopped && w.onEvent(ev));
      }
    }
  }

  /** Direct read of the stored object (no copy semantics promised to callers: it is a clone). */
  peek<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string): T | undefined {
    const o = this.bucket(r).get(this.key(r, ns, name));
    return o ? (clone(o) as T) : undefined;
  }

  /** All stored objects of a resource. */
  all<T extends KObject = KObject>(r: ResourceRef): T[] {
    return [...this.bucket(r).values()].map((o) => clone(o) as T);
  }

  async get<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string): Promise<T> {
    this.record({ verb: 'get', resource: r.resource, ns, name });
    const o = this.bucket(r).get(this.key(r, ns, name));
    if (!o) throw newNotFound(r, name);
    return clone(o) as T;
  }

  async list<T extends KObject = KObject>(r: ResourceRef, ns: string, opts: ListOptions = {}): Promise<KList<T>> {
    this.record({ verb: 'list', resource: r.resource, ns, name: '' });
    const items = [...this.bucket(r).values()].filter((o) => (!ns || o.metadata?.namespace === ns) && selects(o, opts));
    return { apiVersion: 'v1', kind: `${r.kind}List`, metadata: { resourceVersion: String(this.rv) }, items: items.map((o) => clone(o) as T) };
  }

  async create<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, _opts?: WriteOptions): Promise<T> {
    this.record({ verb: 'create', resource: r.resource, ns, name: obj.metadata?.name ?? '', body: clone(obj) });
    const o = clone(obj) as KObject;
    o.metadata = { ...o.metadata };
    if (!o.metadata.name && o.metadata.generateName) o.metadata.name = o.metadata.generateName + randomUUID().slice(0, 5);
    if (!o.metadata.name) throw newBadRequest('name or generateName is required');
    if (r.namespaced) o.metadata.namespace = ns || o.metadata.namespace || 'default';
    const k = this.key(r, o.metadata.namespace ?? '', o.metadata.name);
    if (this.bucket(r).has(k)) throw newAlreadyExists(r, o.metadata.name);
    o.metadata = {
      ...o.metadata,
      uid: o.metadata.uid ?? randomUUID(),
      creationTimestamp: o.metadata.creationTimestamp ?? new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
      resourceVersion: String(++this.rv),
    };
    o.apiVersion ??= r.group ? `${r.group}/${r.version}` : r.version;
    o.kind ??= r.kind;
    this.bucket(r).set(k, o);
    this.notify(r, 'ADDED', o);
    return clone(o) as T;
  }

  private put(r: ResourceRef, k: string, o: KObject, old: KObject): KObject {
    o.metadata = { ...o.metadata, resourceVersion: String(++this.rv) };
    this.bucket(r).set(k, o);
    this.notify(r, 'MODIFIED', o, old);
    return clone(o);
  }

  async update<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, opts?: WriteOptions & { subresource?: string }): Promise<T> {
    const name = obj.metadata?.name ?? '';
    this.record({ verb: 'update', resource: r.resource, ns, name, subresource: opts?.subresource, body: clone(obj) });
    const k = this.key(r, ns, name);
    const old = this.bucket(r).get(k);
    if (!old) throw newNotFound(r, name);
    const rv = obj.metadata?.resourceVersion;
    if (rv && rv !== old.metadata?.resourceVersion) throw newConflict(r, name);
    let o = clone(obj) as KObject;
    if (opts?.subresource === 'status') o = { ...clone(old), status: o.status };
    else if (old.status !== undefined && r.resource !== 'leases') o.status = clone(old.status);
    o.metadata = { ...o.metadata, uid: old.metadata?.uid, creationTimestamp: old.metadata?.creationTimestamp };
    return this.put(r, k, o, old) as T;
  }

  async patch<T extends KObject = KObject>(
    r: ResourceRef,
    ns: string,
    name: string,
    type: PatchType,
    patch: unknown,
    opts?: WriteOptions & { subresource?: string },
  ): Promise<T> {
    this.record({ verb: 'patch', resource: r.resource, ns, name, subresource: opts?.subresource, body: clone(patch) });
    if (type !== 'merge' && type !== 'strategic') throw newBadRequest(`fake client: patch type ${type} not supported`);
    const k = this.key(r, ns, name);
    const old = this.bucket(r).get(k);
    if (!old) throw newNotFound(r, name);
    const p = patch as KObject;
    if (p.metadata?.uid && p.metadata.uid !== old.metadata?.uid) {
      throw newConflict(r, name, `Precondition failed: UID in precondition: ${p.metadata.uid}, UID in object meta: ${old.metadata?.uid}`);
    }
    let o = mergePatch(old, patch) as KObject;
    if (opts?.subresource === 'status') o = { ...clone(old), status: o.status };
    return this.put(r, k, o, old) as T;
  }

  async delete(r: ResourceRef, ns: string, name: string, opts: DeleteOptions = {}): Promise<KObject> {
    this.record({ verb: 'delete', resource: r.resource, ns, name, body: clone(opts) });
    const k = this.key(r, ns, name);
    const old = this.bucket(r).get(k);
    if (!old) throw newNotFound(r, name);
    if (opts.preconditions?.uid && opts.preconditions.uid !== old.metadata?.uid) {
      throw newConflict(r, name, `Precondition failed: UID in precondition: ${opts.preconditions.uid}, UID in object meta: ${old.metadata?.uid}`);
    }
    if (r.resource === 'pods') {
      const spec = (old.spec ?? {}) as { terminationGracePeriodSeconds?: number };
      const grace = opts.gracePeriodSeconds ?? old.metadata?.deletionGracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
      const phase = (old.status as { phase?: string } | undefined)?.phase;
      if (grace > 0 && (old.spec as { nodeName?: string })?.nodeName && phase !== 'Succeeded' && phase !== 'Failed') {
        const o = clone(old);
        o.metadata = {
          ...o.metadata,
          deletionTimestamp: old.metadata?.deletionTimestamp ?? new Date(this.now() + grace * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
          deletionGracePeriodSeconds: Math.min(grace, old.metadata?.deletionGracePeriodSeconds ?? grace),
        };
        return this.put(r, k, o, old);
      }
    }
    this.bucket(r).delete(k);
    this.notify(r, 'DELETED', old);
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' } as KObject;
  }

  async deleteCollection(r: ResourceRef, ns: string, opts: ListOptions & DeleteOptions = {}): Promise<KObject> {
    for (const o of (await this.list(r, ns, opts)).items) await this.delete(r, o.metadata?.namespace ?? '', o.metadata?.name ?? '', opts);
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' } as KObject;
  }

  async createSubresource<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, subresource: string, body: KObject): Promise<T> {
    this.record({ verb: 'create', resource: r.resource, ns, name, subresource, body: clone(body) });
    if (r.resource === 'pods' && subresource === 'binding') {
      const target = (body as { target?: { name?: string } }).target?.name;
      return (await this.patch(r, ns, name, 'merge', { spec: { nodeName: target } })) as T;
    }
    throw newBadRequest(`fake client: subresource ${subresource} not supported`);
  }

  watch<T extends KObject = KObject>(r: ResourceRef, ns: string, opts: WatchOptions, onEvent: (e: WatchEvent<T>) => void): WatchHandle {
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    const w: Watcher = { ref: r, ns, opts, onEvent: onEvent as (e: WatchEvent) => void, stopped: false, end };
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
