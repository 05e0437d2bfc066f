/**
 * An in-memory `Client` for scheduler tests: pods, nodes and events with
 * resourceVersions, list/watch with field selectors (`=`, `==`, `!=` on
 * metadata.name/namespace, spec.nodeName, spec.schedulerName, status.phase; objects
 * leaving a watch's selector are sent as DELETED, entering as ADDED), merge and
 * (conditions-aware) strategic patches including the `status` subresource, and the
 * pods/binding subresource. It records every write so tests can assert on them.
 * Not a conformance fake: just enough API server for the scheduler.
 */
import type { KObject } from '../../api/resource.js';
import { newConflict, newNotFound, StatusError, failureStatus } from '../../apimachinery/errors.js';
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

type Obj = KObject & { metadata: NonNullable<KObject['metadata']> };

interface Watcher {
  resource: string;
  ns: string;
  match: (o: KObject) => boolean;
  onEvent: (e: WatchEvent) => void;
  done: () => void;
}

/** One recorded write. */
export interface Write {
  verb: 'create' | 'update' | 'patch' | 'delete' | 'binding';
  resource: string;
  namespace: string;
  name: string;
  subresource?: string;
  body?: unknown;
}

function get(o: KObject, path: string): string {
  let v: unknown = o;
  for (const p of path.split('.')) v = (v as Record<string, unknown> | undefined)?.[p];
  return v === undefined || v === null ? '' : String(v);
}

/** Parses `a=b,c!=d` into a predicate. */
export function fieldSelectorMatcher(sel: string | undefined): (o: KObject) => boolean {
  if (!sel) return () => true;
  const terms = sel.split(',').map((t) => {
    const neq = t.indexOf('!=');
    if (neq >= 0) return { key: t.slice(0, neq), value: t.slice(neq + 2), eq: false };
    const i = t.indexOf('=');
    const value = t[i + 1] === '=' ? t.slice(i + 2) : t.slice(i + 1);
    return { key: t.slice(0, i), value, eq: true };
  });
  return (o) => terms.every((t) => (get(o, t.key) === t.value) === t.eq);
}

function labelMatcher(sel: string | undefined): (o: KObject) => boolean {
  if (!sel) return () => true;
  const terms = sel.split(',').map((t) => t.split('='));
  return (o) => terms.every(([k, v]) => o.metadata?.labels?.[k!] === v);
}

const clone = <T>(x: T): T => structuredClone(x);

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** RFC 7386 merge patch, with strategic merge of `conditions` lists by `type`. */
function applyPatch(target: unknown, patch: unknown, strategic: boolean): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (strategic && k === 'conditions' && Array.isArray(v) && Array.isArray(out[k])) {
      const list = (out[k] as Record<string, unknown>[]).map((c) => ({ ...c }));
      for (const c of v as Record<string, unknown>[]) {
        const i = list.findIndex((x) => x.type === c.type);
        if (i >= 0) list[i] = applyPatch(list[i], c, true) as Record<string, unknown>;
        else list.push(clone(c));
      }
      out[k] = list;
    } else out[k] = applyPatch(out[k], v, strategic);
  }
  return out;
}

export class FakeClient implements Client {
  private rv = 1;
  private readonly store = new Map<string, Map<string, Obj>>();
  private readonly watchers = new Set<Watcher>();
  /** every write, in order */
  readonly writes: Write[] = [];
  /** fail the next N binding calls with this error */
  failBindings: { count: number; error: Error } | null = null;

  private bucket(resource: string): Map<string, Obj> {
    let m = this.store.get(resource);
    if (!m) this.store.set(resource, (m = new Map()));
    return m;
  }

  private key(r: ResourceRef, ns: string, name: string): string {
    return r.namespaced ? `${ns}/${name}` : name;
  }

  /** Current object (a copy) or undefined. */
  peek<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string): T | undefined {
    const o = this.bucket(r.resource).get(this.key(r, ns, name));
    return o ? (clone(o) as unknown as T) : undefined;
  }

  /** All objects of a resource (copies). */
  all<T extends KObject = KObject>(r: ResourceRef): T[] {
    return [...this.bucket(r.resource).values()].map((o) => clone(o) as unknown as T);
  }

  private emit(resource: string, oldObj: Obj | undefined, newObj: Obj | undefined): void {
    for (const w of this.watchers) {
      if (w.resource !== resource) continue;
      const o = (newObj ?? oldObj)!;
      if (w.ns && o.metadata.namespace !== w.ns) continue;
      const was = oldObj ? w.match(oldObj) : false;
      const is = newObj ? w.match(newObj) : false;
      if (!was && is) w.onEvent({ type: 'ADDED', object: clone(newObj!) });
      else if (was && is) w.onEvent({ type: 'MODIFIED', object: clone(newObj!) });
      else if (was && !is) w.onEvent({ type: 'DELETED', object: clone(newObj ?? oldObj!) });
    }
  }

  private put(r: ResourceRef, obj: Obj, old: Obj | undefined): Obj {
    obj.metadata.resourceVersion = String(++this.rv);
    this.bucket(r.resource).set(this.key(r, obj.metadata.namespace ?? '', obj.metadata.name ?? ''), obj);
    this.emit(r.resource, old, obj);
    return clone(obj);
  }

  async get<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string): Promise<T> {
    const o = this.peek<T>(r, ns, name);
    if (!o) throw newNotFound({ group: r.group, resource: r.resource }, name);
    return o;
  }

  async list<T extends KObject = KObject>(r: ResourceRef, ns: string, opts?: ListOptions): Promise<KList<T>> {
    const f = fieldSelectorMatcher(opts?.fieldSelector);
    const l = labelMatcher(opts?.labelSelector);
    const items = [...this.bucket(r.resource).values()].filter((o) => (!ns || o.metadata.namespace === ns) && f(o) && l(o));
    return {
      apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
      kind: `${r.kind}List`,
      metadata: { resourceVersion: String(this.rv) },
      items: items.map((o) => clone(o) as unknown as T),
    };
  }

  async create<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, _opts?: WriteOptions): Promise<T> {
    const o = clone(obj) as unknown as Obj;
    o.metadata = o.metadata ?? {};
    if (r.namespaced) o.metadata.namespace = ns || o.metadata.namespace || 'default';
    const k = this.key(r, o.metadata.namespace ?? '', o.metadata.name ?? '');
    if (this.bucket(r.resource).has(k)) {
      throw new StatusError(failureStatus(409, 'AlreadyExists', `${r.resource} "${o.metadata.name}" already exists`));
    }
    o.metadata.uid = o.metadata.uid ?? `uid-${o.metadata.name}-${this.rv}`;
    o.metadata.creationTimestamp = o.metadata.creationTimestamp ?? new Date(0).toISOString().replace('.000', '');
    this.writes.push({ verb: 'create', resource: r.resource, namespace: ns, name: o.metadata.name ?? '', body: clone(o) });
    return this.put(r, o, undefined) as unknown as T;
  }

  async update<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, opts?: WriteOptions & { subresource?: string }): Promise<T> {
    const name = obj.metadata?.name ?? '';
    const old = this.bucket(r.resource).get(this.key(r, ns, name));
    if (!old) throw newNotFound({ group: r.group, resource: r.resource }, name);
    if (obj.metadata?.resourceVersion && obj.metadata.resourceVersion !== old.metadata.resourceVersion) {
      throw newConflict({ group: r.group, resource: r.resource }, name);
    }
    this.writes.push({ verb: 'update', resource: r.resource, namespace: ns, name, subresource: opts?.subresource, body: clone(obj) });
    return this.put(r, clone(obj) as unknown as Obj, old) as unknown as T;
  }

  async patch<T extends KObject = KObject>(
    r: ResourceRef,
    ns: string,
    name: string,
    type: PatchType,
    patch: unknown,
    opts?: WriteOptions & { subresource?: string },
  ): Promise<T> {
    const old = this.bucket(r.resource).get(this.key(r, ns, name));
    if (!old) throw newNotFound({ group: r.group, resource: r.resource }, name);
    if (type !== 'merge' && type !== 'strategic') throw new Error(`fake client: ${type} patch not supported`);
    this.writes.push({ verb: 'patch', resource: r.resource, namespace: ns, name, subresource: opts?.subresource, body: clone(patch) });
    let next = applyPatch(old, patch, type === 'strategic') as Obj;
    if (opts?.subresource === 'status') next = { ...clone(old), status: next.status };
    return this.put(r, next, old) as unknown as T;
  }

  async delete(r: ResourceRef, ns: string, name: string, _opts?: DeleteOptions): Promise<KObject> {
    const k = this.key(r, ns, name);
    const old = this.bucket(r.resource).get(k);
    if (!old) throw newNotFound({ group: r.group, resource: r.resource }, name);
    this.bucket(r.resource).delete(k);
    this.writes.push({ verb: 'delete', resource: r.resource, namespace: ns, name });
    const gone = { ...clone(old), metadata: { ...old.metadata, resourceVersion: String(++this.rv) } };
    this.emit(r.resource, gone, undefined);
    return gone;
  }

  async deleteCollection(): Promise<KObject> {
    throw new Error('fake client: deleteCollection not supported');
  }

  /** Supports pods/binding: sets spec.nodeName once, like the API server. */
  async createSubresource<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, sub: string, body: KObject): Promise<T> {
    if (r.resource !== 'pods' || sub !== 'binding') throw new Error(`fake client: ${r.resource}/${sub} not supported`);
    this.writes.push({ verb: 'binding', resource: 'pods', namespace: ns, name, subresource: sub, body: clone(body) });
    if (this.failBindings && this.failBindings.count > 0) {
      this.failBindings.count--;
      throw this.failBindings.error;
    }
    const old = this.bucket('pods').get(`${ns}/${name}`);
    if (!old) throw newNotFound({ group: '', resource: 'pods' }, name);
    const uid = (body.metadata as { uid?: string } | undefined)?.uid;
    if (uid && uid !== old.metadata.uid) throw newConflict({ group: '', resource: 'pods' }, name, 'Precondition failed: UID in precondition');
    const spec = (old.spec ?? {}) as Record<string, unknown>;
    if (spec.nodeName) {
      throw newConflict({ group: '', resource: 'pods' }, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`);
    }
    const target = (body as { target?: { name?: string } }).target?.name ?? '';
    const next = clone(old);
    (next.spec as Record<string, unknown>) = { ...spec, nodeName: target };
    this.put(R_PODS, next, old);
    return { apiVersion: 'v1', kind: 'Status', status: 'Success', code: 201 } as unknown as T;
  }

  watch<T extends KObject = KObject>(r: ResourceRef, ns: string, opts: WatchOptions, onEvent: (e: WatchEvent<T>) => void): WatchHandle {
    let resolve!: () => void;
    const done = new Promise<void>((res) => (resolve = res));
    const f = fieldSelectorMatcher(opts.fieldSelector);
    const l = labelMatcher(opts.labelSelector);
    const w: Watcher = {
      resource: r.resource,
      ns,
      match: (o) => f(o) && l(o),
      onEvent: onEvent as (e: WatchEvent) => void,
      done: resolve,
    };
    this.watchers.add(w);
    return {
      stop: () => {
        this.watchers.delete(w);
        resolve();
      },
      done,
    };
  }

  async raw(): Promise<{ status: number; body: string }> {
    throw new Error('fake client: raw not supported');
  }
}

const R_PODS: ResourceRef = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
