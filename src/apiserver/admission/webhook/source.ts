/**
 * The webhooks of the stored Mutating/ValidatingWebhookConfigurations, kept current from
 * the configuration store's watch cache (upstream's webhook configuration managers over
 * a shared informer): configurations in name order, each one's webhooks in their order,
 * each with upstream's uid `<configuration>/<webhook>/<n>` (n counts repeated names).
 * The list is rebuilt lazily after a change, never read from storage per request.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/configuration/validating_webhook_manager.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/accessors.go
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { MutatingWebhook, ValidatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import { StatusError } from '../../../apimachinery/errors.js';
import { labelSelectorAsSelector, type Selector } from '../../../apimachinery/labels.js';
import type { Store } from '../../registry/store.js';
import { compileMatchConditions } from './match-conditions.js';

/** A parsed selector, or the error parsing it gave (reported only when the webhook's rules match). */
export type ParsedSelector = { selector: Selector } | { error: string };

/** One webhook of a configuration, with what upstream's accessor precomputes. */
export interface WebhookAccessor {
  /** `<configuration>/<webhook>/<n>` */
  readonly uid: string;
  readonly configurationName: string;
  readonly name: string;
  readonly mutating: boolean;
  readonly hook: MutatingWebhook | ValidatingWebhook;
  readonly namespaceSelector: ParsedSelector;
  readonly objectSelector: ParsedSelector;
  /** the compiled matchConditions (compiled on first use) */
  matchConditions(): ReturnType<typeof compileMatchConditions>;
}

function parse(ls: LabelSelector | undefined): ParsedSelector {
  try {
    // an unset selector matches everything (the defaults make it `{}`)
    return { selector: labelSelectorAsSelector(ls ?? {}) };
  } catch (e) {
    return { error: e instanceof StatusError ? e.message : String(e) };
  }
}

/** The accessors of one configuration's webhooks (upstream getValidatingWebhookConfigurations' inner loop). */
export function accessorsOf(configurationName: string, hooks: readonly (MutatingWebhook | ValidatingWebhook)[], mutating: boolean): WebhookAccessor[] {
  const seen = new Map<string, number>();
  return hooks.map((hook) => {
    const n = seen.get(hook.name) ?? 0;
    seen.set(hook.name, n + 1);
    let compiled: ReturnType<typeof compileMatchConditions> | undefined;
    return {
      matchConditions: () => (compiled ??= compileMatchConditions(hook.matchConditions ?? [])),
      uid: `${configurationName}/${hook.name}/${n}`,
      configurationName,
      name: hook.name,
      mutating,
      hook,
      namespaceSelector: parse(hook.namespaceSelector),
      objectSelector: parse(hook.objectSelector),
    };
  });
}

/** The webhooks of one configuration resource, from its store's watch cache. */
export class WebhookSource {
  private store?: Store;
  private cached?: WebhookAccessor[];
  /** set once the configurations are loaded (synced() then costs nothing) */
  private loaded: Promise<void> | true | undefined;
  /** accessors by configuration name and resourceVersion (unchanged configurations keep theirs) */
  private readonly perConfig = new Map<string, { rv: number; accessors: WebhookAccessor[] }>();

  constructor(readonly mutating: boolean) {}

  /** Follows `store` (the mutating or validating webhook configurations) from now on. */
  attach(store: Store | undefined): void {
    this.store = store;
    store?.cache.addListener({ onEvent: () => (this.cached = undefined) });
    void store?.cache.start().then(
      () => (this.cached = undefined),
      () => undefined,
    );
  }

  /** Resolves once the configurations have been loaded (upstream HasSynced); undefined when they are. */
  synced(): Promise<void> | undefined {
    if (this.loaded === true || !this.store) return undefined;
    if (this.loaded === undefined) {
      this.loaded = this.store.cache.start().then(() => {
        this.loaded = true;
      });
    }
    return this.loaded;
  }

  /** Every webhook, configurations in name order. */
  webhooks(): readonly WebhookAccessor[] {
    if (this.cached) return this.cached;
    const s = this.store;
    if (!s) return (this.cached = []);
    const out: WebhookAccessor[] = [];
    const live = new Set<string>();
    // the cache lists in key order, which is name order for these cluster-scoped objects
    for (const c of s.cache.list(s.prefix)) {
      const name = c.obj.metadata.name ?? '';
      live.add(name);
      let e = this.perConfig.get(name);
      if (!e || e.rv !== c.rv) {
        const hooks = ((c.obj as { webhooks?: (MutatingWebhook | ValidatingWebhook)[] }).webhooks ?? []) as (MutatingWebhook | ValidatingWebhook)[];
        e = { rv: c.rv, accessors: accessorsOf(name, hooks, this.mutating) };
        this.perConfig.set(name, e);
      }
      out.push(...e.accessors);
    }
    for (const k of [...this.perConfig.keys()]) if (!live.has(k)) this.perConfig.delete(k);
    return (this.cached = out);
  }
}
