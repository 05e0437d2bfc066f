/**
 * The admissionregistration.k8s.io/v1 resources (storage, defaults, validation; their
 * effect on requests belongs to the admission chain).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/admissionregistration/rest/storage_apiserver.go
 */
import type { ResourceDefinition } from '../../resource.js';
import { mutatingWebhookConfigurationDefinition } from './mutatingwebhookconfiguration/strategy.js';
import { validatingAdmissionPolicyDefinition } from './validatingadmissionpolicy/strategy.js';
import { validatingAdmissionPolicyBindingDefinition } from './validatingadmissionpolicybinding/strategy.js';
import { validatingWebhookConfigurationDefinition } from './validatingwebhookconfiguration/strategy.js';

/** The admissionregistration.k8s.io/v1 definitions. */
export const admissionRegistrationV1Definitions: ResourceDefinition[] = [
  validatingWebhookConfigurationDefinition,
  mutatingWebhookConfigurationDefinition,
  validatingAdmissionPolicyDefinition,
  validatingAdmissionPolicyBindingDefinition,
] as ResourceDefinition[];
