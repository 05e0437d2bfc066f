/**
 * Scheduling-related PodSpec validation: node/pod affinity, tolerations, topology spread
 * constraints, scheduling and readiness gates, DNS config, host aliases, resource claims.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { duplicate, type FieldError, forbidden, invalid, notSupported, type Path, required } from '../../../../apimachinery/field-errors.js';
import {
  isDNS1123Subdomain,
  isValidIP,
  isValidLabelValue,
  nameIsDNSSubdomain,
  validateLabelName,
  validateLabelSelector,
  validateNamespaceName,
} from '../../../../apimachinery/validation.js';
import { eachInvalid, IS_NOT_POSITIVE_ERROR_MSG, type PodValidationOptions, validateDNS1123Label, validateQualifiedName } from './validation-common.js';
import type {
  Affinity,
  HostAlias,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  PodAffinityTerm,
  PodDNSConfig,
  PodResourceClaim,
  PodSchedulingGate,
  Toleration,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from './types.js';

/** A node selector requirement (upstream ValidateNodeSelectorRequirement). */
function validateNodeSelectorRequirement(rq: NodeSelectorRequirement, allowInvalidValues: boolean, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const values = rq.values ?? [];
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(required(p.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(invalid(p.child('operator'), rq.operator, 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(rq.key, p.child('key')));
  if (!allowInvalidValues) values.forEach((v, i) => errs.push(...eachInvalid(p.child('values').index(i), v, isValidLabelValue(v))));
  return errs;
}

function validateNodeFieldSelectorRequirement(rq: NodeSelectorRequirement, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (rq.operator === 'In' || rq.operator === 'NotIn') {
    if ((rq.values ?? []).length !== 1) errs.push(required(p.child('values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else errs.push(invalid(p.child('operator'), rq.operator, 'not a valid selector operator'));
  if (rq.key !== 'metadata.name') errs.push(invalid(p.child('key'), rq.key, 'not a valid field selector key'));
  else (rq.values ?? []).forEach((v, i) => errs.push(...eachInvalid(p.child('values').index(i), v, nameIsDNSSubdomain(v, false))));
  return errs;
}

/** Upstream ValidateNodeSelectorTerm. */
function validateNodeSelectorTerm(term: NodeSelectorTerm, allowInvalidValues: boolean, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (term.matchExpressions ?? []).forEach((r, j) => errs.push(...validateNodeSelectorRequirement(r, allowInvalidValues, p.child('matchExpressions').index(j))));
  (term.matchFields ?? []).forEach((r, j) => errs.push(...validateNodeFieldSelectorRequirement(r, p.child('matchFields').index(j))));
  return errs;
}

/** Upstream ValidateNodeSelector: at least one term. */
function validateNodeSelector(ns: NodeSelector, allowInvalidValues: boolean, p: Path): FieldError[] {
  const tp = p.child('nodeSelectorTerms');
  if (!ns.nodeSelectorTerms?.length) return [required(tp, 'must have at least one node selector term')];
  const errs: FieldError[] = [];
  ns.nodeSelectorTerms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, allowInvalidValues, tp.index(i))));
  return errs;
}

function validateLabelKeys(p: Path, keys: string[] | undefined, sel: LabelSelector | undefined): FieldError[] {
  if (!keys?.length) return [];
  if (!sel) return [forbidden(p, 'must not be specified when labelSelector is not set')];
  const errs: FieldError[] = [];
  keys.forEach((k, i) => errs.push(...validateLabelName(k, p.index(i))));
  return errs;
}

function validatePodAffinityTerm(t: PodAffinityTerm, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateLabelSelector(t.labelSelector, p.child('labelSelector')));
  errs.push(...validateLabelSelector(t.namespaceSelector, p.child('namespaceSelector')));
  for (const ns of t.namespaces ?? []) errs.push(...eachInvalid(p.child('namespace'), ns, validateNamespaceName(ns, false)));
  errs.push(...validateLabelKeys(p.child('matchLabelKeys'), t.matchLabelKeys, t.labelSelector));
  errs.push(...validateLabelKeys(p.child('mismatchLabelKeys'), t.mismatchLabelKeys, t.labelSelector));
  if (t.labelSelector) {
    const idx = new Map<string, number>();
    (t.matchLabelKeys ?? []).forEach((k, i) => idx.set(k, i));
    const selKeys = new Set(Object.keys(t.labelSelector.matchLabels ?? {}));
    for (const e of t.labelSelector.matchExpressions ?? []) {
      const i = idx.get(e.key);
      if (i !== undefined && selKeys.has(e.key)) errs.push(invalid(p.index(i), e.key, 'exists in both matchLabelKeys and labelSelector'));
      selKeys.add(e.key);
    }
  }
  const mismatch = new Set(t.mismatchLabelKeys ?? []);
  (t.matchLabelKeys ?? []).forEach((k, i) => {
    if (mismatch.has(k)) errs.push(invalid(p.child('matchLabelKeys').index(i), k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  if (!t.topologyKey) errs.push(required(p.child('topologyKey'), 'can not be empty'));
  errs.push(...validateLabelName(t.topologyKey ?? '', p.child('topologyKey')));
  return errs;
}

function validateWeightedTerms(terms: WeightedPodAffinityTerm[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (terms ?? []).forEach((w, j) => {
    if (w.weight <= 0 || w.weight > 100) errs.push(invalid(p.index(j).child('weight'), w.weight, 'must be in the range 1-100'));
    errs.push(...validatePodAffinityTerm(w.podAffinityTerm, p.index(j).child('podAffinityTerm')));
  });
  return errs;
}

/** spec.affinity (upstream validateAffinity). */
export function validateAffinity(a: Affinity | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!a) return errs;
  const na = a.nodeAffinity;
  if (na) {
    const np = p.child('nodeAffinity');
    if (na.requiredDuringSchedulingIgnoredDuringExecution) {
      errs.push(...validateNodeSelector(na.requiredDuringSchedulingIgnoredDuringExecution, false, np.child('requiredDuringSchedulingIgnoredDuringExecution')));
    }
    (na.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((t, i) => {
      const tp = np.child('preferredDuringSchedulingIgnoredDuringExecution').index(i);
      if (t.weight <= 0 || t.weight > 100) errs.push(invalid(tp.child('weight'), t.weight, 'must be in the range 1-100'));
      errs.push(...validateNodeSelectorTerm(t.preference, true, tp.child('preference')));
    });
  }
  for (const [key, pa] of [
    ['podAffinity', a.podAffinity],
    ['podAntiAffinity', a.podAntiAffinity],
  ] as const) {
    if (!pa) continue;
    const pp = p.child(key);
    (pa.requiredDuringSchedulingIgnoredDuringExecution ?? []).forEach((t, i) =>
      errs.push(...validatePodAffinityTerm(t, pp.child('requiredDuringSchedulingIgnoredDuringExecution').index(i))),
    );
    errs.push(...validateWeightedTerms(pa.preferredDuringSchedulingIgnoredDuringExecution, pp.child('preferredDuringSchedulingIgnoredDuringExecution')));
  }
  return errs;
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** spec.tolerations (upstream ValidateTolerations). */
export function validateTolerations(tolerations: Toleration[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (tolerations ?? []).forEach((t, i) => {
    const ip = p.index(i);
    if (t.key) errs.push(...validateLabelName(t.key, ip.child('key')));
    if (!t.key && t.operator !== 'Exists') {
      errs.push(invalid(ip.child('operator'), t.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute') {
      errs.push(invalid(ip.child('effect'), t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (t.operator ?? '') {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(t.value ?? '');
        if (msgs.length) errs.push(invalid(ip.child('operator'), t.value ?? '', msgs.join(';')));
        break;
      }
      case 'Exists':
        if (t.value) errs.push(invalid(ip.child('operator'), t.value, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(notSupported(ip.child('operator'), t.operator, ['Equal', 'Exists']));
    }
    if (t.effect && !TAINT_EFFECTS.includes(t.effect)) errs.push(notSupported(ip.child('effect'), t.effect, TAINT_EFFECTS));
  });
  return errs;
}

/** spec.topologySpreadConstraints (upstream validateTopologySpreadConstraints). */
export function validateTopologySpreadConstraints(list: TopologySpreadConstraint[] | undefined, p: Path, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const constraints = list ?? [];
  constraints.forEach((c, i) => {
    const sp = p.index(i);
    if (!(c.maxSkew > 0)) errs.push(invalid(sp.child('maxSkew'), c.maxSkew, IS_NOT_POSITIVE_ERROR_MSG));
    if (!c.topologyKey) errs.push(required(sp.child('topologyKey'), 'can not be empty'));
    if (c.whenUnsatisfiable !== 'DoNotSchedule' && c.whenUnsatisfiable !== 'ScheduleAnyway') {
      errs.push(notSupported(sp.child('whenUnsatisfiable'), c.whenUnsatisfiable, ['DoNotSchedule', 'ScheduleAnyway']));
    }
    for (const r of constraints.slice(i + 1)) {
      if (r.topologyKey === c.topologyKey && r.whenUnsatisfiable === c.whenUnsatisfiable) {
        errs.push(duplicate(sp.child('{topologyKey, whenUnsatisfiable}'), `{${c.topologyKey}, ${c.whenUnsatisfiable}}`));
        break;
      }
    }
    if (c.minDomains !== undefined && c.minDomains !== null) {
      if (c.minDomains <= 0) errs.push(invalid(sp.child('minDomains'), c.minDomains, IS_NOT_POSITIVE_ERROR_MSG));
      if (c.whenUnsatisfiable !== 'DoNotSchedule') {
        errs.push(invalid(sp.child('minDomains'), c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${c.whenUnsatisfiable}`));
      }
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const) {
      const v = c[f];
      if (v !== undefined && v !== null && v !== 'Honor' && v !== 'Ignore') errs.push(notSupported(sp.child(f), v, ['Honor', 'Ignore']));
    }
    if (c.matchLabelKeys?.length) {
      const mp = sp.child('matchLabelKeys');
      const keys = new Set<string>();
      if (c.labelSelector) {
        for (const k of Object.keys(c.labelSelector.matchLabels ?? {})) keys.add(k);
        for (const e of c.labelSelector.matchExpressions ?? []) keys.add(e.key);
      } else errs.push(forbidden(mp, 'must not be specified when labelSelector is not set'));
      c.matchLabelKeys.forEach((k, j) => {
        errs.push(...validateLabelName(k, mp.index(j)));
        if (keys.has(k)) errs.push(invalid(mp.index(j), k, 'exists in both matchLabelKeys and labelSelector'));
      });
    }
    if (!opts.allowInvalidTopologySpreadConstraintLabelSelector) errs.push(...validateLabelSelector(c.labelSelector, sp.child('labelSelector')));
  });
  return errs;
}

/** spec.schedulingGates: qualified names, no duplicates. */
export function validateSchedulingGates(gates: PodSchedulingGate[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (gates ?? []).forEach((g, i) => {
    errs.push(...validateQualifiedName(g.name, p.index(i)));
    if (seen.has(g.name)) errs.push(duplicate(p.index(i), g.name));
    seen.add(g.name);
  });
  return errs;
}

/** spec.readinessGates: condition types are qualified names. */
export function validateReadinessGates(gates: { conditionType: string }[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (gates ?? []).forEach((g, i) => errs.push(...validateQualifiedName(g.conditionType, p.index(i).child('conditionType'))));
  return errs;
}

/** spec.dnsConfig with spec.dnsPolicy (upstream validatePodDNSConfig). */
export function validatePodDNSConfig(cfg: PodDNSConfig | undefined, dnsPolicy: string | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (dnsPolicy === 'None') {
    if (!cfg) return [required(p, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (!cfg.nameservers?.length) return [required(p.child('nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!cfg) return errs;
  const ns = cfg.nameservers ?? [];
  if (ns.length > 3) errs.push(invalid(p.child('nameservers'), ns, 'must not have more than 3 nameservers'));
  ns.forEach((n, i) => errs.push(...eachInvalid(p.child('nameservers').index(i), n, isValidIP(n))));
  const searches = cfg.searches ?? [];
  if (searches.length > 32) errs.push(invalid(p.child('searches'), searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errs.push(invalid(p.child('searches'), searches, 'must not have more than 2048 characters (including spaces) in the search list'));
  searches.forEach((s, i) => {
    const t = s.endsWith('.') ? s.slice(0, -1) : s;
    errs.push(...eachInvalid(p.child('searches').index(i), t, isDNS1123Subdomain(t)));
  });
  (cfg.options ?? []).forEach((o, i) => {
    if (!o.name) errs.push(required(p.child('options').index(i), 'must not be empty'));
  });
  return errs;
}

/** spec.hostAliases (upstream ValidateHostAliases). */
export function validateHostAliases(aliases: HostAlias[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (aliases ?? []).forEach((a, i) => {
    errs.push(...eachInvalid(p.index(i).child('ip'), a.ip ?? '', isValidIP(a.ip ?? '')));
    (a.hostnames ?? []).forEach((h, j) => errs.push(...eachInvalid(p.index(i).child('hostnames').index(j), h, isDNS1123Subdomain(h))));
  });
  return errs;
}

/** spec.resourceClaims (upstream validatePodResourceClaims). */
export function validatePodResourceClaims(claims: PodResourceClaim[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (claims ?? []).forEach((c, i) => {
    const ip = p.index(i);
    if (!c.name) errs.push(required(ip.child('name'), ''));
    else if (names.has(c.name)) errs.push(duplicate(ip.child('name'), c.name));
    else {
      errs.push(...validateDNS1123Label(c.name, ip.child('name')));
      names.add(c.name);
    }
    const claimName = c.resourceClaimName ?? c.source?.resourceClaimName;
    const tmplName = c.resourceClaimTemplateName ?? c.source?.resourceClaimTemplateName;
    if (claimName !== undefined && tmplName !== undefined) errs.push(invalid(ip, c, 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'));
    if (claimName === undefined && tmplName === undefined) errs.push(invalid(ip, c, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
    if (claimName !== undefined) errs.push(...eachInvalid(ip.child('resourceClaimName'), claimName, nameIsDNSSubdomain(claimName, false)));
    if (tmplName !== undefined) errs.push(...eachInvalid(ip.child('resourceClaimTemplateName'), tmplName, nameIsDNSSubdomain(tmplName, false)));
  });
  return errs;
}

/** spec.imagePullSecrets: only `name` may be set. */
export function validateImagePullSecrets(secrets: { name?: string }[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (secrets ?? []).forEach((s, i) => {
    if (Object.keys(s).some((k) => k !== 'name')) errs.push(invalid(p.index(i), s, 'only name may be set'));
  });
  return errs;
}
