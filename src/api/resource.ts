/**
 * What a resource is to the API server: data (group/version/kind, names, scope) plus a
 * strategy (defaults, prepareForCreate/Update, validate, table printing, field
 * selectors). The generic REST store in `src/apiserver/registry` serves every resource
 * from one of these; adding a resource = adding a folder under `src/api/` that exports a
 * `ResourceDefinition` and listing it in `src/api/all.ts`.
 *
 * Order on create (upstream rest.BeforeCreate): defaults → prepareForCreate → validate →
 * (ObjectMeta validation, done by the store) → canonicalize. On update: defaults →
 * prepareForUpdate → validateUpdate → canonicalize.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/registry/rest/create.go
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/registry/generic/registry/store.go
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { FieldError } from '../apimachinery/field-errors.js';

/** kubernetes-types marks server-set fields readonly; the server sets them. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** ObjectMeta as the server handles it (system fields writable). */
export type MutableObjectMeta = Mutable<ObjectMeta>;

/** Any Kubernetes object as JSON. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata?: MutableObjectMeta;
  [k: string]: unknown;
}

/** The object with metadata guaranteed (what the store hands to strategies). */
export type Obj<T extends KObject = KObject> = T & { metadata: MutableObjectMeta };

/** Request-scoped information a strategy may use. */
export interface StrategyContext {
  /** the authenticated user */
  user: UserInfo;
  /** namespace from the URL ('' for cluster-scoped) */
  namespace: string;
  /** wall clock (injectable for tests) */
  now(): Date;
  /** read access to other resources (e.g. a Service looking at its Endpoints) */
  lookup?: ObjectLookup;
}

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Read-only access to stored objects for strategies and admission. */
export interface ObjectLookup {
  get(resource: GroupVersionResource, namespace: string, name: string): Promise<KObject | undefined>;
  list(resource: GroupVersionResource, namespace: string): Promise<KObject[]>;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** meta.k8s.io/v1 TableColumnDefinition */
export interface TableColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/** Server-side printing (upstream pkg/printers/internalversion). `cells` align with `columns`. */
export interface TablePrinter<T extends KObject = KObject> {
  columns: TableColumnDefinition[];
  /** One row's cells for one object. `now` for ages. May return several rows for one object (rare). */
  cells(obj: Obj<T>, now: Date): unknown[];
  /**
   * The order of a list's rows when it is not the storage order (upstream's list printers
   * that sort, e.g. FlowSchemas by matching precedence). Negative: `a` first.
   */
  listOrder?(a: Obj<T>, b: Obj<T>): number;
}

/** Options of a DELETE the strategy sees. */
export interface DeleteOptionsLike {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

/** Status subresource strategy: the same store, a strategy that keeps the old spec. */
export interface StatusStrategy<T extends KObject = KObject> {
  /** copy what status updates must not change (spec, most metadata) from `old` into `obj` */
  prepareForUpdate(obj: Obj<T>, old: Obj<T>, ctx: StrategyContext): void;
  validateUpdate?(obj: Obj<T>, old: Obj<T>, ctx: StrategyContext): FieldError[];
}

/** Extra work around storage writes (e.g. ClusterIP allocation). Errors thrown are StatusErrors. */
export interface StoreHooks<T extends KObject = KObject> {
  beforeCreate?(obj: Obj<T>, ctx: StrategyContext): Promise<void>;
  afterCreate?(obj: Obj<T>, ctx: StrategyContext): Promise<void>;
  beforeUpdate?(obj: Obj<T>, old: Obj<T>, ctx: StrategyContext): Promise<void>;
  afterDelete?(obj: Obj<T>, ctx: StrategyContext): Promise<void>;
}

export type DeleteStep<T extends KObject = KObject> = { kind: 'update'; obj: Obj<T> } | { kind: 'keep' } | { kind: 'delete' };

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * Converts objects between the versions of one resource (upstream's CR converter).
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/conversion/converter.go
 */
export interface VersionConverter {
  /** the `apiVersion` new writes are stored in (`<group>/<storage version>`) */
  readonly storageAPIVersion: string;
  /**
   * Returns `objs` in `apiVersion`, in the same order: objects already in it are returned
   * as they are, the others converted (in one call). Never mutates `objs`.
   * @throws StatusError when the conversion fails (upstream's `conversion webhook for … failed: …`)
   */
  convert(objs: readonly Obj[], apiVersion: string, listKind?: string): Promise<Obj[]>;
}

export interface ResourceDefinition<T extends KObject = KObject> {
  group: string; // '' for core
  version: string;
  kind: string;
  listKind: string;
  /** plural, lowercase: "pods" */
  resource: string;
  /** singular, lowercase: "pod" */
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** default: all eight verbs */
  verbs?: Verb[];

  /** Upstream SetDefaults_* for the object (mutates). Runs on create and update, and on decode of stored data. */
  defaults?(obj: Obj<T>): void;
  /** Clear status, set generation etc. (mutates). */
  prepareForCreate?(obj: Obj<T>, ctx: StrategyContext): void;
  prepareForUpdate?(obj: Obj<T>, old: Obj<T>, ctx: StrategyContext): void;
  /** Validation; never mutates. ObjectMeta (name, labels, annotations) is validated by the store. */
  validate?(obj: Obj<T>, ctx: StrategyContext): FieldError[];
  validateUpdate?(obj: Obj<T>, old: Obj<T>, ctx: StrategyContext): FieldError[];
  /** Warnings returned to the client as `Warning: 299 - "…"` headers. */
  warningsOnCreate?(obj: Obj<T>, ctx: StrategyContext): string[];
  warningsOnUpdate?(obj: Obj<T>, old: Obj<T>, ctx: StrategyContext): string[];
  /** Normalise after validation (e.g. quantities to canonical form). */
  canonicalize?(obj: Obj<T>): void;
  /** Name validation; default DNS-1123 subdomain. Returns messages like upstream's IsDNS1123Subdomain. */
  validateName?(name: string, prefix: boolean): string[];

  /** Updates may create the object (PUT to a missing name). */
  allowCreateOnUpdate?: boolean;
  /** Updates without resourceVersion are allowed (last write wins). */
  allowUnconditionalUpdate?: boolean;

  /**
   * Graceful deletion: return the grace period in seconds to set deletionTimestamp /
   * deletionGracePeriodSeconds, or undefined to delete immediately. Pods use this.
   */
  checkGracefulDelete?(obj: Obj<T>, opts: DeleteOptionsLike): number | undefined;

  /** Field selector attributes beyond metadata.name and metadata.namespace (e.g. spec.nodeName). */
  fieldSelectorAttrs?(obj: Obj<T>): Record<string, string>;
  /**
   * A field selector attribute (one of {@link fieldSelectorAttrs}) the watch cache indexes:
   * watches that require an exact value for it (`spec.nodeName=node-1`) are only offered
   * the objects with that value. Upstream's pod storage indexes `spec.nodeName`.
   */
  watchIndexField?: string;
  /**
   * DELETE answers with the deleted object (200) instead of a Status when the object is
   * removed at once (upstream store ReturnDeletedObject; pods).
   */
  returnDeletedObject?: boolean;

  /** Server-side printer columns. Default: Name, Created At. */
  table?: TablePrinter<T>;

  /** The status subresource, if the resource has one. */
  status?: StatusStrategy<T>;

  /**
   * Other subresources served by the same store with their own update strategy
   * (e.g. namespaces/finalize). Keys are subresource names.
   */
  subresourceStrategies?: Record<string, StatusStrategy<T>>;

  /**
   * Custom DELETE (namespaces): called after preconditions with the current object.
   * 'update' persists `obj` and keeps the object, 'keep' answers with it unchanged,
   * 'delete' continues with the generic graceful/finalizer logic.
   */
  deleteStep?(obj: Obj<T>, opts: DeleteOptionsLike, now: Date): DeleteStep<T>;

  /** After an update is validated: should it remove the object instead (namespaces once finalized)? */
  shouldDeleteDuringUpdate?(obj: Obj<T>, old: Obj<T>): boolean;

  hooks?: StoreHooks<T>;

  /**
   * Objects are stored in another shape (events.k8s.io/v1 Events live with core/v1
   * Events): convert after reading and before writing. Both functions return new objects.
   */
  storageConversion?: {
    fromStored(obj: Obj): Obj<T>;
    toStored(obj: Obj<T>): Obj;
  };
  /**
   * Asynchronous conversion between versions (CRD conversion webhooks): objects are stored
   * in the version they were written in (`storageAPIVersion` for new writes) and kept so in
   * the watch cache; the store converts them to this definition's version on every read
   * and watch event, and writes to `storageAPIVersion` before storing. Unset (every built-in
   * kind, CRDs with strategy None) means no asynchronous step on any path.
   */
  versionConverter?: VersionConverter;
  /** storage key prefix shared with another resource, e.g. `/registry/events/` */
  storagePrefix?: string;

  /** Name of the kubernetes-types module path for the OpenAPI schema, e.g. 'core/v1#Pod'. */
  schemaRef?: string;

  /**
   * A custom resource's structural schema (the CRD version's `schema.openAPIV3Schema`):
   * server-side apply reads list and map types (`x-kubernetes-list-type`, `…-map-keys`,
   * `x-kubernetes-map-type`) from it. Unset for built-in kinds (they use `schemaRef`).
   */
  openAPIV3Schema?: unknown;
}
