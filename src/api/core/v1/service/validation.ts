/**
 * Service validation as upstream ValidateService / ValidateServiceUpdate /
 * ValidateServiceStatusUpdate (ObjectMeta is validated by the store; names are DNS-1035
 * labels).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 */
import type { LoadBalancerStatus, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { type FieldError, duplicate, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Subdomain, isValidCIDR, isValidPortNum, parseIPSloppy, validateLabels } from '../../../../apimachinery/validation.js';
import { validateDNS1123Label, validateIP, validateNonSpecialIP, validatePortNumOrName, validateQualifiedName } from '../shared/validation.js';
import type { O } from '../shared/types.js';
import { externallyAccessible, isHeadless, needsHealthCheck } from './defaults.js';

const SESSION_AFFINITIES = ['ClientIP', 'None'];
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const INTERNAL_TRAFFIC_POLICIES = ['Cluster', 'Local'];
const EXTERNAL_TRAFFIC_POLICIES = ['Cluster', 'Local'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const LB_IP_MODES = ['Proxy', 'VIP'];
/** upstream core.MaxClientIPServiceAffinitySeconds (1 day) */
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;

const spec = Path.root('spec');

function validateServicePort(sp: ServicePort, requireName: boolean, names: Set<string>, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (requireName && !sp.name) errs.push(required(p.child('name'), ''));
  else if (sp.name) {
    errs.push(...validateDNS1123Label(sp.name, p.child('name')));
    if (names.has(sp.name)) errs.push(duplicate(p.child('name'), sp.name));
    else names.add(sp.name);
  }
  for (const m of isValidPortNum(sp.port)) errs.push(invalid(p.child('port'), sp.port, m));
  if (!sp.protocol) errs.push(required(p.child('protocol'), ''));
  else if (!PROTOCOLS.includes(sp.protocol)) errs.push(notSupported(p.child('protocol'), sp.protocol, PROTOCOLS));
  errs.push(...validatePortNumOrName(sp.targetPort, p.child('targetPort')));
  if (sp.appProtocol !== undefined) errs.push(...validateQualifiedName(sp.appProtocol, p.child('appProtocol')));
  return errs;
}

/**
 * Upstream ValidateServiceClusterIPsRelatedFields (also run by the allocator before it
 * allocates, as upstream does).
 */
export function validateServiceClusterIPsRelatedFields(svc: O<Service>): FieldError[] {
  const s = svc.spec ?? {};
  if (s.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ipsPath = spec.child('clusterIPs');
  const clusterIPs = s.clusterIPs ?? [];
  if (s.clusterIP) {
    if (clusterIPs.length === 0) errs.push(required(ipsPath, ''));
    else if (clusterIPs[0] !== s.clusterIP) errs.push(invalid(ipsPath, clusterIPs, 'first value must match `clusterIP`'));
  } else if (clusterIPs.length !== 0) {
    errs.push(invalid(ipsPath, clusterIPs, 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  (s.ipFamilies ?? []).forEach((f, i) => {
    if (!IP_FAMILIES.includes(f)) errs.push(notSupported(spec.child('ipFamilies').index(i), f, IP_FAMILIES));
    if (seen.has(f)) errs.push(duplicate(spec.child('ipFamilies').index(i), f));
    seen.add(f);
  });
  if (s.ipFamilyPolicy !== undefined && !IP_FAMILY_POLICIES.includes(s.ipFamilyPolicy)) {
    errs.push(notSupported(spec.child('ipFamilyPolicy'), s.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let hasInvalidIPs = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (clusterIPs.length > 1) {
        hasInvalidIPs = true;
        errs.push(invalid(ipsPath, clusterIPs, "'None' must be the first and only value"));
      }
      return;
    }
    const e = validateIP(ip, ipsPath.index(i));
    if (e.length > 0) hasInvalidIPs = true;
    errs.push(...e);
  });
  if (clusterIPs.length > 2) errs.push(invalid(ipsPath, clusterIPs, 'may only hold up to 2 values'));
  if (hasInvalidIPs) return errs;
  if (clusterIPs.length > 1) {
    const fams = clusterIPs.map((ip) => parseIPSloppy(ip));
    const dual = fams.length === 2 && fams[0] !== fams[1];
    if (!dual) errs.push(invalid(ipsPath, clusterIPs, 'may specify no more than one IP for each IP family'));
  }
  const families = s.ipFamilies ?? [];
  if (!isHeadless(svc) && clusterIPs.length > 0 && families.length > 0) {
    clusterIPs.forEach((ip, i) => {
      if (i > families.length - 1) return;
      const v6 = parseIPSloppy(ip) === 6;
      if (families[i] === 'IPv4' && v6) errs.push(invalid(ipsPath.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !v6) errs.push(invalid(ipsPath.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

/** Upstream ValidateService (without ObjectMeta). */
export function validateService(svc: O<Service>): FieldError[] {
  const errs: FieldError[] = [];
  const s = svc.spec ?? {};
  const ann = svc.metadata.annotations ?? {};
  const hintsKey = 'service.kubernetes.io/topology-aware-hints';
  const modeKey = 'service.kubernetes.io/topology-mode';
  if (modeKey in ann && hintsKey in ann && ann[modeKey] !== ann[hintsKey]) {
    errs.push(invalid(Path.root('metadata').child('annotations').key(modeKey), ann[modeKey], `must match annotations[${hintsKey}] when both are specified`));
  }
  const ports = s.ports ?? [];
  const headless = isHeadless(svc);
  if (ports.length === 0 && !headless && s.type !== 'ExternalName') errs.push(required(spec.child('ports'), ''));
  switch (s.type) {
    case 'LoadBalancer':
      if (headless) errs.push(invalid(spec.child('clusterIPs').index(0), s.clusterIPs![0], "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (headless) errs.push(invalid(spec.child('clusterIPs').index(0), s.clusterIPs![0], "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if ((s.clusterIPs?.length ?? 0) > 0) errs.push(forbidden(spec.child('clusterIPs'), 'may not be set for ExternalName services'));
      if ((s.ipFamilies?.length ?? 0) > 0) errs.push(forbidden(spec.child('ipFamilies'), 'may not be set for ExternalName services'));
      if (s.ipFamilyPolicy !== undefined) errs.push(forbidden(spec.child('ipFamilyPolicy'), 'may not be set for ExternalName services'));
      const cname = (s.externalName ?? '').replace(/\.$/, '');
      if (cname) for (const m of isDNS1123Subdomain(cname)) errs.push(invalid(spec.child('externalName'), cname, m));
      else errs.push(required(spec.child('externalName'), ''));
      break;
    }
    default:
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, spec.child('ports').index(i))));
  if (s.selector) errs.push(...validateLabels(s.selector, spec.child('selector')));
  if (!s.sessionAffinity) errs.push(required(spec.child('sessionAffinity'), ''));
  else if (!SESSION_AFFINITIES.includes(s.sessionAffinity)) errs.push(notSupported(spec.child('sessionAffinity'), s.sessionAffinity, SESSION_AFFINITIES));
  if (s.sessionAffinity === 'ClientIP') {
    const p = spec.child('sessionAffinityConfig');
    const why = 'when session affinity type is ClientIP';
    const cfg = s.sessionAffinityConfig;
    if (!cfg) errs.push(required(p, why));
    else if (!cfg.clientIP) errs.push(required(p.child('clientIP'), why));
    else if (cfg.clientIP.timeoutSeconds === undefined) errs.push(required(p.child('clientIP').child('timeoutSeconds'), why));
    else if (cfg.clientIP.timeoutSeconds <= 0 || cfg.clientIP.timeoutSeconds > MAX_CLIENT_IP_AFFINITY_SECONDS) {
      errs.push(invalid(p.child('clientIP').child('timeoutSeconds'), cfg.clientIP.timeoutSeconds, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`));
    }
  } else if (s.sessionAffinity === 'None' && s.sessionAffinityConfig) {
    errs.push(forbidden(spec.child('sessionAffinityConfig'), 'must not be set when session affinity is None'));
  }
  errs.push(...validateServiceClusterIPsRelatedFields(svc));
  (s.externalIPs ?? []).forEach((ip, i) => {
    const p = spec.child('externalIPs').index(i);
    const e = validateIP(ip, p);
    errs.push(...(e.length > 0 ? e : validateNonSpecialIP(ip, p)));
  });
  if (!s.type) errs.push(required(spec.child('type'), ''));
  else if (!SERVICE_TYPES.includes(s.type)) errs.push(notSupported(spec.child('type'), s.type, SERVICE_TYPES));
  if (s.type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p.nodePort) errs.push(forbidden(spec.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const key = `${p.protocol}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push(duplicate(spec.child('ports').index(i).child('nodePort'), p.nodePort));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p.protocol}/${p.port}`;
    if (portKeys.has(key)) errs.push(duplicate(spec.child('ports').index(i), { protocol: p.protocol, port: p.port }));
    portKeys.add(key);
  });
  const lbRanges = s.loadBalancerSourceRanges ?? [];
  if (lbRanges.length > 0) {
    const p = spec.child('LoadBalancerSourceRanges');
    if (s.type !== 'LoadBalancer') errs.push(forbidden(p, "may only be used when `type` is 'LoadBalancer'"));
    lbRanges.forEach((v, i) => {
      const t = v.trim();
      for (const m of isValidCIDR(t)) errs.push(invalid(p.index(i), t, m));
    });
  } else if ('service.beta.kubernetes.io/load-balancer-source-ranges' in ann) {
    const p = Path.root('metadata').child('annotations').key('service.beta.kubernetes.io/load-balancer-source-ranges');
    if (s.type !== 'LoadBalancer') errs.push(forbidden(p, "may only be used when `type` is 'LoadBalancer'"));
    const val = (ann['service.beta.kubernetes.io/load-balancer-source-ranges'] ?? '').trim();
    if (val) for (const c of val.split(',')) for (const m of isValidCIDR(c.trim())) errs.push(invalid(p, c.trim(), m));
  }
  if (s.allocateLoadBalancerNodePorts !== undefined && s.type !== 'LoadBalancer') {
    errs.push(forbidden(spec.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"));
  }
  if (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts === undefined) errs.push(required('allocateLoadBalancerNodePorts', ''));
  errs.push(...validateLoadBalancerClass(svc, undefined));
  // external traffic policy
  if (!externallyAccessible(svc)) {
    if (s.externalTrafficPolicy) errs.push(invalid(spec.child('externalTrafficPolicy'), s.externalTrafficPolicy, 'may only be set for externally-accessible services'));
  } else if (!s.externalTrafficPolicy) {
    errs.push(required(spec.child('externalTrafficPolicy'), ''));
  } else if (!EXTERNAL_TRAFFIC_POLICIES.includes(s.externalTrafficPolicy)) {
    errs.push(notSupported(spec.child('externalTrafficPolicy'), s.externalTrafficPolicy, EXTERNAL_TRAFFIC_POLICIES));
  }
  if (!needsHealthCheck(svc)) {
    if (s.healthCheckNodePort) {
      errs.push(invalid(spec.child('healthCheckNodePort'), s.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    }
  } else if (!s.healthCheckNodePort) {
    errs.push(required(spec.child('healthCheckNodePort'), ''));
  } else {
    for (const m of isValidPortNum(s.healthCheckNodePort)) errs.push(invalid(spec.child('healthCheckNodePort'), s.healthCheckNodePort, m));
  }
  // internal traffic policy
  if (s.internalTrafficPolicy === undefined) {
    if (s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP') errs.push(required(spec.child('internalTrafficPolicy'), ''));
  } else if (!INTERNAL_TRAFFIC_POLICIES.includes(s.internalTrafficPolicy)) {
    errs.push(notSupported(spec.child('internalTrafficPolicy'), s.internalTrafficPolicy, INTERNAL_TRAFFIC_POLICIES));
  }
  if (s.trafficDistribution !== undefined && s.trafficDistribution !== 'PreferClose') {
    errs.push(notSupported(spec.child('trafficDistribution'), s.trafficDistribution, ['PreferClose']));
  }
  return errs;
}

function validateLoadBalancerClass(svc: O<Service>, old: O<Service> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const p = spec.child('loadBalancerClass');
  const cls = svc.spec?.loadBalancerClass;
  if (old && old.spec?.type === 'LoadBalancer' && svc.spec?.type === 'LoadBalancer' && (old.spec.loadBalancerClass ?? null) !== (cls ?? null)) {
    errs.push(invalid(p, cls ?? null, 'may not change once set'));
  }
  if (svc.spec?.type === 'LoadBalancer') {
    if (cls !== undefined) errs.push(...validateQualifiedName(cls, p));
  } else if (cls !== undefined) {
    errs.push(forbidden(p, "may only be used when `type` is 'LoadBalancer'"));
  }
  return errs;
}

function validateUpgradeDowngradeClusterIPs(old: O<Service>, svc: O<Service>): FieldError[] {
  const errs: FieldError[] = [];
  if (svc.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName') return errs;
  if (isHeadless(old) && isHeadless(svc)) return errs;
  const o = old.spec?.clusterIPs ?? [];
  const n = svc.spec?.clusterIPs ?? [];
  const p = spec.child('clusterIPs');
  if (o.length === n.length) {
    o.forEach((ip, i) => ip !== n[i] && errs.push(invalid(p.index(i), n, 'may not change once set')));
  } else if (o.length > n.length) {
    if (n.length === 0) errs.push(invalid(p.index(0), n, 'primary clusterIP can not be unset'));
    if (o.length > 0 && n.length > 0 && n[0] !== o[0]) errs.push(invalid(p.index(0), n, 'may not change once set'));
    if (n.length === 1 && svc.spec?.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalid(spec.child('ipFamilyPolicy'), svc.spec?.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (o.length > 0 && n[0] !== o[0]) {
    errs.push(invalid(p.index(0), n, 'may not change once set'));
  }
  return errs;
}

function validateUpgradeDowngradeIPFamilies(old: O<Service>, svc: O<Service>): FieldError[] {
  const errs: FieldError[] = [];
  if (svc.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName') return errs;
  if (isHeadless(old) !== isHeadless(svc) || isHeadless(svc)) return errs;
  const o = old.spec?.ipFamilies ?? [];
  const n = svc.spec?.ipFamilies ?? [];
  const p = spec.child('ipFamilies').index(0);
  if (o.length === n.length) {
    o.forEach((f, i) => f !== n[i] && errs.push(invalid(p, n, 'may not change once set')));
  } else if (o.length > n.length) {
    if ((svc.spec?.clusterIPs?.length ?? 0) === 0) errs.push(invalid(p, n, 'primary ipFamily can not be unset'));
    if (n.length > 0 && n[0] !== o[0]) errs.push(invalid(p, svc.spec?.clusterIPs ?? [], 'may not change once set'));
    if (n.length === 1 && svc.spec?.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalid(spec.child('ipFamilyPolicy'), svc.spec?.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (o.length > 0 && n.length > 0 && n[0] !== o[0]) {
    errs.push(invalid(p, svc.spec?.clusterIPs ?? [], 'may not change once set'));
  }
  return errs;
}

/** Upstream ValidateServiceUpdate (without ObjectMeta). */
export function validateServiceUpdate(svc: O<Service>, old: O<Service>): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateUpgradeDowngradeClusterIPs(old, svc));
  errs.push(...validateUpgradeDowngradeIPFamilies(old, svc));
  errs.push(...validateLoadBalancerClass(svc, old).filter((e) => e.detail === 'may not change once set'));
  if (needsHealthCheck(old) && needsHealthCheck(svc) && (svc.spec?.healthCheckNodePort ?? 0) !== (old.spec?.healthCheckNodePort ?? 0)) {
    errs.push(forbidden(spec.child('healthCheckNodePort'), 'field is immutable'));
  }
  errs.push(...validateService(svc));
  return errs;
}

/** Upstream ValidateLoadBalancerStatus (LoadBalancerIPMode on, AllowServiceLBStatusOnNonLB off). */
export function validateLoadBalancerStatus(status: LoadBalancerStatus | undefined, svc: O<Service>): FieldError[] {
  const errs: FieldError[] = [];
  const p = Path.root('status').child('loadBalancer').child('ingress');
  const ingress = status?.ingress ?? [];
  if (svc.spec?.type !== 'LoadBalancer' && ingress.length > 0) {
    return [forbidden(p, "may only be used when `spec.type` is 'LoadBalancer'")];
  }
  ingress.forEach((ing, i) => {
    const ip = p.index(i);
    if (ing.ip) errs.push(...validateIP(ing.ip, ip.child('ip')));
    if (!ing.ipMode) {
      if (ing.ip) errs.push(required(ip.child('ipMode'), 'must be specified when `ip` is set'));
    } else if (!ing.ip) {
      errs.push(forbidden(ip.child('ipMode'), 'may not be specified when `ip` is not set'));
    } else if (!LB_IP_MODES.includes(ing.ipMode)) {
      errs.push(notSupported(ip.child('ipMode'), ing.ipMode, LB_IP_MODES));
    }
    if (ing.hostname) {
      for (const m of isDNS1123Subdomain(ing.hostname)) errs.push(invalid(ip.child('hostname'), ing.hostname, m));
      if (parseIPSloppy(ing.hostname)) errs.push(invalid(ip.child('hostname'), ing.hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}
