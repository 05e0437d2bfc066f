/**
 * PodSecurity admission: the Pod Security Standards level of a namespace's
 * `pod-security.kubernetes.io/<mode>[-version]` labels — `enforce` rejects violating
 * pods (403 `violates PodSecurity "restricted:latest": …`), `warn` returns
 * `would violate PodSecurity …` warnings, `audit` records them as an audit annotation.
 * Workload resources (Deployments, Jobs …) are warned about and audited on their pod
 * template, never rejected. Changing a namespace's enforce level warns about existing
 * pods that violate it.
 *
 * @see https://kubernetes.io/docs/concepts/security/pod-security-admission/
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/pod-security-admission/admission/admission.go
 */
import type { Namespace, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { KObject } from '../../../api/resource.js';
import { failureStatus, newForbidden, StatusError } from '../../../apimachinery/errors.js';
import { jsonEqual } from '../../../apimachinery/validation.js';
import { addAuditAnnotation } from '../../audit/context.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { evaluatePod, type Level, violationText } from './pod-security-checks.js';

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
const LEVELS: Level[] = ['privileged', 'baseline', 'restricted'];

export interface PodSecurityPolicy {
  level: Level;
  version: string;
}

export interface PodSecurityOptions {
  /** defaults when a namespace has no label (upstream PodSecurityConfiguration.defaults) */
  defaults?: Partial<Record<'enforce' | 'warn' | 'audit', PodSecurityPolicy>>;
  exemptions?: { usernames?: string[]; namespaces?: string[]; runtimeClasses?: string[] };
}

/** The policies of one namespace's labels (with the configured defaults). */
interface NamespacePolicies {
  enforce: PodSecurityPolicy;
  warn: PodSecurityPolicy;
  audit: PodSecurityPolicy;
  /** `policyString(enforce)` */
  enforceString: string;
  /** warn is the same policy as enforce (nothing more to warn about on pods) */
  warnIsEnforce: boolean;
}

const ENFORCE_POLICY_ANNOTATION = `${LABEL_PREFIX}enforce-policy`;

/** `restricted:latest` */
export const policyString = (p: PodSecurityPolicy): string => `${p.level}:${p.version}`;

function policyFor(labels: Record<string, string> | undefined, mode: 'enforce' | 'warn' | 'audit', def?: PodSecurityPolicy): PodSecurityPolicy {
  const lv = labels?.[`${LABEL_PREFIX}${mode}`];
  const ver = labels?.[`${LABEL_PREFIX}${mode}-version`];
  let level: Level = def?.level ?? 'privileged';
  // an unparsable level fails closed for enforce and open for warn/audit (upstream PolicyToEvaluate)
  if (lv !== undefined) level = LEVELS.includes(lv as Level) ? (lv as Level) : mode === 'enforce' ? 'restricted' : 'privileged';
  let version = def?.version ?? 'latest';
  if (ver !== undefined) version = /^(latest|v1\.\d+)$/.test(ver) ? ver : 'latest';
  return { level, version };
}

/** Pod templates of workload resources: group/resource → path to the template. */
const TEMPLATES: Record<string, (o: KObject) => { metadata?: ObjectMeta; spec?: PodSpec } | undefined> = {
  '/replicationcontrollers': (o) => (o.spec as { template?: { metadata?: ObjectMeta; spec?: PodSpec } })?.template,
  '/podtemplates': (o) => o.template as { metadata?: ObjectMeta; spec?: PodSpec } | undefined,
  'apps/deployments': (o) => (o.spec as { template?: { spec?: PodSpec } })?.template,
  'apps/replicasets': (o) => (o.spec as { template?: { spec?: PodSpec } })?.template,
  'apps/statefulsets': (o) => (o.spec as { template?: { spec?: PodSpec } })?.template,
  'apps/daemonsets': (o) => (o.spec as { template?: { spec?: PodSpec } })?.template,
  'batch/jobs': (o) => (o.spec as { template?: { spec?: PodSpec } })?.template,
  'batch/cronjobs': (o) => (o.spec as { jobTemplate?: { spec?: { template?: { spec?: PodSpec } } } })?.jobTemplate?.spec?.template,
};

export function podSecurity(opts: PodSecurityOptions = {}): AdmissionPlugin {
  const exemptUsers = new Set(opts.exemptions?.usernames ?? []);
  const exemptNamespaces = new Set(opts.exemptions?.namespaces ?? []);
  const exemptRuntimeClasses = new Set(opts.exemptions?.runtimeClasses ?? []);

  // A namespace's policies, computed once per version of its labels: the namespace
  // objects served from the watch cache are immutable, a label change makes a new one.
  const NO_LABELS = {};
  const policies = new WeakMap<object, NamespacePolicies>();
  const policiesOf = (labels: Record<string, string> | undefined): NamespacePolicies => {
    const key = labels ?? NO_LABELS;
    let p = policies.get(key);
    if (p === undefined) {
      const enforce = policyFor(labels, 'enforce', opts.defaults?.enforce);
      const warn = policyFor(labels, 'warn', opts.defaults?.warn);
      const audit = policyFor(labels, 'audit', opts.defaults?.audit);
      p = { enforce, warn, audit, enforceString: policyString(enforce), warnIsEnforce: jsonEqual(warn, enforce) };
      policies.set(key, p);
    }
    return p;
  };

  const evaluate = (p: PodSecurityPolicy, meta: ObjectMeta, spec: PodSpec): string | undefined => {
    if (p.level === 'privileged') return undefined;
    const v = evaluatePod(p.level, meta, spec);
    return v.length ? violationText(v) : undefined;
  };

  return {
    name: 'PodSecurity',
    async validate(a: AdmissionAttributes, lookup) {
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      const gr = `${a.resource.group}/${a.resource.resource}`;
      if (gr === '/namespaces') return namespaceWarnings(a, lookup);
      const isPod = gr === '/pods';
      if (isPod && a.subresource !== '' && a.subresource !== 'ephemeralcontainers') return;
      if (!isPod && (!TEMPLATES[gr] || a.subresource)) return;
      if (!a.namespace || exemptNamespaces.has(a.namespace) || exemptUsers.has(a.user.username)) return;
      const obj = a.object;
      if (!obj) return;
      let meta: ObjectMeta;
      let spec: PodSpec | undefined;
      if (isPod) {
        meta = obj.metadata;
        spec = obj.spec as PodSpec | undefined;
        if (a.operation === 'UPDATE' && a.subresource === '' && jsonEqual(spec, a.oldObject?.spec)) return;
      } else {
        const t = TEMPLATES[gr]!(obj);
        meta = t?.metadata ?? {};
        spec = t?.spec;
        if (a.operation === 'UPDATE' && a.oldObject && jsonEqual(spec, TEMPLATES[gr]!(a.oldObject)?.spec)) return;
      }
      if (!spec) return;
      if (spec.runtimeClassName && exemptRuntimeClasses.has(spec.runtimeClassName)) return;
      const ns = (await lookup.get({ group: '', version: 'v1', resource: 'namespaces' }, '', a.namespace)) as Namespace | undefined;
      const { enforce, warn, audit, enforceString, warnIsEnforce } = policiesOf(ns?.metadata?.labels);
      if (isPod) {
        addAuditAnnotation(ENFORCE_POLICY_ANNOTATION, enforceString);
        const v = evaluate(enforce, meta, spec);
        if (v) {
          throw newForbidden({ group: '', resource: 'pods' }, obj.metadata.name ?? '', `violates PodSecurity "${enforceString}": ${v}`);
        }
      }
      const auditV = evaluate(audit, meta, spec);
      if (auditV) addAuditAnnotation(`${LABEL_PREFIX}audit-violations`, `would violate PodSecurity "${policyString(audit)}": ${auditV}`);
      if (isPod && warnIsEnforce) return;
      const warnV = evaluate(warn, meta, spec);
      if (warnV) a.warnings.push(`would violate PodSecurity "${policyString(warn)}": ${warnV}`);
    },
  };
}

/** Label errors as upstream PolicyToEvaluate reports them (`metadata.labels[…]: Invalid value: …`). */
export function labelErrors(labels: Record<string, string> | undefined): string[] {
  const errs: string[] = [];
  for (const mode of ['enforce', 'audit', 'warn']) {
    const lk = `${LABEL_PREFIX}${mode}`;
    const lv = labels?.[lk];
    if (lv !== undefined && !LEVELS.includes(lv as Level))
      errs.push(`metadata.labels[${lk}]: Invalid value: ${JSON.stringify(lv)}: must be one of privileged, baseline, restricted`);
    const vk = `${lk}-version`;
    const vv = labels?.[vk];
    if (vv !== undefined && !/^(latest|v1\.\d+)$/.test(vv)) errs.push(`metadata.labels[${vk}]: Invalid value: ${JSON.stringify(vv)}: must be "latest" or "v1.x"`);
  }
  return errs;
}

/** Refuses invalid labels; on a namespace whose enforce level changes, warns about existing pods it would reject. */
async function namespaceWarnings(a: AdmissionAttributes, lookup: Parameters<NonNullable<AdmissionPlugin['validate']>>[1]): Promise<void> {
  if (a.subresource || !a.object) return;
  const labels = a.object.metadata.labels;
  const errs = labelErrors(labels);
  if (errs.length && (a.operation === 'CREATE' || !jsonEqual(labelErrors(a.oldObject?.metadata.labels), errs))) {
    throw new StatusError(failureStatus(422, 'Invalid', errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`));
  }
  const oldLabels = a.oldObject?.metadata.labels;
  const enforce = policyFor(labels, 'enforce');
  if (enforce.level === 'privileged') return;
  if (a.operation === 'UPDATE' && jsonEqual(enforce, policyFor(oldLabels, 'enforce'))) return;
  if (a.operation === 'CREATE') return;
  const name = a.object.metadata.name ?? '';
  const pods = await lookup.list({ group: '', version: 'v1', resource: 'pods' }, name);
  // pods with the same violations are reported once: the lexically first name and a count
  const byReason = new Map<string, { first: string; count: number }>();
  for (const p of pods) {
    const spec = p.spec as PodSpec | undefined;
    if (!spec) continue;
    const v = evaluatePod(enforce.level, p.metadata ?? {}, spec);
    if (!v.length) continue;
    const reason = v.map((r) => r.reason).join(', ');
    const podName = p.metadata?.name ?? '';
    const c = byReason.get(reason);
    if (!c) byReason.set(reason, { first: podName, count: 1 });
    else {
      c.count++;
      if (podName < c.first) c.first = podName;
    }
  }
  if (!byReason.size) return;
  a.warnings.push(`existing pods in namespace ${JSON.stringify(name)} violate the new PodSecurity enforce level ${JSON.stringify(policyString(enforce))}`);
  const lines = [...byReason].map(([reason, c]) => {
    const who = c.count === 1 ? c.first : c.count === 2 ? `${c.first} (and 1 other pod)` : `${c.first} (and ${c.count - 1} other pods)`;
    return `${who}: ${reason}`;
  });
  a.warnings.push(...lines.sort());
}
