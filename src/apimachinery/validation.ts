/**
 * Resource-agnostic validation as upstream: the string checks of
 * k8s.io/apimachinery/pkg/util/validation (each returns a list of messages, empty when
 * valid) and the ObjectMeta checks of k8s.io/apimachinery/pkg/api/validation (each returns
 * FieldErrors). Message strings are upstream's, byte for byte. Lengths are measured in
 * UTF-8 bytes as Go's len() does.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/validation/validation.go
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/api/validation/objectmeta.go
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/apis/meta/v1/validation/validation.go
 */
import { isIPv6 } from 'node:net';
import type { LabelSelector, LabelSelectorRequirement, ManagedFieldsEntry, ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { type FieldError, forbidden, invalid, type Path, required, tooLong } from './field-errors.js';

// ---------------------------------------------------------------------------------------
// message builders (upstream MaxLenError, RegexError, EmptyError, InclusiveRangeError)

/** `must be no more than N characters` */
export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
/** `must be non-empty` */
export const emptyError = (): string => 'must be non-empty';
/** `must be between lo and hi, inclusive` */
export const inclusiveRangeError = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;
/** `<msg> (e.g. 'a' or 'b', regex used for validation is '<fmt>')` */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** Go's len(s): UTF-8 byte length, computed only when it could matter. */
function longerThan(s: string, max: number): boolean {
  if (s.length > max) return true;
  if (s.length * 3 <= max) return false;
  return Buffer.byteLength(s, 'utf8') > max;
}

// ---------------------------------------------------------------------------------------
// names

const qnameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qnameErr = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qnameRe = new RegExp(`^${qnameFmt}$`);

/**
 * A label key / annotation key / finalizer: optional DNS-subdomain prefix and '/', then a
 * name of at most 63 characters (upstream IsQualifiedName).
 */
export function isQualifiedName(value: string): string[] {
  // fast path for valid names (ASCII-only patterns: lengths are byte lengths)
  const slash = value.indexOf('/');
  if (slash < 0) {
    if (value.length <= 63 && qnameRe.test(value)) return [];
  } else if (slash > 0 && slash <= 253 && value.length - slash - 1 <= 63 && value.indexOf('/', slash + 1) < 0) {
    if (qnameRe.test(value.slice(slash + 1)) && dns1123SubdomainRe.test(value.slice(0, slash))) return [];
  }
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part ' + emptyError());
    else for (const m of isDNS1123Subdomain(prefix)) errs.push('prefix part ' + m);
  } else {
    errs.push('a qualified name ' + regexError(qnameErr, qnameFmt, 'MyName', 'my.name', '123-abc') + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.length === 0) errs.push('name part ' + emptyError());
  else if (longerThan(name, 63)) errs.push('name part ' + maxLenError(63));
  if (!qnameRe.test(name)) errs.push('name part ' + regexError(qnameErr, qnameFmt, 'MyName', 'my.name', '123-abc'));
  return errs;
}

const labelValueFmt = `(${qnameFmt})?`;
const labelValueErr = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

/** A label value: empty or a qualified-name-like string of at most 63 characters (upstream IsValidLabelValue). */
export function isValidLabelValue(value: string): string[] {
  if (value.length <= 63 && labelValueRe.test(value)) return []; // fast path (ASCII-only pattern)
  const errs: string[] = [];
  if (longerThan(value, 63)) errs.push(maxLenError(63));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErr, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErr = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErr = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

/** An RFC 1123 label, at most 63 characters (upstream IsDNS1123Label): namespace names, container names. */
export function isDNS1123Label(value: string): string[] {
  if (value.length <= 63 && dns1123LabelRe.test(value)) return []; // fast path (ASCII-only pattern)
  const errs: string[] = [];
  if (longerThan(value, 63)) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErr, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** An RFC 1123 subdomain, at most 253 characters (upstream IsDNS1123Subdomain): most object names. */
export function isDNS1123Subdomain(value: string): string[] {
  if (value.length <= 253 && dns1123SubdomainRe.test(value)) return []; // fast path (ASCII-only pattern)
  const errs: string[] = [];
  if (longerThan(value, 253)) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErr, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErr = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);

/** An RFC 1035 label (upstream IsDNS1035Label): Service names. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (longerThan(value, 63)) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelErr, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** Upstream IsFullyQualifiedName: a DNS subdomain with at least three segments. */
export function isFullyQualifiedName(path: Path | string, name: string): FieldError[] {
  if (name.length === 0) return [required(path, '')];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

const cIdentFmt = '[A-Za-z_][A-Za-z0-9_]*';
const cIdentRe = new RegExp(`^${cIdentFmt}$`);
/** A C identifier (upstream IsCIdentifier). */
export function isCIdentifier(value: string): string[] {
  if (cIdentRe.test(value)) return [];
  return [
    regexError(
      "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
      cIdentFmt,
      'my_name',
      'MY_NAME',
      'MyName',
    ),
  ];
}

function hasChDirPrefix(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

const envVarFmt = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const envVarRe = new RegExp(`^${envVarFmt}$`);
/** An environment variable name (upstream IsEnvVarName). */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!envVarRe.test(value)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        envVarFmt,
        'my.env-name',
        'MY_ENV.NAME',
        'MyEnvName1',
      ),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

/** Printable ASCII other than '=' (upstream IsRelaxedEnvVarName, RelaxedEnvironmentVariableValidation). */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push('environment variable name ' + emptyError());
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x3d) {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);
/** A ConfigMap / Secret key (upstream IsConfigMapKey). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (longerThan(value, 253)) errs.push(maxLenError(253));
  if (!configMapKeyRe.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

const headerFmt = '[-A-Za-z0-9]+';
const headerRe = new RegExp(`^${headerFmt}$`);
/** An HTTP header name (upstream IsHTTPHeaderName). */
export function isHTTPHeaderName(value: string): string[] {
  if (headerRe.test(value)) return [];
  return [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", headerFmt, 'X-Header-Name')];
}

const percentRe = /^[0-9]+%$/;
/** "NN%" (upstream IsValidPercent). */
export function isValidPercent(value: string): string[] {
  if (percentRe.test(value)) return [];
  return [regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%')];
}

// ---------------------------------------------------------------------------------------
// numbers and ports

/** 1..65535 (upstream IsValidPortNum). */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 && Number.isInteger(port) ? [] : [inclusiveRangeError(1, 65535)];
}

/** min..max inclusive (upstream IsInRange). */
export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [inclusiveRangeError(min, max)];
}

const MAX_INT32 = 2147483647;
/** 0..2^31-1 (upstream IsValidUserID). */
export const isValidUserID = (uid: number): string[] => isInRange(uid, 0, MAX_INT32);
/** 0..2^31-1 (upstream IsValidGroupID). */
export const isValidGroupID = (gid: number): string[] => isInRange(gid, 0, MAX_INT32);

/** An IANA_SVC_NAME: at most 15 characters, [-a-z0-9], one letter, no '--', no leading/trailing '-' (upstream IsValidPortName). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (longerThan(port, 15)) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port[0] === '-' || port[port.length - 1] === '-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** `must be greater than or equal to 0` (upstream IsNegativeErrorMsg). */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

/** value ≥ 0 (upstream ValidateNonnegativeField). */
export function validateNonnegativeField(value: number, path: Path | string): FieldError[] {
  return value < 0 ? [invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

// ---------------------------------------------------------------------------------------
// IP addresses (Go net.ParseIP as wrapped by k8s.io/utils/net ParseIPSloppy: IPv4 octets may have leading zeros)

function parseIPv4Sloppy(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (const p of parts) {
    if (p.length === 0 || p.length > 3 || !/^[0-9]+$/.test(p) || Number(p) > 255) return false;
  }
  return true;
}

/** Whether s parses as an IP address the way upstream's ParseIPSloppy accepts it. */
export function parseIPSloppy(s: string): 4 | 6 | undefined {
  if (parseIPv4Sloppy(s)) return 4;
  if (!s.includes('%') && s.includes(':') && isIPv6(s)) return 6;
  return undefined;
}

/** `must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)` unless s is an IPv4/IPv6 address (upstream IsValidIP). */
export function isValidIP(value: string): string[] {
  return parseIPSloppy(value) ? [] : ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

/** `must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)` unless value is ip/prefix (upstream IsValidCIDR). */
export function isValidCIDR(value: string): string[] {
  const msg = ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'];
  const slash = value.indexOf('/');
  if (slash < 0) return msg;
  const fam = parseIPSloppy(value.slice(0, slash));
  const bits = value.slice(slash + 1);
  if (!fam || !/^[0-9]+$/.test(bits) || Number(bits) > (fam === 4 ? 32 : 128)) return msg;
  return [];
}

// ---------------------------------------------------------------------------------------
// object names (upstream pkg/api/validation/generic.go)

/** A name validator: messages for `name`; `prefix` = it is a generateName (a trailing '-' is allowed). */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
}

/** Names that must be DNS subdomains (most resources; upstream NameIsDNSSubdomain). */
export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
/** Names that must be DNS labels (namespaces; upstream NameIsDNSLabel). */
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
/** Names that must be DNS-1035 labels (services; upstream NameIsDNS1035Label). */
export const nameIsDNS1035Label: ValidateNameFunc = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);
/** Namespace names (upstream ValidateNamespaceName). */
export const validateNamespaceName: ValidateNameFunc = nameIsDNSLabel;
/** ServiceAccount names (upstream ValidateServiceAccountName). */
export const validateServiceAccountName: ValidateNameFunc = nameIsDNSSubdomain;

// ---------------------------------------------------------------------------------------
// labels, annotations, selectors

/** `field is immutable` */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
/** Total bytes of annotation keys+values (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 262144;

/** A label key (upstream ValidateLabelName). */
export function validateLabelName(name: string, path: Path | string): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(path, name, m));
}

/** Label keys and values; every error carries the map's path (upstream ValidateLabels). */
export function validateLabels(labels: Record<string, string> | undefined | null, path: Path | string): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  for (const [k, v] of Object.entries(labels)) {
    errs.push(...validateLabelName(k, path));
    for (const m of isValidLabelValue(v)) errs.push(invalid(path, v, m));
  }
  return errs;
}

/** Annotation keys (lower-cased, qualified names) and the 256 KiB total size (upstream ValidateAnnotations). */
export function validateAnnotations(annotations: Record<string, string> | undefined | null, path: Path | string): FieldError[] {
  const errs: FieldError[] = [];
  if (!annotations) return errs;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, m));
    total += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(v ?? '', 'utf8');
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

/** A metav1.LabelSelector (upstream ValidateLabelSelector with default options). */
export function validateLabelSelector(sel: LabelSelector | undefined | null, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!sel) return errs;
  errs.push(...validateLabels(sel.matchLabels, path.child('matchLabels')));
  (sel.matchExpressions ?? []).forEach((r, i) => errs.push(...validateLabelSelectorRequirement(r, path.child('matchExpressions').index(i))));
  return errs;
}

/** One matchExpressions entry (upstream ValidateLabelSelectorRequirement). */
export function validateLabelSelectorRequirement(r: LabelSelectorRequirement, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      errs.push(invalid(path.child('operator'), r.operator, 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(r.key, path.child('key')));
  values.forEach((v, i) => {
    for (const m of isValidLabelValue(v)) errs.push(invalid(path.child('values').index(i), v, m));
  });
  return errs;
}

// ---------------------------------------------------------------------------------------
// ObjectMeta

function validateOwnerReference(ref: OwnerReference, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = ref.apiVersion ?? '';
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (!version) errs.push(invalid(path.child('apiVersion'), apiVersion, 'version must not be empty'));
  if (!ref.kind) errs.push(invalid(path.child('kind'), ref.kind ?? '', 'kind must not be empty'));
  if (!ref.name) errs.push(invalid(path.child('name'), ref.name ?? '', 'name must not be empty'));
  if (!ref.uid) errs.push(invalid(path.child('uid'), ref.uid ?? '', 'uid must not be empty'));
  if (group === '' && version === 'v1' && ref.kind === 'Event') {
    errs.push(invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
  }
  return errs;
}

/** Owner references; at most one with controller=true (upstream ValidateOwnerReferences). */
export function validateOwnerReferences(refs: OwnerReference[] | undefined | null, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller) {
      const cur = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`));
      } else firstController = cur;
    }
  }
  return errs;
}

/** Finalizer names; orphan and foregroundDeletion together are invalid (upstream ValidateFinalizers). */
export function validateFinalizers(finalizers: string[] | undefined | null, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!finalizers) return errs;
  for (const f of finalizers) for (const m of isQualifiedName(f)) errs.push(invalid(path, f, m));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

function validateFieldManager(manager: string | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const m = manager ?? '';
  if (longerThan(m, 128)) errs.push(tooLong(path, '', 128));
  let pos = 0;
  for (const ch of m) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
      errs.push(invalid(path, m, `invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${pos})`));
    }
    pos += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

/** managedFields entries (upstream ValidateManagedFields). */
export function validateManagedFields(entries: ManagedFieldsEntry[] | undefined | null, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((e, i) => {
    const p = path.index(i);
    if (e.operation !== 'Apply' && e.operation !== 'Update') errs.push(invalid(p.child('operation'), e.operation ?? '', 'must be `Apply` or `Update`'));
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') errs.push(invalid(p.child('fieldsType'), e.fieldsType, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(e.manager, p.child('manager')));
    if (e.subresource && longerThan(e.subresource, 256)) errs.push(tooLong(p.child('subresource'), '', 256));
  });
  return errs;
}

/**
 * ObjectMeta on create (upstream ValidateObjectMeta): generateName/name via `nameFn`
 * (`name or generateName is required`), namespace required / forbidden by scope
 * (`not allowed on this type`), generation ≥ 0, labels, annotations, ownerReferences,
 * finalizers, managedFields.
 *
 * @param path usually `Path.root('metadata')`
 */
export function validateObjectMeta(meta: ObjectMeta | undefined, requiresNamespace: boolean, nameFn: ValidateNameFunc, path: Path): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  if (m.generateName) {
    for (const msg of nameFn(m.generateName, true)) errs.push(invalid(path.child('generateName'), m.generateName, msg));
  }
  if (!m.name) errs.push(required(path.child('name'), 'name or generateName is required'));
  else for (const msg of nameFn(m.name, false)) errs.push(invalid(path.child('name'), m.name, msg));
  if (requiresNamespace) {
    if (!m.namespace) errs.push(required(path.child('namespace'), ''));
    else for (const msg of validateNamespaceName(m.namespace, false)) errs.push(invalid(path.child('namespace'), m.namespace, msg));
  } else if (m.namespace) {
    errs.push(forbidden(path.child('namespace'), 'not allowed on this type'));
  }
  errs.push(...validateNonnegativeField(m.generation ?? 0, path.child('generation')));
  errs.push(...validateLabels(m.labels, path.child('labels')));
  errs.push(...validateAnnotations(m.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateFinalizers(m.finalizers, path.child('finalizers')));
  errs.push(...validateManagedFields(m.managedFields, path.child('managedFields')));
  return errs;
}

/** Deep equality of JSON values (apiequality.Semantic.DeepEqual for plain data; undefined ≡ missing). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k in ao) if (ao[k] !== undefined && !jsonEqual(ao[k], bo[k])) return false;
  for (const k in bo) if (bo[k] !== undefined && ao[k] === undefined) return false;
  return true;
}

/** `Invalid value: <new>: field is immutable` unless equal (upstream ValidateImmutableField). */
export function validateImmutableField(newVal: unknown, oldVal: unknown, path: Path | string): FieldError[] {
  return jsonEqual(newVal, oldVal) ? [] : [invalid(path, newVal ?? '', FIELD_IMMUTABLE_ERROR_MSG)];
}

/**
 * ObjectMeta on update (upstream ValidateObjectMetaUpdate): no new finalizers once deleting,
 * resourceVersion required, generation never decremented; name, namespace, uid,
 * creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds immutable
 * (`field is immutable`); labels, annotations, ownerReferences, managedFields valid.
 * generateName is not checked (upstream does not either).
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined, path: Path): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const old = new Set(o.finalizers ?? []);
    const extra = [...new Set((n.finalizers ?? []).filter((f) => !old.has(f)))].sort();
    if (extra.length > 0) {
      errs.push(
        forbidden(
          path.child('finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  if (!n.resourceVersion) errs.push(invalid(path.child('resourceVersion'), n.resourceVersion ?? '', 'must be specified for an update'));
  if ((n.generation ?? 0) < (o.generation ?? 0)) errs.push(invalid(path.child('generation'), n.generation ?? 0, 'must not be decremented'));
  errs.push(...validateImmutableField(n.name ?? '', o.name ?? '', path.child('name')));
  errs.push(...validateImmutableField(n.namespace ?? '', o.namespace ?? '', path.child('namespace')));
  errs.push(...validateImmutableField(n.uid ?? '', o.uid ?? '', path.child('uid')));
  errs.push(...validateImmutableField(n.creationTimestamp ?? null, o.creationTimestamp ?? null, path.child('creationTimestamp')));
  errs.push(...validateImmutableField(n.deletionTimestamp ?? null, o.deletionTimestamp ?? null, path.child('deletionTimestamp')));
  errs.push(...validateImmutableField(n.deletionGracePeriodSeconds ?? null, o.deletionGracePeriodSeconds ?? null, path.child('deletionGracePeriodSeconds')));
  errs.push(...validateLabels(n.labels, path.child('labels')));
  errs.push(...validateAnnotations(n.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(n.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateManagedFields(n.managedFields, path.child('managedFields')));
  return errs;
}
