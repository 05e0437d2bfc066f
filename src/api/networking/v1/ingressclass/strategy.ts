/**
 * networking.k8s.io/v1 IngressClass (cluster-scoped): parameters.scope defaults to
 * `Cluster`, validation as upstream ValidateIngressClass (controller a domain-prefixed
 * path, immutable; the parameters reference), printer NAME CONTROLLER PARAMETERS AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/networking/ingressclass/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/networking/validation/validation.go (ValidateIngressClass)
 */
import type { IngressClass, IngressClassParametersReference, IngressClassSpec } from 'kubernetes-types/networking/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required, tooLong } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, jsonEqual, regexError, validateImmutableField } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';

const SPEC = Path.root('spec');
/** Upstream maxLenIngressClassController. */
const MAX_CONTROLLER_LEN = 250;
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

/** Upstream IsDomainPrefixedPath: `acme.io/foo`. */
function validateDomainPrefixedPath(p: Path, v: string): FieldError[] {
  if (v.length === 0) return [required(p, '')];
  const slash = v.indexOf('/');
  const host = slash < 0 ? '' : v.slice(0, slash);
  const path = slash < 0 ? '' : v.slice(slash + 1);
  if (slash < 0 || host.length === 0 || path.length === 0) return [invalid(p, v, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => invalid(p, host, m));
  if (!HTTP_PATH_RE.test(path)) errs.push(invalid(p, path, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

/** Upstream validateIngressClassParametersReference. */
function validateParameters(params: IngressClassParametersReference | undefined, p: Path): FieldError[] {
  if (!params) return [];
  const errs: FieldError[] = [];
  if (!params.kind) errs.push(required(p.child('kind'), 'kind is required'));
  if (!params.name) errs.push(required(p.child('name'), 'name is required'));
  if (params.apiGroup) errs.push(...isDNS1123Subdomain(params.apiGroup).map((m) => invalid(p.child('apiGroup'), params.apiGroup, m)));
  const scope = params.scope;
  if (scope === undefined || scope === null) {
    errs.push(required(p.child('scope'), ''));
    return errs;
  }
  if (scope !== 'Cluster' && scope !== 'Namespace') {
    errs.push(notSupported(p.child('scope'), scope, ['Cluster', 'Namespace']));
    return errs;
  }
  if (scope === 'Namespace') {
    if (params.namespace === undefined || params.namespace === null) errs.push(required(p.child('namespace'), "`parameters.scope` is set to 'Namespace'"));
    else errs.push(...isDNS1123Label(params.namespace).map((m) => invalid(p.child('namespace'), params.namespace, m)));
  }
  if (scope === 'Cluster' && params.namespace !== undefined && params.namespace !== null) {
    errs.push(forbidden(p.child('namespace'), "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

/** Upstream ValidateIngressClassSpec. */
function validateIngressClassSpec(spec: IngressClassSpec | undefined): FieldError[] {
  const s = spec ?? {};
  const controller = s.controller ?? '';
  const errs: FieldError[] = [];
  if (controller.length > MAX_CONTROLLER_LEN) errs.push(tooLong(SPEC.child('controller'), controller, MAX_CONTROLLER_LEN));
  errs.push(...validateDomainPrefixedPath(SPEC.child('controller'), controller));
  errs.push(...validateParameters(s.parameters, SPEC.child('parameters')));
  return errs;
}

/** `Kind.group/name` of the parameters, `<none>` when unset (upstream printIngressClass). */
function formatIngressClassParameters(params: IngressClassParametersReference | undefined): string {
  if (!params) return '<none>';
  let s = params.kind;
  if (params.apiGroup) s += `.${params.apiGroup}`;
  return `${s}/${params.name}`;
}

/** networking.k8s.io/v1 ingressclasses. */
export const ingressClassDefinition: ResourceDefinition<K<IngressClass>> = {
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'IngressClass',
  listKind: 'IngressClassList',
  resource: 'ingressclasses',
  singular: 'ingressclass',
  namespaced: false,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  schemaRef: 'networking/v1#IngressClass',

  defaults(obj) {
    const params = obj.spec?.parameters;
    if (params && (params.scope === undefined || params.scope === null)) params.scope = 'Cluster';
  },
  prepareForCreate(obj) {
    (obj.metadata as { generation?: number }).generation = 1;
  },
  prepareForUpdate(obj, old) {
    const gen = old.metadata.generation ?? 1;
    (obj.metadata as { generation?: number }).generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? gen : gen + 1;
  },
  validate(obj) {
    return validateIngressClassSpec(obj.spec);
  },
  validateUpdate(obj, old) {
    const errs = validateIngressClassSpec(obj.spec);
    errs.push(...validateImmutableField(obj.spec?.controller, old.spec?.controller, SPEC.child('controller')));
    return errs;
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Controller', 'string', 'Controller that is responsible for handling this class'),
      column('Parameters', 'string', 'A reference to a resource with additional parameters'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [
        obj.metadata.name ?? '',
        obj.spec?.controller ?? '',
        formatIngressClassParameters(obj.spec?.parameters),
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};
