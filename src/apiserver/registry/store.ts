/**
 * The generic REST store (upstream genericregistry.Store): one instance per resource,
 * configured by a ResourceDefinition (data + strategy). Reads are served from the
 * resource's watch cache; writes go to storage with compare-and-swap on the key's
 * modRevision, as upstream's GuaranteedUpdate.
 *
 * Errors: every method rejects with StatusError (NotFound, AlreadyExists, Conflict,
 * Invalid, BadRequest, Expired…).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/registry/generic/registry/store.go
 */
import type { RequestMarks } from '../../trace/request-marks.js';
import type { Obj, ResourceDefinition, StatusStrategy, StrategyContext, UserInfo, ObjectLookup, VersionConverter } from '../../api/resource.js';
import { StatusError, newAlreadyExists, newBadRequest, newConflict, newInvalid, newNotFound, newResourceExpired, newGone } from '../../apimachinery/errors.js';
import { Path, fieldErrorString, type FieldError } from '../../apimachinery/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation.js';
import { CompactedError, FutureRevisionError, KeyExistsError, KeyNotFoundError, RevisionMismatchError, type Storage, type WriteOptions } from '../../storage/interface.js';
import { operationOptions } from '../admission/options.js';
import type { AdmissionAttributes, AdmissionChain, Operation } from '../admission/types.js';
import { wireShaperFor, type WireShaper } from '../../api/wire-shape.js';
import { customResourceSchema } from '../openapi/custom.js';
import { CachedObject, decodeStored, forgetOrigin, thawShared, encodeForStorage, encodeObject, WholeEncoding, type Decoder, type EncodedObject } from './cached-object.js';
import { type ObjectFilter, buildFilter } from './selectors.js';
import { WatchCache } from './watch-cache.js';
import { equalIgnoringManagedFieldsTimestamps } from './equal.js';
import { newUID, generateNameSuffix, rfc3339 } from './meta.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { storageKeyPrefix } from './key-prefix.js';

/** Per-request data for writes. */
export interface WriteContext {
  user: UserInfo;
  dryRun: boolean;
  /** client-visible warnings collected along the way */
  warnings: string[];
  now: Date;
  fieldManager?: string;
  /** the `fieldValidation` query parameter (for the options admission webhooks see) */
  fieldValidation?: string;
  /** the pod creation trace's marks of the request (src/trace) */
  trace?: RequestMarks;
}

export interface ListParams {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  items: CachedObject[];
  resourceVersion: number;
  continue?: string;
  remainingItemCount?: number;
}

export interface DeleteParams {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** Result of a delete: the object when it still exists (graceful / finalizers) or its last state. */
export interface DeleteResult {
  obj: Obj;
  /** true when removed from storage now */
  deleted: boolean;
}

/** Transforms the current object into the desired one (for updates and patches). Throwing aborts. */
export type UpdateFunc = (current: Obj | undefined) => Promise<Obj> | Obj;

export interface StoreOptions {
  storage: Storage;
  admission?: AdmissionChain;
  lookup?: ObjectLookup;
  /** key prefix override (default {@link storageKeyPrefix}: kube-apiserver's, e.g. `/registry/pods/`) */
  keyPrefix?: string;
  /**
   * every object written (created or updated) expires this many seconds after the
   * write, as upstream's TTLFunc (Events: `--event-ttl`)
   * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/event/storage/storage.go
   */
  ttlSeconds?: number;
}

const MAX_CAS_RETRIES = 16;

/** The resource-specific part of a write between the admission phases (see Store.admitPrepareValidate). */
interface WriteStep {
  /** mutates the object into what is stored (strategy prepare, system fields, allocations) */
  prepare(): void | Promise<void>;
  /** field errors of the prepared object; never mutates */
  validate(): FieldError[];
  /** adds the strategy's warnings (after validation passed) */
  warn?: () => void;
  /** refreshes what validating admission sees from the prepared object (a subresource's view) */
  beforeValidatingAdmission?: () => void;
}

/**
 * What admission sees of a subresource write that changes the parent object through
 * another kind (upstream's scale subresource: webhooks and policies get autoscaling/v1
 * Scale objects, not the Deployment).
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/apps/deployment/storage/storage.go (toScaleCreateValidation, toScaleUpdateValidation)
 */
export interface AdmissionView {
  /** the kind admission names (e.g. autoscaling/v1 Scale) */
  kind: { group: string; version: string; kind: string };
  /** the view of a stored object */
  toView(obj: Obj): Obj;
  /** writes what mutating admission changed in the view back into the object */
  fromView(view: Obj, obj: Obj): void;
}

export class Store {
  readonly def: ResourceDefinition;
  readonly prefix: string;
  readonly cache: WatchCache;
  private readonly storage: Storage;
  /** options of every create and update (the TTL) */
  private readonly writeOpts: WriteOptions | undefined;
  private readonly admission?: AdmissionChain;
  private readonly lookup?: ObjectLookup;
  readonly groupResource: { group: string; resource: string };
  readonly groupKind: { group: string; kind: string };
  /** the resource and kind as admission attributes name them (shared by every request; plugins only read them) */
  private readonly gvr: { group: string; version: string; resource: string };
  private readonly gvk: { group: string; version: string; kind: string };
  /** writes in flight by key: the watch cache adopts these objects instead of decoding */
  private readonly writing = new Map<string, { value: string; obj: Obj; enc: EncodedObject; cached?: CachedObject }>();
  /** stored kv → served object (with the definition's storage conversion) */
  readonly decode: Decoder;
  /** served object → stored value */
  readonly encode: (obj: Obj) => string;
  /** served object → stored value and (without storage conversion) its wire JSON for any revision */
  private readonly encodeFull: (obj: Obj) => EncodedObject;
  /** an object being written → upstream's member order and zero-valued required fields (built-in kinds) */
  private readonly wire: WireShaper;
  /**
   * the definition's asynchronous converter (CRD conversion webhooks): the watch cache then
   * holds objects as stored and every read, write and watch event converts (see {@link served})
   */
  readonly converter: VersionConverter | undefined;
  /** `<group>/<version>` of the served objects */
  readonly apiVersion: string;

  constructor(def: ResourceDefinition, opts: StoreOptions) {
    this.def = def;
    this.storage = opts.storage;
    this.writeOpts = opts.ttlSeconds ? { ttlSeconds: opts.ttlSeconds } : undefined;
    this.admission = opts.admission;
    this.lookup = opts.lookup;
    this.prefix = opts.keyPrefix ?? def.storagePrefix ?? storageKeyPrefix(def.group, def.resource);
    this.converter = def.versionConverter;
    this.apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
    const conv = def.storageConversion;
    this.decode = conv
      ? (k, v, r) => {
          const o = conv.fromStored(decodeStored(k, v, r).obj);
          o.metadata.resourceVersion = String(r);
          return new CachedObject(k, o, r);
        }
      : decodeStored;
    this.encode = conv ? (o) => encodeForStorage(conv.toStored(o)) : encodeForStorage;
    this.encodeFull = conv ? (o) => new WholeEncoding(encodeForStorage(conv.toStored(o))) : encodeObject;
    this.wire = wireShaperFor(def.group, def.kind, def.openAPIV3Schema !== undefined || customResourceSchema(def) !== undefined);
    this.groupResource = { group: def.group, resource: def.resource };
    this.groupKind = { group: def.group, kind: def.kind };
    this.gvr = { group: def.group, version: def.version, resource: def.resource };
    this.gvk = { group: def.group, version: def.version, kind: def.kind };
    const attrs = def.fieldSelectorAttrs;
    const field = def.watchIndexField;
    const indexFunc = field && attrs ? (o: CachedObject) => attrs(o.obj)[field] ?? '' : undefined;
    // Objects this store is writing are handed to the watch cache as they are (when the
    // stored text is the one written), instead of being parsed again from storage.
    const decode = this.decode;
    this.cache = new WatchCache(opts.storage, this.prefix, indexFunc, {}, (k, v, r) => {
      const w = this.writing.get(k);
      if (w !== undefined && w.value === v && w.cached === undefined) {
        w.obj.metadata.resourceVersion = String(r);
        w.cached = new CachedObject(k, w.obj, r, w.enc.wire(r));
        return w.cached;
      }
      return decode(k, v, r);
    });
  }

  /** `/registry/pods/<ns>/<name>` or `/registry/minions/<name>` */
  key(ns: string, name: string): string {
    return this.def.namespaced ? `${this.prefix}${ns}/${name}` : `${this.prefix}${name}`;
  }

  /** Prefix for listing a namespace (or everything when ns is ''). */
  listPrefix(ns: string): string {
    return this.def.namespaced && ns ? `${this.prefix}${ns}/` : this.prefix;
  }

  start(): Promise<void> {
    return this.cache.start();
  }

  stop(): void {
    this.cache.stop();
  }

  private ctxFor(user: UserInfo, ns: string, now: Date): StrategyContext {
    return { user, namespace: ns, now: () => now, lookup: this.lookup };
  }

  // ------------------------------------------------------------------ reads

  /**
   * Reads one object: consistent with every acknowledged write, or (`resourceVersion` other
   * than "0") not older than that version.
   * @throws StatusError 404, 400 for a malformed resourceVersion, 504 for a future one
   */
  async get(ns: string, name: string, resourceVersion?: string): Promise<CachedObject> {
    if (resourceVersion && resourceVersion !== '0') await this.waitUntilFresh(this.parseRV(resourceVersion));
    else await this.cache.sync();
    const o = this.cache.get(this.key(ns, name));
    if (!o) throw newNotFound(this.groupResource, name);
    return this.converter === undefined ? o : this.served(o);
  }

  /**
   * `o` (as the watch cache holds it) in this store's version: `o` itself without a
   * {@link converter} or when it is in that version already, else converted.
   * @throws StatusError 500 when the conversion fails
   */
  async served(o: CachedObject): Promise<CachedObject> {
    const c = this.converter;
    if (c === undefined || o.obj.apiVersion === this.apiVersion) return o;
    const [obj] = await c.convert([o.obj], this.apiVersion);
    return new CachedObject(o.key, obj!, o.rv);
  }

  /** {@link served} for many objects, converted in one call (upstream converts a list at once). */
  private async servedAll(items: CachedObject[]): Promise<CachedObject[]> {
    const c = this.converter;
    if (c === undefined) return items;
    const idx: number[] = [];
    for (let i = 0; i < items.length; i++) if (items[i]!.obj.apiVersion !== this.apiVersion) idx.push(i);
    if (idx.length === 0) return items;
    const conv = await c.convert(
      idx.map((i) => items[i]!.obj),
      this.apiVersion,
      this.def.listKind,
    );
    const out = items.slice();
    idx.forEach((i, n) => {
      out[i] = new CachedObject(items[i]!.key, conv[n]!, items[i]!.rv);
    });
    return out;
  }

  /** An object of this store's version in the storage version (unchanged without a converter). */
  private async toStorage(obj: Obj): Promise<Obj> {
    const c = this.converter;
    if (c === undefined || obj.apiVersion === c.storageAPIVersion) return obj;
    const [stored] = await c.convert([obj], c.storageAPIVersion);
    return stored!;
  }

  /** Reads without waiting for freshness; undefined when absent (internal use). */
  peek(ns: string, name: string): CachedObject | undefined {
    return this.cache.get(this.key(ns, name));
  }

  /** Builds the filter for label/field selectors; throws BadRequest on bad selectors. */
  filter(labelSelector?: string, fieldSelector?: string): ObjectFilter {
    return buildFilter(this.def, labelSelector, fieldSelector);
  }

  /**
   * Lists objects. Without limit: from the watch cache (consistent). With limit/continue:
   * pages read from storage at one revision, so every page is from the same snapshot.
   */
  async list(ns: string, p: ListParams): Promise<ListResult> {
    const filter = this.filter(p.labelSelector, p.fieldSelector);
    const limit = p.limit && p.limit > 0 ? p.limit : 0;
    const rvParam = p.resourceVersion;
    if (!limit && !p.continue) {
      if (rvParam && rvParam !== '0') await this.waitUntilFresh(this.parseRV(rvParam));
      else if (rvParam === '0') await this.cache.start();
      else await this.cache.sync();
      const all = this.cache.list(this.listPrefix(ns));
      const items = filter.empty ? all : all.filter((o) => filter.matches(o));
      const resourceVersion = this.cache.resourceVersion;
      return { items: this.converter === undefined ? items : await this.servedAll(items), resourceVersion };
    }
    // paginated: from storage at one revision
    let revision = 0;
    let startAfter: string | undefined;
    const prefix = this.listPrefix(ns);
    if (p.continue) {
      const tok = decodeContinue(p.continue, prefix);
      revision = tok.rv;
      startAfter = tok.startAfter;
    } else if (rvParam && rvParam !== '0' && p.resourceVersionMatch === 'Exact') {
      revision = this.parseRV(rvParam);
    } else if (rvParam && rvParam !== '0') {
      await this.waitUntilFresh(this.parseRV(rvParam));
    }
    const items: CachedObject[] = [];
    let more = false;
    let remaining = 0;
    let lastKey = startAfter;
    try {
      for (;;) {
        const want = limit ? limit - items.length : 0;
        const res = await this.storage.list(prefix, { revision: revision || undefined, limit: want ? Math.max(want, 64) : 0, startAfter: lastKey });
        revision = res.revision;
        let i = 0;
        for (; i < res.kvs.length; i++) {
          const kv = res.kvs[i]!;
          lastKey = kv.key;
          const o = this.decode(kv.key, kv.value, kv.modRevision);
          if (filter.empty || filter.matches(o)) {
            items.push(o);
            if (limit && items.length >= limit) {
              i++;
              break;
            }
          }
        }
        const leftInPage = res.kvs.length - i;
        if (limit && items.length >= limit) {
          more = leftInPage > 0 || res.more;
          remaining = leftInPage + (res.more ? res.remaining : 0);
          break;
        }
        if (!res.more) break;
      }
    } catch (e) {
      if (e instanceof CompactedError) {
        if (p.continue)
          throw newGone(
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
          );
        throw newResourceExpired(`too old resource version: ${revision} (${e.compacted})`);
      }
      if (e instanceof FutureRevisionError) throw newTimeoutTooLarge(e.requested, e.current);
      throw e;
    }
    const res: ListResult = { items: this.converter === undefined ? items : await this.servedAll(items), resourceVersion: revision };
    if (more && lastKey) {
      res.continue = encodeContinue(revision, lastKey, prefix);
      if (filter.empty) res.remainingItemCount = remaining;
    }
    return res;
  }

  /**
   * Waits until the cache is at `rv` or later, at most 3 s (upstream watch cache
   * waitUntilFreshAndBlock).
   * @throws StatusError 504 `Timeout: Too large resource version: <rv>, current: <current>`
   */
  private async waitUntilFresh(rv: number): Promise<void> {
    await this.cache.sync();
    const deadline = performance.now() + FRESHNESS_TIMEOUT_MS;
    while (this.cache.resourceVersion < rv) {
      if (performance.now() >= deadline) throw newTimeoutTooLarge(rv, this.cache.resourceVersion);
      await new Promise((r) => setTimeout(r, 50));
      await this.cache.sync();
    }
  }

  private parseRV(rv: string): number {
    const n = Number(rv);
    if (!Number.isInteger(n) || n < 0) throw newBadRequest(`invalid resource version: ${rv}`); // reason text as upstream's versioner
    return n;
  }

  // ------------------------------------------------------------------ writes

  /**
   * Creates an object (upstream Store.Create with rest.BeforeCreate). `obj` was decoded
   * from the request and defaulted; it is mutated and returned as stored.
   */
  async create(ns: string, obj: Obj, wc: WriteContext): Promise<CachedObject> {
    const def = this.def;
    const meta = obj.metadata;
    const sctx = this.ctxFor(wc.user, ns, wc.now);
    if (def.namespaced) meta.namespace = ns;
    else delete meta.namespace;
    if (meta.resourceVersion) throw newBadRequest('resourceVersion should not be set on objects to be created');

    // rest.BeforeCreate, between the two admission phases
    const attrs = this.admissionAttributes('CREATE', obj, undefined, ns, wc);
    await this.admitPrepareValidate(obj, attrs, {
      prepare: async () => {
        delete meta.deletionTimestamp;
        delete meta.deletionGracePeriodSeconds;
        dropEmptyMetadata(meta);
        def.prepareForCreate?.(obj, sctx);
        meta.uid = newUID();
        meta.creationTimestamp = rfc3339(wc.now);
        if (meta.generateName && !meta.name) meta.name = meta.generateName + generateNameSuffix();
        // allocations (ClusterIPs, NodePorts) happen before validation, as upstream's BeginCreate
        const beforeCreate = def.hooks?.beforeCreate;
        if (beforeCreate !== undefined) await beforeCreate(obj, sctx);
      },
      // ObjectMeta's errors first, as every upstream strategy's Validate starts with ValidateObjectMeta
      validate: () => uniqueErrors([...validateObjectMeta(meta, def.namespaced, this.nameValidator, Path.root('metadata')), ...(def.validate?.(obj, sctx) ?? [])]),
      warn: def.warningsOnCreate && (() => wc.warnings.push(...def.warningsOnCreate!(obj, sctx))),
    });
    obj = this.wire(obj);
    if (wc.dryRun) return new CachedObject(this.key(ns, meta.name!), obj, 0);
    const key = this.key(ns, meta.name!);
    try {
      const storedObj = this.converter === undefined ? obj : await this.toStorage(obj);
      const enc = this.encodeFull(storedObj);
      wc.trace?.committing(obj);
      const kv = await this.write(key, storedObj, enc, (v) => this.storage.create(key, v, this.writeOpts));
      const stored = this.adopt(key, storedObj, kv.modRevision, enc);
      const afterCreate = def.hooks?.afterCreate;
      if (afterCreate !== undefined) await afterCreate(obj, sctx);
      return this.converter === undefined ? stored : await this.served(stored);
    } catch (e) {
      wc.trace?.aborted();
      if (e instanceof KeyExistsError) throw newAlreadyExists(this.groupResource, meta.name!);
      throw e;
    }
  }

  /**
   * The one order of every create, update and patch, after the handler decoded the body
   * and applied the resource's defaults (upstream's create/update handlers around
   * rest.BeforeCreate/BeforeUpdate): admission mutates → the strategy prepares the object
   * (`step.prepare`: prepareForCreate/Update, system fields, the before-hooks'
   * allocations) → validation (`step.validate`: ObjectMeta's, then the strategy's) →
   * warnings → canonical form → admission validates. The caller then writes to storage.
   * @throws StatusError from admission (Forbidden, NotFound…) or 422 Invalid from validation
   */
  private async admitPrepareValidate(obj: Obj, attrs: AdmissionAttributes | undefined, step: WriteStep): Promise<void> {
    if (attrs !== undefined) await this.admission!.admit(attrs);
    await step.prepare();
    // what admission and the strategy copied from stored objects (shared, frozen) becomes mutable
    thawShared(obj);
    const errs = step.validate();
    if (errs.length) throw newInvalid(this.groupKind, obj.metadata.name ?? '', errs);
    attrs?.trace?.mark('Validation');
    step.warn?.();
    this.def.canonicalize?.(obj);
    step.beforeValidatingAdmission?.();
    if (attrs !== undefined) {
      attrs.name = obj.metadata.name ?? ''; // a create may have set it from generateName meanwhile
      await this.admission!.validate(attrs);
    }
  }

  /**
   * Runs a storage write while announcing the object to the watch cache, so the cache
   * shares it (and its JSON) with the response instead of parsing the stored text.
   */
  private async write<R>(key: string, obj: Obj, enc: EncodedObject, op: (value: string) => Promise<R>): Promise<R> {
    const entry = { value: enc.stored, obj, enc };
    this.writing.set(key, entry);
    try {
      return await op(entry.value);
    } finally {
      if (this.writing.get(key) === entry) this.writing.delete(key);
      forgetOrigin(obj);
    }
  }

  /** The CachedObject for a completed write: the one the cache adopted, or a new one. */
  private adopt(key: string, obj: Obj, rev: number, enc: EncodedObject): CachedObject {
    const c = this.cache.get(key);
    if (c && c.rv === rev && c.obj === obj) return c;
    // once adopted (even if a later write replaced it since), the cache has set the
    // resourceVersion and may have frozen the object for its in-process watchers
    const rvText = String(rev);
    if (obj.metadata.resourceVersion !== rvText) obj.metadata.resourceVersion = rvText;
    return new CachedObject(key, obj, rev, enc.wire(rev));
  }

  /** {@link validateName} bound once (validateObjectMeta takes it as a callback) */
  private readonly nameValidator = (name: string, prefix: boolean): string[] => this.validateName(name, prefix);

  private validateName(name: string, prefix: boolean): string[] {
    if (this.def.validateName) return this.def.validateName(name, prefix);
    return defaultNameValidation(name, prefix);
  }

  /**
   * Updates an object through `tryUpdate` with compare-and-swap retries (upstream
   * GuaranteedUpdate). `subresource` 'status' applies the status strategy. When the
   * object is absent and the definition allows create-on-update, `tryUpdate(undefined)`
   * produces the object to create.
   *
   * A resourceVersion in the object `tryUpdate` returns is a precondition (409 Conflict
   * when stale); without one the write retries on conflicts (patches, status updates).
   * @param opts.unconditional allow objects without resourceVersion even when the
   * definition requires one for updates (patches: the patch is re-applied on conflict)
   * @param opts.createIfMissing create when absent (server-side apply)
   * @param opts.strategy the update strategy of a subresource the definition does not
   *   declare (pods/ephemeralcontainers, served by a custom handler)
   * @param opts.admissionView what admission sees instead of the object (the scale subresource's Scale)
   * @returns the stored object and whether it was created
   */
  async update(
    ns: string,
    name: string,
    tryUpdate: UpdateFunc,
    wc: WriteContext,
    subresource = '',
    opts: { unconditional?: boolean; createIfMissing?: boolean; strategy?: StatusStrategy; admissionView?: AdmissionView } = {},
  ): Promise<{ obj: CachedObject; created: boolean }> {
    const def = this.def;
    const key = this.key(ns, name);
    const sctx = this.ctxFor(wc.user, ns, wc.now);
    await this.cache.sync();
    let current = this.cache.get(key);
    for (let attempt = 0; ; attempt++) {
      if (!current) {
        if ((!def.allowCreateOnUpdate && !opts.createIfMissing) || subresource) throw newNotFound(this.groupResource, name);
        const obj = await tryUpdate(undefined);
        if (obj.metadata.resourceVersion) {
          // the object was deleted meanwhile: upstream reports a conflict-like NotFound
          throw newNotFound(this.groupResource, name);
        }
        obj.metadata.name = name;
        return { obj: await this.create(ns, obj, wc), created: true };
      }
      // with a converter the cache holds the stored form: the update works on this version's
      const served = this.converter === undefined ? current : await this.served(current);
      const old = served.obj;
      let obj = await tryUpdate(served.clone());
      const meta = obj.metadata;
      if (meta.name !== undefined && meta.name !== name) {
        throw newBadRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
      }
      meta.name = name;
      if (def.namespaced) meta.namespace = ns;
      // "0" is no version as well (upstream's versioner parses both to 0)
      const rv = meta.resourceVersion === '0' ? undefined : meta.resourceVersion;
      if (rv === undefined || rv === '') {
        if (!def.allowUnconditionalUpdate && !subresource && !opts.unconditional) {
          // upstream names the resource where the kind goes: `deployments.apps "x" is invalid`
          throw newInvalid({ group: def.group, kind: def.resource }, name, [
            { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', badValue: 0, detail: 'must be specified for an update' },
          ]);
        }
      } else if (rv !== String(current.rv)) {
        throw newConflict(this.groupResource, name);
      }
      meta.resourceVersion = String(current.rv);
      if (meta.uid && meta.uid !== old.metadata.uid) {
        throw newConflict(this.groupResource, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
      }
      // system fields the client cannot change
      meta.uid = old.metadata.uid;
      meta.creationTimestamp = old.metadata.creationTimestamp;
      if (old.metadata.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
      else delete meta.deletionTimestamp;
      if (old.metadata.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
      else delete meta.deletionGracePeriodSeconds;
      if (meta.generateName === undefined && old.metadata.generateName) meta.generateName = old.metadata.generateName;
      dropEmptyMetadata(meta);

      // rest.BeforeUpdate (or the subresource's strategy), between the two admission phases
      const view = opts.admissionView;
      const attrs = view
        ? this.admissionAttributes('UPDATE', view.toView(obj), view.toView(old), ns, wc, subresource, undefined, view.kind)
        : this.admissionAttributes('UPDATE', obj, old, ns, wc, subresource);
      const metaErrs = (): FieldError[] => validateObjectMetaUpdate(meta, old.metadata, Path.root('metadata'));
      const subStrategy = opts.strategy ?? (subresource === 'status' ? def.status : subresource ? def.subresourceStrategies?.[subresource] : undefined);
      const step: WriteStep = subStrategy
        ? {
            prepare: () => subStrategy.prepareForUpdate(obj, old, sctx),
            validate: () => uniqueErrors([...metaErrs(), ...(subStrategy.validateUpdate?.(obj, old, sctx) ?? [])]),
          }
        : {
            prepare: async () => {
              def.prepareForUpdate?.(obj, old, sctx);
              await def.hooks?.beforeUpdate?.(obj, old, sctx);
            },
            validate: () => uniqueErrors([...metaErrs(), ...(def.validateUpdate?.(obj, old, sctx) ?? [])]),
            warn: def.warningsOnUpdate && (() => wc.warnings.push(...def.warningsOnUpdate!(obj, old, sctx))),
          };
      if (view && attrs) {
        const prepare = step.prepare;
        step.prepare = () => {
          if (attrs.object) view.fromView(attrs.object, obj);
          return prepare();
        };
        step.beforeValidatingAdmission = () => {
          attrs.object = view.toView(obj);
        };
      }
      await this.admitPrepareValidate(obj, attrs, step);

      meta.resourceVersion = String(current.rv);
      // no-op updates are not written (upstream compares the encoded bytes, which are in
      // Go struct order: here the same members may come in another order), and changes of
      // managedFields timestamps alone are no changes (IgnoreManagedFieldsTimestampsTransformer)
      // (an object stored in an older version is written again: upstream compares the encoded
      // bytes, so a no-op update migrates it to the storage version)
      if (equalIgnoringManagedFieldsTimestamps(obj, old) && (this.converter === undefined || current.obj.apiVersion === this.converter.storageAPIVersion)) {
        return { obj: served, created: false };
      }
      obj = this.wire(obj);
      const storedObj = this.converter === undefined ? obj : await this.toStorage(obj);
      const enc = this.encodeFull(storedObj);
      if (wc.dryRun) return { obj: new CachedObject(key, obj, current.rv), created: false };
      // finalizers emptied on an object being deleted with zero grace: remove it now
      const finalize =
        (!!meta.deletionTimestamp && !meta.finalizers?.length && (meta.deletionGracePeriodSeconds ?? 0) === 0 && !def.shouldDeleteDuringUpdate) ||
        !!def.shouldDeleteDuringUpdate?.(obj, old);
      try {
        if (finalize) {
          const kv = await this.storage.delete(key, current.rv);
          obj.metadata.resourceVersion = String(kv.modRevision);
          await def.hooks?.afterDelete?.(obj, sctx);
          return { obj: new CachedObject(key, obj, kv.modRevision), created: false };
        }
        const rev = current.rv;
        const kv = await this.write(key, storedObj, enc, (v) => this.storage.update(key, v, rev, this.writeOpts));
        const adopted = this.adopt(key, storedObj, kv.modRevision, enc);
        return { obj: this.converter === undefined ? adopted : await this.served(adopted), created: false };
      } catch (e) {
        if (e instanceof RevisionMismatchError) {
          if (rv) throw newConflict(this.groupResource, name);
          if (attempt >= MAX_CAS_RETRIES) throw newConflict(this.groupResource, name);
          current = this.decode(key, e.current.value, e.current.modRevision);
          continue;
        }
        if (e instanceof KeyNotFoundError) {
          current = undefined;
          if (rv) throw newNotFound(this.groupResource, name);
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * Raw compare-and-swap update that bypasses strategy and admission (for subresources
   * like pods/binding that upstream writes straight to storage). `fn` gets a mutable copy:
   * a deep one, or what `copy` makes of the stored object (which it must not change) — a
   * writer that changes a few known members copies just the objects on their paths and
   * shares the rest with the stored object (immutable once stored, see {@link CachedObject}).
   * @throws StatusError NotFound, or whatever `fn` throws
   */
  async guaranteedUpdate(ns: string, name: string, fn: (obj: Obj) => Obj, dryRun = false, copy?: (stored: Obj) => Obj): Promise<CachedObject> {
    const key = this.key(ns, name);
    await this.cache.sync();
    let current = this.cache.get(key);
    for (let attempt = 0; ; attempt++) {
      if (!current) throw newNotFound(this.groupResource, name);
      const obj = this.wire(fn(copy === undefined ? current.clone() : copy(current.obj)));
      if (dryRun) return new CachedObject(key, obj, current.rv);
      try {
        const rev = current.rv;
        const enc = this.encodeFull(obj);
        const kv = await this.write(key, obj, enc, (v) => this.storage.update(key, v, rev, this.writeOpts));
        return this.adopt(key, obj, kv.modRevision, enc);
      } catch (e) {
        if (e instanceof RevisionMismatchError && attempt < MAX_CAS_RETRIES) {
          current = this.decode(key, e.current.value, e.current.modRevision);
          continue;
        }
        if (e instanceof KeyNotFoundError) throw newNotFound(this.groupResource, name);
        throw e;
      }
    }
  }

  /**
   * Deletes an object (upstream Store.Delete): preconditions, graceful deletion
   * (deletionTimestamp + deletionGracePeriodSeconds) where the strategy asks for it,
   * finalizers keep the object until they are removed.
   */
  async delete(ns: string, name: string, p: DeleteParams, wc: WriteContext): Promise<DeleteResult> {
    const r = await this.deleteStored(ns, name, p, wc);
    const c = this.converter;
    if (c === undefined || r.obj.apiVersion === this.apiVersion) return r;
    const [obj] = await c.convert([r.obj], this.apiVersion);
    return { obj: obj!, deleted: r.deleted };
  }

  /** {@link delete} on the object as stored (the result is converted by the caller). */
  private async deleteStored(ns: string, name: string, p: DeleteParams, wc: WriteContext): Promise<DeleteResult> {
    const def = this.def;
    const key = this.key(ns, name);
    const sctx = this.ctxFor(wc.user, ns, wc.now);
    await this.cache.sync();
    let current = this.cache.get(key);
    for (let attempt = 0; ; attempt++) {
      if (!current) throw newNotFound(this.groupResource, name);
      const old = current.obj;
      const pre = p.preconditions;
      if (pre?.uid && pre.uid !== old.metadata.uid) {
        throw newConflict(this.groupResource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== String(current.rv)) {
        throw newConflict(this.groupResource, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.rv}`);
      }
      const oldServed = this.admission && this.converter ? (await this.served(current)).obj : old;
      const attrs = this.admissionAttributes('DELETE', undefined, oldServed, ns, wc, '', p);
      if (attrs !== undefined) {
        await this.admission!.admit(attrs);
        await this.admission!.validate(attrs);
      }

      if (def.deleteStep) {
        const step = def.deleteStep(old, p, wc.now);
        if (step.kind === 'keep') return { obj: old, deleted: false };
        if (step.kind === 'update') {
          let obj = thawShared(step.obj);
          // the propagation policy's finalizers apply to a strategy's own first step too
          // (namespaces, CRDs), as upstream's stores do before updating
          const gcFinalizers = deletionFinalizersForGarbageCollection(def, obj.metadata.finalizers, p.propagationPolicy);
          if (gcFinalizers) {
            if (gcFinalizers.length) obj.metadata.finalizers = gcFinalizers;
            else delete obj.metadata.finalizers;
          }
          obj = this.wire(obj);
          if (wc.dryRun) return { obj, deleted: false };
          try {
            const kv = await this.storage.update(key, this.encode(obj), current.rv, this.writeOpts);
            obj.metadata.resourceVersion = String(kv.modRevision);
            return { obj, deleted: false };
          } catch (e) {
            if (e instanceof RevisionMismatchError && attempt < MAX_CAS_RETRIES) {
              current = this.decode(key, e.current.value, e.current.modRevision);
              continue;
            }
            if (e instanceof KeyNotFoundError) throw newNotFound(this.groupResource, name);
            throw e;
          }
        }
      }
      let grace: number | undefined = def.checkGracefulDelete?.(old, p);
      if (grace !== undefined && grace <= 0) grace = undefined;
      const already = old.metadata.deletionTimestamp;
      // a graceful deletion under way keeps its finalizers (upstream pendingGraceful)
      const pendingGraceful = !!already && (old.metadata.deletionGracePeriodSeconds ?? 0) > 0;
      const gcFinalizers = pendingGraceful ? undefined : deletionFinalizersForGarbageCollection(def, old.metadata.finalizers, p.propagationPolicy);
      const hasFinalizers = ((gcFinalizers ?? old.metadata.finalizers)?.length ?? 0) > 0;
      if (grace !== undefined || hasFinalizers) {
        // graceful path: set (or shorten) deletionTimestamp and keep the object
        let obj = current.clone();
        const m = obj.metadata;
        if (gcFinalizers) {
          if (gcFinalizers.length) m.finalizers = gcFinalizers;
          else delete m.finalizers;
        }
        const g = grace ?? 0;
        if (already) {
          const curGrace = m.deletionGracePeriodSeconds ?? 0;
          if (grace !== undefined && g < curGrace) {
            m.deletionGracePeriodSeconds = g;
            m.deletionTimestamp = rfc3339(new Date(wc.now.getTime() + g * 1000));
          } else if (grace === undefined && !hasFinalizers) {
            // immediate deletion of an object already terminating
          } else if (!gcFinalizers) {
            return { obj: old, deleted: false };
          }
        } else {
          m.deletionTimestamp = rfc3339(new Date(wc.now.getTime() + g * 1000));
          m.deletionGracePeriodSeconds = g;
        }
        if (grace !== undefined || hasFinalizers) {
          obj = this.wire(obj);
          if (wc.dryRun) return { obj, deleted: false };
          try {
            const kv = await this.storage.update(key, this.encode(obj), current.rv, this.writeOpts);
            obj.metadata.resourceVersion = String(kv.modRevision);
            return { obj, deleted: false };
          } catch (e) {
            if (e instanceof RevisionMismatchError && attempt < MAX_CAS_RETRIES) {
              current = this.decode(key, e.current.value, e.current.modRevision);
              continue;
            }
            if (e instanceof KeyNotFoundError) throw newNotFound(this.groupResource, name);
            throw e;
          }
        }
      }
      if (wc.dryRun) return { obj: old, deleted: true };
      try {
        const kv = await this.storage.delete(key, current.rv);
        const obj = current.clone();
        obj.metadata.resourceVersion = String(kv.modRevision);
        await def.hooks?.afterDelete?.(obj, sctx);
        return { obj, deleted: true };
      } catch (e) {
        if (e instanceof RevisionMismatchError && attempt < MAX_CAS_RETRIES) {
          current = this.decode(key, e.current.value, e.current.modRevision);
          continue;
        }
        if (e instanceof KeyNotFoundError) throw newNotFound(this.groupResource, name);
        throw e;
      }
    }
  }

  /**
   * Both admission phases for a request whose object is not this resource's: a
   * subresource create (pods/binding, pods/eviction, serviceaccounts/token: the Binding,
   * Eviction, TokenRequest) or a CONNECT (pods/exec, attach, portforward: the
   * PodExecOptions, PodAttachOptions, PodPortForwardOptions), as upstream's create and
   * connect handlers admit the request's own object. Mutating plugins change `r.object`
   * in place; their warnings go to `r.warnings`.
   * @throws StatusError the denial of a plugin, webhook or policy
   * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/rest.go (ConnectResource)
   */
  async admitRequest(r: {
    operation: 'CREATE' | 'CONNECT';
    namespace: string;
    name: string;
    subresource: string;
    kind: { group: string; version: string; kind: string };
    object: Obj;
    user: UserInfo;
    dryRun?: boolean;
    warnings?: string[];
    /** the resource admission names, when not this store's (the legacy `bindings` resource) */
    resource?: { group: string; version: string; resource: string };
  }): Promise<void> {
    if (!this.admission) return;
    const dryRun = r.operation === 'CONNECT' ? false : !!r.dryRun;
    const attrs: AdmissionAttributes = {
      operation: r.operation,
      resource: r.resource ?? this.gvr,
      kind: r.kind,
      subresource: r.subresource,
      namespace: this.def.namespaced ? r.namespace : '',
      name: r.name,
      object: r.object,
      oldObject: undefined,
      user: r.user,
      dryRun,
      warnings: r.warnings ?? [],
      options: operationOptions(r.operation, { dryRun }),
      requestLookup: undefined,
    };
    await this.admission.admit(attrs);
    await this.admission.validate(attrs);
  }

  /**
   * The admission attributes of one write, given to both phases (so their lookups are
   * shared); undefined without an admission chain.
   */
  private admissionAttributes(
    op: Operation,
    obj: Obj | undefined,
    old: Obj | undefined,
    ns: string,
    wc: WriteContext,
    subresource = '',
    del?: DeleteParams,
    kind: { group: string; version: string; kind: string } = this.gvk,
  ): AdmissionAttributes | undefined {
    if (!this.admission) return undefined;
    return {
      operation: op,
      resource: this.gvr,
      kind,
      subresource,
      namespace: this.def.namespaced ? ns : '',
      name: obj?.metadata.name ?? old?.metadata.name ?? '',
      object: obj,
      oldObject: old,
      user: wc.user,
      dryRun: wc.dryRun,
      warnings: wc.warnings,
      options: operationOptions(op, wc, del),
      requestLookup: undefined,
      trace: wc.trace,
    };
  }
}

/** How long a read at a future resourceVersion waits for it (upstream blockTimeout). */
const FRESHNESS_TIMEOUT_MS = 3000;

/**
 * 504 for a resourceVersion beyond the current one (upstream NewTooLargeResourceVersionError).
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/errors.go
 */
function newTimeoutTooLarge(rv: number, current: number): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Timeout: Too large resource version: ${rv}, current: ${current}`,
    reason: 'Timeout',
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    code: 504,
  });
}

/** DNS-1123 subdomain name check used when a definition has no validateName. */
function defaultNameValidation(name: string, prefix: boolean): string[] {
  return nameIsDNSSubdomain(name, prefix);
}

/** Finalizer asking the garbage collector to orphan the dependents before the owner goes. */
export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
/** Finalizer asking the garbage collector to delete the dependents before the owner goes. */
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/** Upstream rest.GarbageCollectionPolicy of a strategy. */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/**
 * The default garbage collection policy of a resource (upstream strategies'
 * DefaultGarbageCollectionPolicy): core/v1 ReplicationControllers and batch/v1 Jobs
 * orphan their dependents for backward compatibility, Events do not take part, all else
 * deletes dependents.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/batch/job/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/replicationcontroller/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/event/strategy.go
 */
export function defaultGarbageCollectionPolicy(def: { group: string; version: string; resource: string }): GarbageCollectionPolicy {
  if (def.resource === 'events' && (def.group === '' || def.group === 'events.k8s.io')) return 'Unsupported';
  if (def.group === '' && def.version === 'v1' && def.resource === 'replicationcontrollers') return 'OrphanDependents';
  if (def.group === 'batch' && def.version === 'v1' && def.resource === 'jobs') return 'OrphanDependents';
  return 'DeleteDependents';
}

/**
 * The finalizers an object gets when deleted with `policy` (upstream
 * deletionFinalizersForGarbageCollection): `orphan` for Orphan (or no policy, an existing
 * `orphan` finalizer, or a default of OrphanDependents), `foregroundDeletion` for Foreground
 * (or no policy and an existing `foregroundDeletion` finalizer); Background removes both.
 * @returns the new finalizer list, or undefined when it stays as it is
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/registry/generic/registry/store.go (shouldOrphanDependents, shouldDeleteDependents)
 */
export function deletionFinalizersForGarbageCollection(
  def: { group: string; version: string; resource: string },
  finalizers: readonly string[] | undefined,
  policy: 'Orphan' | 'Background' | 'Foreground' | undefined,
): string[] | undefined {
  const gc = defaultGarbageCollectionPolicy(def);
  if (gc === 'Unsupported') return undefined;
  const cur = finalizers ?? [];
  const firstGC = cur.find((f) => f === FINALIZER_ORPHAN_DEPENDENTS || f === FINALIZER_DELETE_DEPENDENTS);
  let orphan: boolean;
  let foreground: boolean;
  if (policy) {
    orphan = policy === 'Orphan';
    foreground = policy === 'Foreground';
  } else if (firstGC) {
    orphan = firstGC === FINALIZER_ORPHAN_DEPENDENTS;
    foreground = !orphan;
  } else {
    orphan = gc === 'OrphanDependents';
    foreground = false;
  }
  const next = cur.filter((f) => f !== FINALIZER_ORPHAN_DEPENDENTS && f !== FINALIZER_DELETE_DEPENDENTS);
  if (orphan) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (foreground) next.push(FINALIZER_DELETE_DEPENDENTS);
  const a = new Set(cur);
  const b = new Set(next);
  if (a.size === b.size && [...a].every((f) => b.has(f))) return undefined;
  return next;
}

/**
 * Removes empty labels, annotations, finalizers, ownerReferences and managedFields, as
 * upstream's serialization does (these ObjectMeta fields are `omitempty`): an emptied map or
 * list reads back as absent, e.g. after a patch removed the last label.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/apis/meta/v1/types.go
 */
export function dropEmptyMetadata(meta: { labels?: object; annotations?: object; finalizers?: unknown[]; ownerReferences?: unknown[]; managedFields?: unknown[] }): void {
  if (meta.labels && Object.keys(meta.labels).length === 0) delete meta.labels;
  if (meta.annotations && Object.keys(meta.annotations).length === 0) delete meta.annotations;
  if (meta.finalizers?.length === 0) delete meta.finalizers;
  if (meta.ownerReferences?.length === 0) delete meta.ownerReferences;
  if (meta.managedFields?.length === 0) delete meta.managedFields;
}

/**
 * The errors without repeats (same type, field and detail), first one kept: a strategy that
 * validates ObjectMeta itself (pods) and the store's generic check report it once, as
 * upstream, where the generic check runs only when the strategy found nothing.
 */
function uniqueErrors(errs: FieldError[]): FieldError[] {
  if (errs.length < 2) return errs;
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = fieldErrorString(e);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
