/**
 * Admission: plugins that mutate (admit) then validate requests after authentication
 * and authorization and before storage, in upstream's fixed order.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/admission/interfaces.go
 */
import type { RequestMarks } from '../../trace/request-marks.js';
import type { GroupVersionResource, KObject, Obj, ObjectLookup, UserInfo } from '../../api/resource.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  resource: GroupVersionResource;
  kind: { group: string; version: string; kind: string };
  subresource: string;
  namespace: string;
  name: string;
  /** the new object (CREATE/UPDATE); mutating plugins change it in place */
  object?: Obj;
  /** the current object (UPDATE/DELETE) */
  oldObject?: Obj;
  user: UserInfo;
  dryRun: boolean;
  /** warnings to return to the client (`Warning: 299 - "…"`) */
  warnings: string[];
  /** audit annotations a plugin wants recorded */
  auditAnnotations?: Record<string, string>;
  /**
   * The operation's options as meta.k8s.io/v1 CreateOptions, UpdateOptions or
   * DeleteOptions (`kind`, `apiVersion`, `dryRun`, `fieldManager`, …), for webhooks.
   */
  options?: Record<string, unknown>;
  /** Whether the mutating phase runs a second time (set by the chain; see {@link ReinvocationContext}). */
  reinvocation?: ReinvocationContext;
  /**
   * The request's memoizing lookup, set by the chain on first use so that both phases
   * share it (a field, not a WeakMap entry: no ephemeron per request for the GC).
   */
  requestLookup?: RequestLookup;
  /** the pod creation trace's marks of the request (each plugin's end is marked) */
  trace?: RequestMarks;
}

/**
 * Upstream's admission.ReinvocationContext: when a plugin (a mutating webhook) changed
 * the object and asks for it, the chain runs every mutating plugin once more with
 * `isReinvoke` set; plugins keep their own state under their name.
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/reinvocation.go
 */
export class ReinvocationContext {
  /** true during the second run */
  isReinvoke = false;
  /** set by a plugin during the first run to have the chain run again */
  shouldReinvoke = false;
  /** made on first use (most requests meet no plugin that keeps state) */
  private values?: Map<string, unknown>;

  value<T>(plugin: string): T | undefined {
    return this.values?.get(plugin) as T | undefined;
  }

  setValue(plugin: string, v: unknown): void {
    (this.values ??= new Map()).set(plugin, v);
  }
}

/** One admission plugin. Errors thrown must be StatusErrors (Forbidden, Invalid, NotFound…). */
export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase. */
  admit?(a: AdmissionAttributes, lookup: ObjectLookup): Promise<void>;
  /** Validating phase (must not mutate). */
  validate?(a: AdmissionAttributes, lookup: ObjectLookup): Promise<void>;
}

/**
 * An ObjectLookup that answers each distinct get or list once: the plugins of one
 * request (NamespaceLifecycle and PodSecurity both read the namespace; LimitRanger,
 * ServiceAccount and Priority read the same objects in both phases) share the answers,
 * so the request is admitted against one view of them. Callers must not mutate the
 * objects or arrays they get (they are the watch cache's).
 */
export class RequestLookup implements ObjectLookup {
  /** `get <gr>/<ns>/<name>` or `list <gr>/<ns>` → the answer */
  private readonly answers = new Map<string, Promise<KObject | undefined> | Promise<KObject[]>>();

  constructor(private readonly inner: ObjectLookup) {}

  get(r: GroupVersionResource, namespace: string, name: string): Promise<KObject | undefined> {
    const k = `get ${r.group}/${r.resource}/${namespace}/${name}`;
    let p = this.answers.get(k) as Promise<KObject | undefined> | undefined;
    if (p === undefined) {
      p = this.inner.get(r, namespace, name);
      this.answers.set(k, p);
    }
    return p;
  }

  list(r: GroupVersionResource, namespace: string): Promise<KObject[]> {
    const k = `list ${r.group}/${r.resource}/${namespace}`;
    let p = this.answers.get(k) as Promise<KObject[]> | undefined;
    if (p === undefined) {
      p = this.inner.list(r, namespace);
      this.answers.set(k, p);
    }
    return p;
  }
}

/**
 * Runs plugins in order: every `admit`, then (after strategy validation) every `validate`.
 * Both phases of one request should be given the same attributes object: their lookups
 * then go through one {@link RequestLookup}.
 */
export class AdmissionChain {
  private readonly admitters: AdmissionPlugin[];
  private readonly validators: AdmissionPlugin[];

  constructor(
    readonly plugins: AdmissionPlugin[],
    private readonly lookup: ObjectLookup,
  ) {
    this.admitters = plugins.filter((p) => p.admit !== undefined);
    this.validators = plugins.filter((p) => p.validate !== undefined);
  }

  /**
   * Every mutating plugin in order; once more (with `reinvocation.isReinvoke`) when one
   * of them asked for it (upstream's reinvoker).
   */
  async admit(a: AdmissionAttributes): Promise<void> {
    const lookup = this.lookupFor(a);
    const r = (a.reinvocation ??= new ReinvocationContext());
    for (const p of this.admitters) {
      await p.admit!(a, lookup);
      a.trace?.mark('MutatingAdmission', p.name);
    }
    if (r.shouldReinvoke && !r.isReinvoke) {
      r.isReinvoke = true;
      for (const p of this.admitters) {
        await p.admit!(a, lookup);
        a.trace?.mark('MutatingAdmission', `${p.name} (reinvoked)`);
      }
    }
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    const lookup = this.lookupFor(a);
    for (const p of this.validators) {
      await p.validate!(a, lookup);
      a.trace?.mark('ValidatingAdmission', p.name);
    }
  }

  private lookupFor(a: AdmissionAttributes): RequestLookup {
    return (a.requestLookup ??= new RequestLookup(this.lookup));
  }
}
