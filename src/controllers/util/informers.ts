/**
 * Shared informers for the controller manager (one list+watch per resource, shared by
 * every controller, as client-go's SharedInformerFactory) and secondary indexes over an
 * informer's store (client-go's Indexer): e.g. pods by namespace or by controller UID.
 *
 * @see https://github.com/kubernetes/client-go/blob/master/informers/factory.go
 * @see https://github.com/kubernetes/client-go/blob/master/tools/cache/index.go
 */
import type { KObject } from '../../api/resource.js';
import { Informer, keyOf } from '../../client/informer.js';
import type { Client, ResourceRef } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';

/** One informer per resource; informers asked for after `start()` start at once. */
export class SharedInformers {
  private readonly informers = new Map<string, Informer>();
  private started = false;

  /** @param opts.clock the clock of the informers' retry timers (default: the process clock) */
  constructor(
    private readonly client: Client,
    private readonly opts: { clock?: Clock } = {},
  ) {}

  /** The shared informer for `ref` (all namespaces). */
  get<T extends KObject = KObject>(ref: ResourceRef): Informer<T> {
    const k = `${ref.group}/${ref.version}/${ref.resource}`;
    let inf = this.informers.get(k);
    if (!inf) {
      inf = new Informer(this.client, ref, { clock: this.opts.clock });
      this.informers.set(k, inf);
      if (this.started) inf.start();
    }
    return inf as unknown as Informer<T>;
  }

  /**
   * Stops and forgets the informer for `ref` (a resource no longer served, e.g. a deleted
   * CustomResourceDefinition's: its list+watch would otherwise retry every second for
   * good). Handlers added to it are dropped; a later `get` starts a fresh one.
   */
  remove(ref: ResourceRef): void {
    const k = `${ref.group}/${ref.version}/${ref.resource}`;
    this.informers.get(k)?.stop();
    this.informers.delete(k);
  }

  start(): void {
    this.started = true;
    for (const i of this.informers.values()) i.start();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }
}

/** An index function: the index values of an object (e.g. its namespace). */
type IndexFunc<T> = (obj: T) => readonly string[];

/** A secondary index over an informer's objects, kept current by its events. */
export class Index<T extends KObject> {
  private readonly byValue = new Map<string, Map<string, T>>();
  private readonly valuesOf = new Map<string, readonly string[]>();

  constructor(
    informer: Informer<T>,
    private readonly fn: IndexFunc<T>,
  ) {
    informer.addEventHandler({
      add: (o) => this.put(o),
      update: (_old, o) => this.put(o),
      delete: (o) => this.remove(keyOf(o)),
    });
  }

  private put(o: T): void {
    const k = keyOf(o);
    this.remove(k);
    const vals = this.fn(o);
    this.valuesOf.set(k, vals);
    for (const v of vals) {
      let m = this.byValue.get(v);
      if (!m) {
        m = new Map();
        this.byValue.set(v, m);
      }
      m.set(k, o);
    }
  }

  private remove(k: string): void {
    const vals = this.valuesOf.get(k);
    if (!vals) return;
    this.valuesOf.delete(k);
    for (const v of vals) {
      const m = this.byValue.get(v);
      if (!m) continue;
      m.delete(k);
      if (m.size === 0) this.byValue.delete(v);
    }
  }

  /** The objects with index value `v` (a fresh array). */
  get(v: string): T[] {
    const m = this.byValue.get(v);
    return m ? [...m.values()] : [];
  }
}

/** Index function: the object's namespace. */
export const byNamespace = <T extends KObject>(o: T): readonly string[] => [o.metadata?.namespace ?? ''];

/** Index function: the UID of the object's controlling owner, if any. */
export const byControllerUID = <T extends KObject>(o: T): readonly string[] => {
  const ref = o.metadata?.ownerReferences?.find((r) => r.controller);
  return ref?.uid ? [ref.uid] : [];
};
