/**
 * core/v1 ServiceAccount: secret references reduced to their names, the deprecation
 * warning for `kubernetes.io/enforce-mountable-secrets`, printer NAME SECRETS AGE, short
 * name `sa`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/serviceaccount/strategy.go
 */
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import { validateServiceAccountName } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';

/** Deprecated since v1.32: restricts pods to the secrets listed in `secrets`. */
const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';

/** Upstream cleanSecretReferences: only `name` of each secret reference is kept. */
function cleanSecretReferences(sa: O<ServiceAccount>): void {
  if (!sa.secrets) return;
  sa.secrets = sa.secrets.map((s) => ({ name: s.name }));
}

function warnings(sa: O<ServiceAccount>): string[] {
  if (sa.metadata.annotations && ENFORCE_MOUNTABLE_SECRETS_ANNOTATION in sa.metadata.annotations) {
    return [`metadata.annotations[${ENFORCE_MOUNTABLE_SECRETS_ANNOTATION}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`];
  }
  return [];
}

/** core/v1 serviceaccounts (short name `sa`). */
export const serviceAccountDefinition: ResourceDefinition<K<ServiceAccount>> = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  namespaced: true,
  shortNames: ['sa'],
  schemaRef: 'core/v1#ServiceAccount',
  allowUnconditionalUpdate: true,
  validateName: validateServiceAccountName,

  prepareForCreate(obj) {
    cleanSecretReferences(obj);
  },
  prepareForUpdate(obj) {
    cleanSecretReferences(obj);
  },
  validate() {
    return [];
  },
  validateUpdate() {
    return [];
  },
  warningsOnCreate(obj) {
    return warnings(obj);
  },
  warningsOnUpdate(obj) {
    return warnings(obj);
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [obj.metadata.name ?? '', (obj.secrets ?? []).length, translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
