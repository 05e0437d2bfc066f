/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfiguration (cluster-scoped, category
 * `api-extensions`). Storage, defaults and validation only: calling the webhooks is the
 * admission chain's job.
 *
 * @see ../webhook.ts
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/admissionregistration/mutatingwebhookconfiguration/strategy.go
 */
import type { MutatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { K } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { webhookConfigurationDefinition } from '../webhook.js';

/** admissionregistration.k8s.io/v1 mutatingwebhookconfigurations. */
export const mutatingWebhookConfigurationDefinition: ResourceDefinition<K<MutatingWebhookConfiguration>> =
  webhookConfigurationDefinition<K<MutatingWebhookConfiguration>>('MutatingWebhookConfiguration');
