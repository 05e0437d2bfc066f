/**
 * The ValidatingAdmissionPolicy admission plugin (validating phase): every
 * ValidatingAdmissionPolicy whose matchConstraints select the request is evaluated for
 * each of its ValidatingAdmissionPolicyBindings that selects it, with each param the
 * binding's paramRef names; validation failures act as the binding's validationActions
 * (Deny → the request is refused, Warn → a warning, Audit → an audit annotation).
 * Policies and bindings are read from their stores' watch caches; each policy is
 * compiled once per resourceVersion.
 *
 * The denial is upstream's: a Forbidden error for the request's resource and name whose
 * reason and code are the validation's reason (Invalid/422 by default), message
 * `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<policy>' with binding
 * '<binding>' denied request: <message>` and the message as the one cause.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 */
import type { ParamRef, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { KObject, ObjectLookup, ResourceDefinition } from '../../../api/resource.js';
import { failureStatus, type StatusReason, StatusError } from '../../../apimachinery/errors.js';
import { labelSelectorAsSelector } from '../../../apimachinery/labels.js';
import { toCel } from '../../../cel/index.js';
import type { StoreLookup } from '../../subresources/types.js';
import { type DecidingAuthorizer, requestAuthorizer } from '../policy/authorizer.js';
import { matchResourcesMatch } from '../policy/matching.js';
import { type CompiledPolicy, compilePolicy } from '../policy/validating/compile.js';
import { type PolicyDecision, validatePolicy } from '../policy/validating/validate.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';

const GROUP = 'admissionregistration.k8s.io';
/** upstream rules.IsExemptAdmissionConfigurationResource: admission configuration is never subject to policies. */
const EXEMPT = new Set([
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

/** What the plugin reads from the API server once it is built. */
export interface PolicySources extends StoreLookup {
  readonly lookup: ObjectLookup;
  readonly definitions: readonly ResourceDefinition[];
}

export interface ValidatingAdmissionPolicyPlugin extends AdmissionPlugin {
  attach(api: PolicySources): void;
}

interface Denied {
  decision: PolicyDecision;
  policy: string;
  binding?: string;
}

/** upstream reasonToCode. */
function reasonToCode(r: string): number {
  switch (r) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** upstream cel.CreateAdmissionRequest as unstructured JSON. */
export function admissionRequestValue(a: AdmissionAttributes): Record<string, unknown> {
  const gvk = { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  const gvr = { group: a.resource.group, version: a.resource.version, resource: a.resource.resource };
  const userInfo: Record<string, unknown> = {};
  if (a.user.username) userInfo.username = a.user.username;
  if (a.user.uid) userInfo.uid = a.user.uid;
  if (a.user.groups?.length) userInfo.groups = a.user.groups;
  if (a.user.extra && Object.keys(a.user.extra).length) userInfo.extra = a.user.extra;
  return {
    uid: '',
    kind: gvk,
    resource: gvr,
    ...(a.subresource ? { subResource: a.subresource } : {}),
    requestKind: gvk,
    requestResource: gvr,
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo,
    dryRun: a.dryRun,
    options: null,
  };
}

/** upstream cel.CreateNamespaceObject: the namespace with only these metadata fields. */
function namespaceValue(ns: KObject | undefined): unknown {
  if (!ns) return null;
  const m = ns.metadata as Record<string, unknown>;
  const meta: Record<string, unknown> = {};
  for (const k of [
    'name',
    'generateName',
    'namespace',
    'uid',
    'resourceVersion',
    'generation',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'labels',
    'annotations',
    'finalizers',
  ])
    if (m[k] !== undefined) meta[k] = m[k];
  return { metadata: meta, spec: (ns as { spec?: unknown }).spec ?? {}, status: (ns as { status?: unknown }).status ?? {} };
}

function paramKindString(pk: { apiVersion?: string; kind?: string }): string {
  return `&ParamKind{APIVersion:${pk.apiVersion ?? ''},Kind:${pk.kind ?? ''},}`;
}

/** The name upstream's admission errors give the object (extractResourceName). */
function resourceName(a: AdmissionAttributes): string {
  if (a.name) return a.name;
  const meta = (a.object as { metadata?: { name?: string; generateName?: string } } | undefined)?.metadata;
  return meta?.name || meta?.generateName || 'Unknown';
}

/**
 * @param authorizer the API server's authorizer chain, for the `authorizer` variable (null in expressions without it)
 */
export function validatingAdmissionPolicy(authorizer?: DecidingAuthorizer): ValidatingAdmissionPolicyPlugin {
  let api: PolicySources | undefined;
  const compiled = new Map<string, { rv: string; c: CompiledPolicy }>();

  function compiledFor(p: ValidatingAdmissionPolicy): CompiledPolicy {
    const name = p.metadata?.name ?? '';
    const rv = `${p.metadata?.uid ?? ''}/${p.metadata?.resourceVersion ?? ''}`;
    const hit = compiled.get(name);
    if (hit && hit.rv === rv) return hit.c;
    const c = compilePolicy(p);
    compiled.set(name, { rv, c });
    return c;
  }

  function listAll<T>(resource: string): T[] {
    const s = api?.store(GROUP, resource);
    if (!s) return [];
    return s.cache.list(s.listPrefix('')).map((o) => o.obj as unknown as T);
  }

  /** upstream generic.CollectParams. @throws Error with upstream's configuration error text */
  async function collectParams(policy: ValidatingAdmissionPolicy, ref: ParamRef | undefined, namespace: string, lookup: ObjectLookup): Promise<unknown[]> {
    const pk = policy.spec?.paramKind;
    if (!pk) return [null];
    const [group, version] = (pk.apiVersion ?? '').includes('/') ? (pk.apiVersion ?? '').split('/') : ['', pk.apiVersion ?? ''];
    const def = api?.definitions.find((d) => d.group === group && d.version === version && d.kind === pk.kind);
    if (!def) throw new Error(`paramKind kind \`${paramKindString(pk)}\` not known`);
    if (!ref) return [null];
    if (ref.namespace && !def.namespaced) throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    let ns = '';
    if (def.namespaced) {
      ns = ref.namespace || namespace;
      if (!ns) throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    }
    const gvr = { group: def.group, version: def.version, resource: def.resource };
    let params: unknown[];
    if (ref.name) {
      if (ref.selector) throw new Error('paramRef.name and paramRef.selector are mutually exclusive');
      const p = await lookup.get(gvr, ns, ref.name);
      params = p ? [p] : [];
    } else if (ref.selector) {
      const sel = labelSelectorAsSelector(ref.selector);
      params = (await lookup.list(gvr, ns)).filter((o) => sel.matches((o.metadata as { labels?: Record<string, string> }).labels ?? {}));
    } else throw new Error('one of name or selector must be provided');
    if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
    return params.map((p) => {
      const o = p as Record<string, unknown>;
      return o.apiVersion ? o : { apiVersion: pk.apiVersion, kind: pk.kind, ...o };
    });
  }

  return {
    name: 'ValidatingAdmissionPolicy',
    attach(sources) {
      api = sources;
    },
    async validate(a, lookup) {
      if (!api) return;
      if (a.resource.group === GROUP && EXEMPT.has(a.resource.resource)) return;
      const policies = listAll<ValidatingAdmissionPolicy>('validatingadmissionpolicies');
      if (policies.length === 0) return;
      const bindings = listAll<ValidatingAdmissionPolicyBinding>('validatingadmissionpolicybindings');
      if (bindings.length === 0) return;
      const denied: Denied[] = [];
      let base: Record<string, unknown> | undefined;
      for (const policy of policies.sort((x, y) => (x.metadata?.name ?? '').localeCompare(y.metadata?.name ?? ''))) {
        const pname = policy.metadata?.name ?? '';
        const mine = bindings.filter((b) => b.spec?.policyName === pname).sort((x, y) => (x.metadata?.name ?? '').localeCompare(y.metadata?.name ?? ''));
        if (mine.length === 0) continue;
        const failPolicy = policy.spec?.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
        const configError = (err: string, binding?: string) => {
          if (failPolicy === 'Ignore') return;
          denied.push({
            policy: pname,
            binding,
            decision: { action: 'Deny', evaluation: 'Error', message: binding ? `failed to configure binding: ${err}` : `failed to configure policy: ${err}` },
          });
        };
        if (!(await matchResourcesMatch(policy.spec?.matchConstraints, a, lookup))) continue;
        const c = compiledFor(policy);
        const annotations = new Map<string, string[]>();
        for (const binding of mine) {
          const bname = binding.metadata?.name ?? '';
          const bm = binding.spec?.matchResources;
          if (bm && !(await matchResourcesMatch(bm, a, lookup))) continue;
          let params: unknown[];
          try {
            params = await collectParams(policy, binding.spec?.paramRef, a.namespace, lookup);
          } catch (e) {
            configError((e as Error).message, bname);
            continue;
          }
          if (base === undefined) {
            const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
            const ns = a.namespace && !isNamespace ? await lookup.get(NAMESPACES, '', a.namespace) : undefined;
            base = {
              object: toCel(a.object ?? null),
              oldObject: toCel(a.oldObject ?? null),
              request: toCel(admissionRequestValue(a)),
              namespaceObject: toCel(namespaceValue(ns)),
              authorizer: requestAuthorizer(authorizer, a),
            };
          }
          const actions = binding.spec?.validationActions ?? [];
          for (const param of params) {
            const r = validatePolicy(c, { ...base, params: toCel(param) }, failPolicy);
            r.decisions.forEach((d, i) => {
              if (d.action !== 'Deny') return;
              for (const action of actions) {
                if (action === 'Deny') denied.push({ decision: d, policy: pname, binding: bname });
                else if (action === 'Warn') a.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${pname}' with binding '${bname}': ${d.message}`);
                else if (action === 'Audit')
                  (a.auditAnnotations ??= {})['validation.policy.admission.k8s.io/validation_failure'] = JSON.stringify([
                    { message: d.message, policy: pname, binding: bname, expressionIndex: i, validationActions: actions },
                  ]);
              }
            });
            for (const ann of r.auditAnnotations) {
              if (ann.action === 'Publish') {
                const v = ann.value!.slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
                const list = annotations.get(ann.key) ?? [];
                if (!list.includes(v)) list.push(v);
                annotations.set(ann.key, list);
              } else if (ann.action === 'Error') denied.push({ policy: pname, binding: bname, decision: { action: 'Deny', evaluation: 'Error', message: ann.error ?? '' } });
            }
          }
        }
        for (const [k, vs] of annotations) (a.auditAnnotations ??= {})[`${pname}/${k}`] = vs.join(', ');
      }
      if (denied.length === 0) return;
      const d = denied[0]!;
      const message = d.binding
        ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.decision.message}`
        : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.decision.message}`;
      const name = resourceName(a);
      const gr = a.resource;
      const full = `${gr.group ? `${gr.resource}.${gr.group}` : gr.resource} "${name}" is forbidden: ${message}`;
      const reason = (d.decision.reason || 'Invalid') as StatusReason;
      throw new StatusError(
        failureStatus(reasonToCode(reason), reason, full, {
          name,
          ...(gr.group ? { group: gr.group } : {}),
          kind: gr.resource,
          causes: [{ message }],
        }),
      );
    },
  };
}
