/**
 * apiregistration.k8s.io/v1 APIService (cluster-scoped, category `api-extensions`) with its
 * status subresource: service port defaults to 443, validation as kube-aggregator's
 * ValidateAPIService (name `<version>.<group>`, priorities in range, local services without
 * caBundle/insecureSkipTLSVerify), create clears the status and spec updates keep it,
 * printer NAME SERVICE AVAILABLE AGE (`Local` for services served by this API server).
 * The local APIServices of the built-in group-versions come from ./local.ts.
 *
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/registry/apiservice/strategy.go
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/apis/apiregistration/validation/validation.go
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/registry/apiservice/etcd/etcd.go (table)
 */
import { type FieldError, invalid, Path, required } from '../../../../apimachinery/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum } from '../../../../apimachinery/validation.js';
import { validatePathSegmentName } from '../../../core/v1/event/strategy.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { clone, type O } from '../../../core/v1/shared/types.js';
import type { KObject, ResourceDefinition } from '../../../resource.js';
import { decodeError, goBase64Check } from '../../../core/v1/shared/decode.js';

/** apiregistration.k8s.io/v1 APIServiceCondition */
export interface APIServiceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** apiregistration.k8s.io/v1 APIService (kube-aggregator's type; not in kubernetes-types). */
export interface APIService extends KObject {
  spec?: {
    service?: { namespace?: string; name?: string; port?: number } | null;
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    /** base64 PEM */
    caBundle?: string;
    groupPriorityMinimum?: number;
    versionPriority?: number;
  };
  status?: { conditions?: APIServiceCondition[] };
}

const SPEC = Path.root('spec');

/**
 * spec.caBundle is `[]byte`: base64 on the wire, checked as the decoder does.
 * @throws StatusError 400 BadRequest with upstream's decode message
 */
function decodeCABundle(obj: APIService): number {
  const v: unknown = obj.spec?.caBundle;
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'string')
    throw decodeError('APIService', 'apiregistration.k8s.io/v1', `json: cannot unmarshal ${typeof v} into Go struct field APIServiceSpec.spec.caBundle of type []uint8`);
  const r = goBase64Check(v);
  if ('errorAt' in r) throw decodeError('APIService', 'apiregistration.k8s.io/v1', `illegal base64 data at input byte ${r.errorAt}`);
  return r.length;
}

/** kube-aggregator ValidateAPIService (the name check included; ObjectMeta's other rules are the store's). */
function validateAPIService(obj: O<APIService>): FieldError[] {
  const spec = obj.spec ?? {};
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  const requiredName = `${version}.${group}`;
  if (name && validatePathSegmentName(name, false).length === 0 && name !== requiredName) {
    errs.push(invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  if (group.length === 0 && version !== 'v1') errs.push(required(SPEC.child('group'), 'only v1 may have an empty group and it better be legacy kube'));
  if (group.length > 0) errs.push(...isDNS1123Subdomain(group).map((m) => invalid(SPEC.child('group'), group, m)));
  errs.push(...isDNS1035Label(version).map((m) => invalid(SPEC.child('version'), version, m)));
  const gpm = spec.groupPriorityMinimum ?? 0;
  if (gpm <= 0 || gpm > 20000) errs.push(invalid(SPEC.child('groupPriorityMinimum'), gpm, 'must be positive and less than 20000'));
  const vp = spec.versionPriority ?? 0;
  if (vp <= 0 || vp > 1000) errs.push(invalid(SPEC.child('versionPriority'), vp, 'must be positive and less than 1000'));
  const caLength = decodeCABundle(obj);
  const skip = spec.insecureSkipTLSVerify ?? false;
  const svc = spec.service;
  if (!svc) {
    if (caLength !== 0) errs.push(invalid(SPEC.child('caBundle'), `${caLength} bytes`, 'local APIServices may not have a caBundle'));
    if (skip) errs.push(invalid(SPEC.child('insecureSkipTLSVerify'), skip, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!svc.namespace) errs.push(required(SPEC.child('service', 'namespace'), ''));
  if (!svc.name) errs.push(required(SPEC.child('service', 'name'), ''));
  const port = svc.port ?? 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(invalid(SPEC.child('service', 'port'), port, `port is not valid: ${portErrs.join(', ')}`));
  if (skip && caLength > 0) errs.push(invalid(SPEC.child('insecureSkipTLSVerify'), skip, 'may not be true if caBundle is present'));
  return errs;
}

/** The AVAILABLE cell: the Available condition's status, with its reason when not True. */
function availableCell(obj: APIService): string {
  const c = (obj.status?.conditions ?? []).find((x) => x.type === 'Available');
  if (!c) return 'Unknown';
  if (c.status === 'True') return c.status;
  return c.reason ? `${c.status} (${c.reason})` : c.status;
}

/** apiregistration.k8s.io/v1 apiservices (and apiservices/status). */
export const apiServiceDefinition: ResourceDefinition<APIService> = {
  group: 'apiregistration.k8s.io',
  version: 'v1',
  kind: 'APIService',
  listKind: 'APIServiceList',
  resource: 'apiservices',
  singular: 'apiservice',
  namespaced: false,
  categories: ['api-extensions'],
  schemaRef: 'apiregistration/v1#APIService',
  allowUnconditionalUpdate: true,
  validateName: validatePathSegmentName,

  defaults(obj) {
    const svc = obj.spec?.service;
    if (svc) svc.port ??= 443;
  },
  prepareForCreate(obj) {
    decodeCABundle(obj);
    obj.status = {};
  },
  prepareForUpdate(obj, old) {
    decodeCABundle(obj);
    obj.status = clone(old.status ?? {});
  },
  validate(obj) {
    return validateAPIService(obj);
  },
  validateUpdate(obj) {
    return validateAPIService(obj);
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = clone(old.spec);
    },
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
      column('Available', 'string', 'Whether this service is available.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      const svc = obj.spec?.service;
      return [
        obj.metadata.name ?? '',
        svc ? `${svc.namespace ?? ''}/${svc.name ?? ''}` : 'Local',
        availableCell(obj),
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};
