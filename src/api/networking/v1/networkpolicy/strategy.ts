/**
 * networking.k8s.io/v1 NetworkPolicy (namespaced, short name `netpol`): defaults (port
 * protocol TCP; policyTypes Ingress, plus Egress when egress rules exist), validation as
 * upstream ValidateNetworkPolicy (ports and port ranges, peers with exactly one kind
 * when an ipBlock is used, ipBlock except a strict subset of cidr, policyTypes),
 * generation 1 on create and +1 on spec changes, printer NAME POD-SELECTOR AGE.
 * Enforcing policies is a network plugin's job.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/networking/networkpolicy/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/networking/validation/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/networking/v1/defaults.go
 */
import type { IPBlock, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort, NetworkPolicySpec } from 'kubernetes-types/networking/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { formatLabelSelector } from '../../../../apimachinery/labels.js';
import { isValidCIDR, isValidPortName, isValidPortNum, jsonEqual, validateLabelSelector } from '../../../../apimachinery/validation.js';
import { cidrContains, parseCIDR, type CIDR } from '../../../core/v1/shared/ip.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { type K, mutableMeta } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';

const SPEC = Path.root('spec');
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

function validatePort(port: NetworkPolicyPort, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol !== undefined && port.protocol !== null && !PROTOCOLS.includes(port.protocol)) errs.push(notSupported(p.child('protocol'), port.protocol, PROTOCOLS));
  const end = port.endPort;
  if (port.port !== undefined && port.port !== null) {
    if (typeof port.port === 'number') {
      for (const m of isValidPortNum(port.port)) errs.push(invalid(p.child('port'), port.port, m));
      if (end !== undefined && end !== null) {
        if (end < port.port) errs.push(invalid(p.child('endPort'), port.port, 'must be greater than or equal to `port`'));
        for (const m of isValidPortNum(end)) errs.push(invalid(p.child('endPort'), end, m));
      }
    } else {
      if (end !== undefined && end !== null) errs.push(invalid(p.child('endPort'), end, 'may not be specified when `port` is non-numeric'));
      for (const m of isValidPortName(port.port)) errs.push(invalid(p.child('port'), port.port, m));
    }
  } else if (end !== undefined && end !== null) {
    errs.push(invalid(p.child('endPort'), end, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function tryCIDR(s: string): CIDR | undefined {
  if (isValidCIDR(s).length > 0) return undefined;
  try {
    return parseCIDR(s);
  } catch {
    return undefined;
  }
}

/** Upstream ValidateIPBlock. */
function validateIPBlock(ipb: IPBlock, p: Path): FieldError[] {
  if (!ipb.cidr) return [required(p.child('cidr'), '')];
  const errs = isValidCIDR(ipb.cidr).map((m) => invalid(p.child('cidr'), ipb.cidr, m));
  const cidr = tryCIDR(ipb.cidr);
  if (!cidr) return errs;
  (ipb.except ?? []).forEach((ex, i) => {
    const ep = p.child('except').index(i);
    errs.push(...isValidCIDR(ex).map((m) => invalid(ep, ex, m)));
    const exc = tryCIDR(ex);
    if (!exc) return;
    if (!cidrContains(cidr, { family: exc.family, value: exc.base }) || cidr.prefix >= exc.prefix) errs.push(invalid(ep, ex, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: NetworkPolicyPeer, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  if (peer.podSelector) {
    n++;
    errs.push(...validateLabelSelector(peer.podSelector, p.child('podSelector')));
  }
  if (peer.namespaceSelector) {
    n++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, p.child('namespaceSelector')));
  }
  if (peer.ipBlock) {
    n++;
    errs.push(...validateIPBlock(peer.ipBlock, p.child('ipBlock')));
  }
  if (n === 0) errs.push(required(p, 'must specify a peer'));
  else if (n > 1 && peer.ipBlock) errs.push(forbidden(p, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** Upstream ValidateNetworkPolicySpec. */
function validateNetworkPolicySpec(spec: NetworkPolicySpec | undefined): FieldError[] {
  const s = spec ?? ({} as NetworkPolicySpec);
  const errs = validateLabelSelector(s.podSelector, SPEC.child('podSelector'));
  (s.ingress ?? []).forEach((rule, i) => {
    const rp = SPEC.child('ingress').index(i);
    (rule.ports ?? []).forEach((port, j) => errs.push(...validatePort(port, rp.child('ports').index(j))));
    (rule.from ?? []).forEach((peer, j) => errs.push(...validatePeer(peer, rp.child('from').index(j))));
  });
  (s.egress ?? []).forEach((rule, i) => {
    const rp = SPEC.child('egress').index(i);
    (rule.ports ?? []).forEach((port, j) => errs.push(...validatePort(port, rp.child('ports').index(j))));
    (rule.to ?? []).forEach((peer, j) => errs.push(...validatePeer(peer, rp.child('to').index(j))));
  });
  const types = s.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) {
    errs.push(invalid(SPEC.child('policyTypes'), types, 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(notSupported(SPEC.child('policyTypes').index(i), t, POLICY_TYPES));
  });
  return errs;
}

/** networking.k8s.io/v1 networkpolicies. */
export const networkPolicyDefinition: ResourceDefinition<K<NetworkPolicy>> = {
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  listKind: 'NetworkPolicyList',
  resource: 'networkpolicies',
  singular: 'networkpolicy',
  namespaced: true,
  shortNames: ['netpol'],
  schemaRef: 'networking/v1#NetworkPolicy',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    const spec = (obj.spec ??= {} as NetworkPolicySpec);
    for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) {
      for (const port of rule.ports ?? []) port.protocol ??= 'TCP';
    }
    if (!spec.policyTypes || spec.policyTypes.length === 0) {
      spec.policyTypes = (spec.egress ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
    }
  },
  prepareForCreate(obj) {
    mutableMeta(obj).generation = 1;
  },
  prepareForUpdate(obj, old) {
    const gen = old.metadata.generation ?? 1;
    mutableMeta(obj).generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? gen : gen + 1;
  },
  validate(obj) {
    return validateNetworkPolicySpec(obj.spec);
  },
  validateUpdate(obj) {
    return validateNetworkPolicySpec(obj.spec);
  },
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'Pod-Selector',
        'string',
        'Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.',
      ),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [obj.metadata.name ?? '', formatLabelSelector(obj.spec?.podSelector), translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
