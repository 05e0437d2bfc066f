/**
 * The CRD controller of the API server (upstream apiextensions-apiserver's naming,
 * establishing and finalizer controllers plus the CRD handler's serving state, in one
 * loop): for every CustomResourceDefinition it
 *
 * - accepts its names unless another CRD of the group uses them (NamesAccepted
 *   NoConflicts / PluralConflict …), records `status.acceptedNames`;
 * - serves its custom resources (one generic store per served version, scale
 *   subresource, discovery, OpenAPI) and then marks it Established
 *   (InitialNamesAccepted), so `kubectl wait --for condition=established` returns once
 *   the resources answer;
 * - on deletion (the CRD carries the customresourcecleanup finalizer): refuses creates,
 *   sets Terminating (InstanceDeletionInProgress), deletes every custom resource, removes
 *   the finalizer, and stops serving once the CRD is gone.
 *
 * It works on the CRD store's watch cache inside the API server; on start it installs
 * every CRD found in storage before the server reports ready, so custom resources are
 * served again after a restart.
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/controller/status/naming_controller.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/controller/establish/establishing_controller.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/controller/finalizer/crd_finalizer.go
 */
import type { CustomResourceDefinitionNames } from 'kubernetes-types/apiextensions/v1.js';
import { setCondition } from '../../api/apiextensions/v1/customresourcedefinition/strategy.js';
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, type CustomResourceDefinition } from '../../api/apiextensions/v1/customresourcedefinition/types.js';
import type { Obj, ResourceDefinition } from '../../api/resource.js';
import { isNotFound } from '../../apimachinery/errors.js';
import type { APIServer } from '../apiserver.js';
import { setCustomResourceSchema } from '../openapi/custom.js';
import type { CacheEvent } from '../registry/watch-cache.js';
import type { Store, WriteContext } from '../registry/store.js';
import { customResourceDefinitions, servingFingerprint, type CustomResourceServingState } from './definition.js';
import { customResourceOpenAPISchema } from './openapi.js';
import { customResourceScaleHandler } from './scale.js';

type CRD = Obj<CustomResourceDefinition>;

const GROUP = 'apiextensions.k8s.io';
const RESOURCE = 'customresourcedefinitions';
const SYSTEM_USER = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

/** Clock and timers of the CRD controller (injectable for tests). */
export interface CRDControllerOptions {
  /** wall clock for condition times */
  now?: () => Date;
  /** delay before retrying a failed or unfinished step (ms, default 1000) */
  retryDelayMs?: number;
  /** timer (tests) */
  setTimer?: (fn: () => void, ms: number) => void;
}

interface Installed {
  fingerprint: string;
  defs: ResourceDefinition[];
  state: CustomResourceServingState;
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Reconciles CustomResourceDefinitions inside one API server (see the module comment):
 * names, Established, serving of the custom resources, and the cleanup finalizer. Work
 * runs one CRD at a time in event order; failed or unfinished steps are retried after
 * `retryDelayMs`. Started by {@link APIServer.start} when CRDs are served.
 */
export class CustomResourceDefinitionController {
  private readonly installed = new Map<string, Installed>();
  private readonly pending = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly now: () => Date;
  private readonly retryMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => void;
  private readonly listener = { onEvent: (ev: CacheEvent): void => this.enqueue(ev.object.name) };

  constructor(
    private readonly api: APIServer,
    opts: CRDControllerOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
    this.retryMs = opts.retryDelayMs ?? 1000;
    this.setTimer = opts.setTimer ?? ((fn, ms) => void setTimeout(fn, ms).unref());
  }

  private get crdStore(): Store {
    const s = this.api.store(GROUP, RESOURCE);
    if (!s) throw new Error('customresourcedefinitions are not served');
    return s;
  }

  /** Installs the custom resources of every stored CRD, then follows CRD changes. */
  async start(): Promise<void> {
    const store = this.crdStore;
    await store.cache.sync();
    for (const c of store.cache.list(store.listPrefix(''))) await this.syncSafe(c.name);
    store.cache.addListener(this.listener);
  }

  stop(): void {
    this.stopped = true;
    this.api.store(GROUP, RESOURCE)?.cache.removeListener(this.listener);
  }

  /** Resolves when every queued sync has run (tests). */
  async idle(): Promise<void> {
    let q: Promise<void>;
    do {
      q = this.queue;
      await q;
    } while (q !== this.queue);
  }

  /** The names of the CRDs whose resources are served. */
  servedCRDs(): string[] {
    return [...this.installed.keys()];
  }

  private enqueue(name: string): void {
    if (this.stopped || this.pending.has(name)) return;
    this.pending.add(name);
    this.queue = this.queue.then(async () => {
      this.pending.delete(name);
      await this.syncSafe(name);
    });
  }

  private async syncSafe(name: string): Promise<void> {
    try {
      const again = await this.sync(name);
      if (again) this.setTimer(() => this.enqueue(name), this.retryMs);
    } catch {
      if (!this.stopped) this.setTimer(() => this.enqueue(name), this.retryMs);
    }
  }

  private wc(): WriteContext {
    return { user: SYSTEM_USER, dryRun: false, warnings: [], now: this.now() };
  }

  /** One reconcile; true asks for another pass later (deletion still in progress). */
  private async sync(name: string): Promise<boolean> {
    if (this.stopped) return false;
    const cur = this.crdStore.peek('', name)?.obj as CRD | undefined;
    if (!cur) {
      this.uninstall(name);
      return false;
    }
    if (cur.metadata.deletionTimestamp) return this.finalize(cur);
    const { names, reason, message } = this.acceptNames(cur);
    const accepted = reason === 'NoConflicts';
    // served once all names were accepted; an established CRD keeps serving its accepted names
    const wasEstablished = cur.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
    if ((accepted || wasEstablished) && names.plural && names.kind) await this.install(cur, names);
    await this.updateStatus(name, (crd) => {
      const status = crd.status!;
      status.acceptedNames = names;
      const t = rfc3339(this.now());
      setCondition(crd, { type: 'NamesAccepted', status: accepted ? 'True' : 'False', reason, message, lastTransitionTime: t });
      const est = status.conditions?.find((c) => c.type === 'Established');
      if (est?.status !== 'True') {
        if (accepted && this.installed.has(name)) {
          setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: t });
        } else if (!accepted) {
          setCondition(crd, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted', lastTransitionTime: t });
        }
      }
    });
    return false;
  }

  /**
   * Upstream's naming controller: each requested name is taken when it equals the
   * accepted one or no other CRD of the group has accepted it.
   */
  private acceptNames(crd: CRD): { names: CustomResourceDefinitionNames; reason: string; message: string } {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    const store = this.crdStore;
    for (const o of store.cache.list(store.listPrefix(''))) {
      const other = o.obj as CRD;
      if (other.metadata.name === crd.metadata.name || other.spec?.group !== crd.spec.group) continue;
      const a = other.status?.acceptedNames;
      if (!a) continue;
      if (a.plural) resources.add(a.plural);
      if (a.singular) resources.add(a.singular);
      for (const s of a.shortNames ?? []) resources.add(s);
      if (a.kind) kinds.add(a.kind);
      if (a.listKind) kinds.add(a.listKind);
    }
    const req = crd.spec.names;
    const acc = crd.status?.acceptedNames ?? { kind: '', plural: '' };
    const names: CustomResourceDefinitionNames = { ...acc };
    let reason = 'NoConflicts';
    let message = 'no conflicts found';
    const fail = (r: string, v: string): void => {
      if (reason !== 'NoConflicts') return;
      reason = r;
      message = `"${v}" is already in use`;
    };
    const fresh = (want: string | undefined, had: string | undefined, used: Set<string>): boolean => !want || want === had || !used.has(want);
    if (fresh(req.plural, acc.plural, resources)) names.plural = req.plural;
    else fail('PluralConflict', req.plural);
    if (fresh(req.singular, acc.singular, resources)) names.singular = req.singular;
    else fail('SingularConflict', req.singular!);
    const shortConflict = (req.shortNames ?? []).find((s) => !(acc.shortNames ?? []).includes(s) && resources.has(s));
    if (shortConflict === undefined) names.shortNames = req.shortNames;
    else fail('ShortNamesConflict', shortConflict);
    if (fresh(req.kind, acc.kind, kinds)) names.kind = req.kind;
    else fail('KindConflict', req.kind);
    if (fresh(req.listKind, acc.listKind, kinds)) names.listKind = req.listKind;
    else fail('ListKindConflict', req.listKind!);
    names.categories = req.categories;
    for (const k of Object.keys(names) as (keyof CustomResourceDefinitionNames)[]) if (names[k] === undefined) delete names[k];
    return { names, reason, message };
  }

  /** Serves the CRD's versions (re-installing when what is served changed). */
  private async install(crd: CRD, names: CustomResourceDefinitionNames): Promise<void> {
    const name = crd.metadata.name!;
    const fp = servingFingerprint(crd, names);
    const had = this.installed.get(name);
    if (had?.fingerprint === fp) return;
    if (had) this.uninstall(name);
    const state: CustomResourceServingState = { terminating: false };
    // a built-in resource of the same group and name keeps precedence (its versions are not replaced)
    const converter = crd.spec.conversion?.strategy === 'Webhook' ? this.api.conversionWebhook(crd) : undefined;
    const defs = customResourceDefinitions(crd, names, state, converter).filter((d) => !this.api.store(d.group, d.resource));
    const added: ResourceDefinition[] = [];
    try {
      for (const def of defs) {
        const v = crd.spec.versions.find((x) => x.name === def.version)!;
        setCustomResourceSchema(def, customResourceOpenAPISchema(def.group, def.kind, v));
        const subs = v.subresources?.scale ? [customResourceScaleHandler(def.group, def.version, def.resource, v.subresources.scale)] : [];
        await this.api.addResource(def, subs);
        added.push(def);
      }
    } catch (e) {
      for (const d of added) this.api.removeResource(d.group, d.version, d.resource);
      throw e;
    }
    this.installed.set(name, { fingerprint: fp, defs, state });
  }

  private uninstall(name: string): void {
    const inst = this.installed.get(name);
    if (!inst) return;
    this.installed.delete(name);
    for (const d of inst.defs) this.api.removeResource(d.group, d.version, d.resource);
  }

  /** Writes the status `mutate` produces, when it differs from the stored one. */
  private async updateStatus(name: string, mutate: (crd: CRD) => void): Promise<void> {
    const cur = this.crdStore.peek('', name);
    if (!cur) return;
    const next = cur.clone() as CRD;
    next.status ??= { acceptedNames: { kind: '', plural: '' }, storedVersions: [] };
    mutate(next);
    if (JSON.stringify(next.status) === JSON.stringify((cur.obj as CRD).status)) return;
    await this.crdStore.update(
      '',
      name,
      (c) => {
        if (!c) throw new Error(`customresourcedefinition ${name} is gone`);
        const o = c as CRD;
        o.status = next.status;
        delete o.metadata.resourceVersion;
        return o;
      },
      this.wc(),
      'status',
    );
  }

  /** Deletes the custom resources of a CRD being deleted, then lets the CRD go. */
  private async finalize(crd: CRD): Promise<boolean> {
    const name = crd.metadata.name!;
    if (!crd.metadata.finalizers?.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return false;
    const inst = this.installed.get(name);
    if (inst) inst.state.terminating = true;
    await this.updateStatus(name, (c) =>
      setCondition(c, {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionInProgress',
        message: 'CustomResource deletion is in progress',
        lastTransitionTime: rfc3339(this.now()),
      }),
    );
    const def = inst?.defs[0];
    const store = def ? this.api.store(def.group, def.resource) : undefined;
    if (store) {
      const wc = this.wc();
      const items = (await store.list('', {})).items;
      for (const o of items) {
        if (o.obj.metadata.deletionTimestamp) continue;
        try {
          await store.delete(o.namespace, o.name, { propagationPolicy: 'Background' }, wc);
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
      }
      const left = (await store.list('', { limit: 1 })).items.length;
      if (left > 0) return true;
    }
    await this.crdStore.update(
      '',
      name,
      (c) => {
        if (!c) throw new Error(`customresourcedefinition ${name} is gone`);
        c.metadata.finalizers = (c.metadata.finalizers ?? []).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
        delete c.metadata.resourceVersion;
        return c;
      },
      this.wc(),
      '',
      { unconditional: true },
    );
    return false;
  }
}
