/**
 * Field validators of pkg/apis/core/validation that several resources share (DNS names,
 * qualified names, ports, non-special IPs, resource quantities), built on the string checks
 * of src/apimachinery/validation.ts. Messages and paths are upstream's.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 */
import { type FieldError, invalid, type Path } from '../../../../apimachinery/field-errors.js';
import { formatQuantity, quantitySign, scaledValueBig, type Quantity } from '../../../../apimachinery/quantity.js';
import { IS_NEGATIVE_ERROR_MSG, isDNS1123Label, isQualifiedName, isValidIP, isValidPortName, isValidPortNum } from '../../../../apimachinery/validation.js';
import { parseIP, specialKind } from './ip.js';

type P = Path | string;

/** Each IsDNS1123Label message as `Invalid value` (upstream ValidateDNS1123Label). */
export function validateDNS1123Label(value: string, path: P): FieldError[] {
  return isDNS1123Label(value).map((m) => invalid(path, value, m));
}

/** Each IsQualifiedName message as `Invalid value` (upstream ValidateQualifiedName). */
export function validateQualifiedName(value: string, path: P): FieldError[] {
  return isQualifiedName(value).map((m) => invalid(path, value, m));
}

/** IsValidIP as field errors (upstream validation.IsValidIP(fldPath, value)). */
export function validateIP(value: string, path: P): FieldError[] {
  return isValidIP(value).map((m) => invalid(path, value, m));
}

/**
 * Rejects unspecified, loopback, link-local and link-local multicast addresses (upstream
 * ValidateNonSpecialIP; used for Endpoints, EndpointSlices and external IPs).
 */
export function validateNonSpecialIP(value: string, path: P): FieldError[] {
  const a = parseIP(value);
  if (!a) return [invalid(path, value, 'must be a valid IP address')];
  switch (specialKind(a)) {
    case 'unspecified':
      return [invalid(path, value, `may not be unspecified (${value})`)];
    case 'loopback':
      return [invalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)')];
    case 'link-local':
      return [invalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)')];
    case 'link-local-multicast':
      return [invalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)')];
    default:
      return [];
  }
}

/** A port number (1..65535) or an IANA_SVC_NAME (upstream ValidatePortNumOrName). */
export function validatePortNumOrName(port: number | string | undefined, path: P): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => invalid(path, port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => invalid(path, port, m));
  return [];
}

// Resource names whose quantities must be whole numbers (upstream helper.IsIntegerResourceName).
const INTEGER_RESOURCES = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** Upstream helper.IsExtendedResourceName: fully qualified, not native, not `requests.` prefixed. */
function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** Upstream helper.IsIntegerResourceName. */
function isIntegerResourceName(name: string): boolean {
  return INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
}

/**
 * A quantity must not be negative, and must be whole for integer resources (upstream
 * ValidateResourceQuantityValue: `must be greater than or equal to 0`, `must be an integer`).
 */
export function validateResourceQuantityValue(resource: string, q: Quantity, path: P): FieldError[] {
  const errs: FieldError[] = [];
  if (quantitySign(q) < 0) errs.push(invalid(path, formatQuantity(q), IS_NEGATIVE_ERROR_MSG));
  if (isIntegerResourceName(resource) && scaledValueBig(q, -3) % 1000n !== 0n) {
    errs.push(invalid(path, formatQuantity(q), 'must be an integer'));
  }
  return errs;
}

/** `must be greater than zero` unless q > 0 (upstream ValidatePositiveQuantityValue). */
export function validatePositiveQuantityValue(q: Quantity, path: P): FieldError[] {
  return quantitySign(q) <= 0 ? [invalid(path, formatQuantity(q), 'must be greater than zero')] : [];
}
