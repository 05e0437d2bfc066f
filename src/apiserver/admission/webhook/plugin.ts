/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook admission plugins: the
 * webhooks of the stored admissionregistration.k8s.io/v1 Mutating/ValidatingWebhookConfigurations
 * (followed through the API server's watch caches), called in the mutating and validating
 * phases at upstream's place in the chain. Requests on the admission configuration
 * objects themselves never go to webhooks.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/mutating/plugin.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/validating/plugin.go
 * @see https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/
 */
import type { ObjectLookup, ResourceDefinition } from '../../../api/resource.js';
import type { StoreLookup } from '../../subresources/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import type { DispatchContext } from './dispatcher.js';
import { EquivalentResources } from './equivalence.js';
import { WebhookMetrics } from './metrics.js';
import { dispatchMutating, MUTATING_PLUGIN_NAME } from './mutating.js';
import { isExemptAdmissionConfigurationResource } from './rules.js';
import { WebhookSource } from './source.js';
import { dispatchValidating, VALIDATING_PLUGIN_NAME } from './validating.js';

const G = 'admissionregistration.k8s.io';

/** What the plugins need from the API server once its stores exist. */
export interface WebhookServerAccess extends StoreLookup {
  readonly lookup: ObjectLookup;
  /** the served definitions (replaced when custom resources come and go) */
  readonly definitions: readonly ResourceDefinition[];
  /** registers extra metrics on the server's `/metrics` */
  readonly metrics: { add(...metrics: unknown[]): void };
}

/** Both plugins, and the hook that connects them to the API server's stores. */
export interface WebhookAdmission {
  mutating: AdmissionPlugin;
  validating: AdmissionPlugin;
  metrics: WebhookMetrics;
  attach(api: WebhookServerAccess): void;
}

/**
 * @param credentials client credentials per webhook host of each plugin, from
 *   `--admission-control-config-file` (./authentication-info.ts); none = no credentials
 */
export function webhookAdmission(credentials?: DispatchContext['credentials']): WebhookAdmission {
  const mutatingSource = new WebhookSource(true);
  const validatingSource = new WebhookSource(false);
  const metrics = new WebhookMetrics();
  let ctx: DispatchContext | undefined;

  const skip = (a: AdmissionAttributes): boolean => ctx === undefined || isExemptAdmissionConfigurationResource(a.kind);

  return {
    metrics,
    attach(api) {
      mutatingSource.attach(api.store(G, 'mutatingwebhookconfigurations'));
      validatingSource.attach(api.store(G, 'validatingwebhookconfigurations'));
      ctx = { lookup: api.lookup, equivalents: new EquivalentResources(() => api.definitions), metrics, credentials };
      api.metrics.add(...metrics.all());
    },
    mutating: {
      name: MUTATING_PLUGIN_NAME,
      async admit(a, lookup) {
        if (skip(a)) return;
        const syncing = mutatingSource.synced();
        if (syncing) await syncing;
        const hooks = mutatingSource.webhooks();
        if (hooks.length) await dispatchMutating(hooks, a, ctx!, lookup);
      },
    },
    validating: {
      name: VALIDATING_PLUGIN_NAME,
      async validate(a, lookup) {
        if (skip(a)) return;
        const syncing = validatingSource.synced();
        if (syncing) await syncing;
        const hooks = validatingSource.webhooks();
        if (hooks.length) await dispatchValidating(hooks, a, ctx!, lookup);
      },
    },
  };
}
