/**
 * networking.k8s.io/v1 Ingress validation: upstream ValidateIngressSpec (rules, hosts,
 * HTTP paths and pathType, backends, TLS, ingressClassName) and the load-balancer status.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/networking/validation/validation.go
 */
import type { HTTPIngressPath, Ingress, IngressBackend, IngressRule, IngressSpec, IngressStatus, IngressTLS } from 'kubernetes-types/networking/v1.js';
import { type FieldError, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidIP, isValidPortName, isValidPortNum, maxLenError, parseIPSloppy, regexError } from '../../../../apimachinery/validation.js';

const SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const WILDCARD_FMT = '\\*\\.' + SUBDOMAIN_FMT;
const WILDCARD_RE = new RegExp(`^${WILDCARD_FMT}$`);
const WILDCARD_ERR =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

/** The pathType values upstream accepts, sorted as its NotSupported message lists them. */
const SUPPORTED_PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];
/** The legacy class annotation that may not be set together with spec.ingressClassName. */
const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** Upstream IsWildcardDNS1123Subdomain. */
function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!WILDCARD_RE.test(value)) errs.push(regexError(WILDCARD_ERR, WILDCARD_FMT, '*.example.com'));
  return errs;
}

/** A host: a wildcard or plain DNS subdomain. */
function hostErrors(host: string, p: Path): FieldError[] {
  const msgs = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
  return msgs.map((m) => invalid(p, host, m));
}

/** Upstream validateIngressBackend. */
function validateIngressBackend(b: IngressBackend, p: Path): FieldError[] {
  const hasResource = b.resource !== undefined && b.resource !== null;
  const hasService = b.service !== undefined && b.service !== null;
  if (hasResource && hasService) return [invalid(p, '', 'cannot set both resource and service backends')];
  if (hasResource) {
    const r = b.resource!;
    const rp = p.child('resource');
    const errs: FieldError[] = [];
    if (!r.kind) errs.push(required(rp.child('kind'), 'kind is required'));
    if (!r.name) errs.push(required(rp.child('name'), 'name is required'));
    if (r.apiGroup) errs.push(...isDNS1123Subdomain(r.apiGroup).map((m) => invalid(rp.child('apiGroup'), r.apiGroup, m)));
    return errs;
  }
  if (hasService) {
    const s = b.service!;
    const sp = p.child('service');
    const errs: FieldError[] = [];
    if (!s.name) errs.push(required(sp.child('name'), ''));
    else errs.push(...isDNS1035Label(s.name).map((m) => invalid(sp.child('name'), s.name, m)));
    const name = s.port?.name ?? '';
    const num = s.port?.number ?? 0;
    if (name !== '' && num !== 0) errs.push(invalid(p, '', 'cannot set both port name & port number'));
    else if (name !== '') errs.push(...isValidPortName(name).map((m) => invalid(sp.child('port', 'name'), name, m)));
    else if (num !== 0) errs.push(...isValidPortNum(num).map((m) => invalid(sp.child('port', 'number'), num, m)));
    else errs.push(required(p, 'port name or number is required'));
    return errs;
  }
  return [invalid(p, '', 'resource or service backend is required')];
}

/** Upstream validateHTTPIngressPath: pathType required and supported, absolute clean paths, a backend. */
function validateHTTPIngressPath(hp: HTTPIngressPath, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const path = hp.path ?? '';
  const pathType = hp.pathType as string | undefined;
  if (!pathType) return [required(p.child('pathType'), 'pathType must be specified')];
  switch (pathType) {
    case 'Exact':
    case 'Prefix':
      if (!path.startsWith('/')) errs.push(invalid(p.child('path'), path, 'must be an absolute path'));
      if (path.length > 0) {
        for (const seq of INVALID_PATH_SEQUENCES) if (path.includes(seq)) errs.push(invalid(p.child('path'), path, `must not contain '${seq}'`));
        for (const suf of INVALID_PATH_SUFFIXES) if (path.endsWith(suf)) errs.push(invalid(p.child('path'), path, `cannot end with '${suf}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (path.length > 0 && !path.startsWith('/')) errs.push(invalid(p.child('path'), path, 'must be an absolute path'));
      break;
    default:
      errs.push(notSupported(p.child('pathType'), pathType, SUPPORTED_PATH_TYPES));
  }
  errs.push(...validateIngressBackend(hp.backend ?? ({} as IngressBackend), p.child('backend')));
  return errs;
}

/** Upstream validateIngressRules (host names, then each HTTP rule value). */
function validateIngressRules(rules: IngressRule[], p: Path): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((r, i) => {
    const rp = p.index(i);
    const host = r.host ?? '';
    if (host.length > 0) {
      if (parseIPSloppy(host) !== undefined) errs.push(invalid(rp.child('host'), host, 'must be a DNS name, not an IP address'));
      errs.push(...hostErrors(host, rp.child('host')));
    }
    if (r.http) {
      const hp = rp.child('http');
      const paths = r.http.paths ?? [];
      if (paths.length === 0) errs.push(required(hp.child('paths'), ''));
      paths.forEach((x, j) => errs.push(...validateHTTPIngressPath(x, hp.child('paths').index(j))));
    }
  });
  return errs;
}

/** Upstream validateIngressTLS. */
function validateIngressTLS(tls: IngressTLS[], p: Path): FieldError[] {
  const errs: FieldError[] = [];
  tls.forEach((t, i) => {
    (t.hosts ?? []).forEach((h, j) => errs.push(...hostErrors(h, p.index(i).child('hosts').index(j))));
    if (t.secretName) errs.push(...isDNS1123Subdomain(t.secretName).map((m) => invalid(p.index(i).child('secretName'), t.secretName, m)));
  });
  return errs;
}

/** Upstream ValidateIngressSpec. */
export function validateIngressSpec(spec: IngressSpec | undefined, p: Path): FieldError[] {
  const s = spec ?? {};
  const errs: FieldError[] = [];
  const rules = s.rules ?? [];
  if (rules.length === 0 && !s.defaultBackend) errs.push(invalid(p, s.rules ?? null, 'either `defaultBackend` or `rules` must be specified'));
  if (s.defaultBackend) errs.push(...validateIngressBackend(s.defaultBackend, p.child('defaultBackend')));
  if (rules.length) errs.push(...validateIngressRules(rules, p.child('rules')));
  if (s.tls?.length) errs.push(...validateIngressTLS(s.tls, p.child('tls')));
  if (s.ingressClassName !== undefined && s.ingressClassName !== null) {
    errs.push(...isDNS1123Subdomain(s.ingressClassName).map((m) => invalid(p.child('ingressClassName'), s.ingressClassName, m)));
  }
  return errs;
}

/** Upstream ValidateIngressCreate: the spec, and the class field and legacy annotation not both set. */
export function validateIngressCreate(ing: Ingress): FieldError[] {
  const errs = validateIngressSpec(ing.spec, Path.root('spec'));
  const ann = ing.metadata?.annotations ?? {};
  if (ing.spec?.ingressClassName != null && Object.hasOwn(ann, INGRESS_CLASS_ANNOTATION)) {
    errs.push(invalid(Path.root('annotations').child(INGRESS_CLASS_ANNOTATION), ann[INGRESS_CLASS_ANNOTATION], 'can not be set when the class field is also set'));
  }
  return errs;
}

/** Upstream ValidateIngressLoadBalancerStatus (status.loadBalancer.ingress[*]). */
export function validateIngressStatus(st: IngressStatus | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const p = Path.root('status').child('loadBalancer', 'ingress');
  (st?.loadBalancer?.ingress ?? []).forEach((ing, i) => {
    const ip = p.index(i);
    if (ing.ip) errs.push(...isValidIP(ing.ip).map((m) => invalid(ip.child('ip'), ing.ip, m)));
    if (ing.hostname) {
      errs.push(...isDNS1123Subdomain(ing.hostname).map((m) => invalid(ip.child('hostname'), ing.hostname, m)));
      if (parseIPSloppy(ing.hostname) !== undefined) errs.push(invalid(ip.child('hostname'), ing.hostname, 'must be a DNS name, not an IP address'));
    }
    (ing.ports ?? []).forEach((port, j) => {
      if (!['TCP', 'UDP', 'SCTP'].includes(port.protocol)) errs.push(notSupported(ip.child('ports').index(j).child('protocol'), port.protocol, ['SCTP', 'TCP', 'UDP']));
    });
  });
  return errs;
}
