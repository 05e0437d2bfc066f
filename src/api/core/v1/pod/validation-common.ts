/**
 * Building blocks of core/v1 validation shared by the pod validators: path checks,
 * resource names and quantities, resource requirements, core ObjectMeta rules.
 * Messages and field paths are upstream's.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/helper/helpers.go
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { type FieldError, forbidden, invalid, notSupported, type Path, required } from '../../../../apimachinery/field-errors.js';
import { compareQuantity, formatQuantity, milliValue, parseQuantityJSON, type Quantity, QuantityParseError, scaledValueBig } from '../../../../apimachinery/quantity.js';
import { isDNS1123Label, isQualifiedName, validateObjectMeta, validateObjectMetaUpdate, type ValidateNameFunc } from '../../../../apimachinery/validation.js';
import type { ResourceRequirements } from './types.js';

/** Options that change what pod validation accepts (upstream PodValidationOptions, the used subset). */
export interface PodValidationOptions {
  /** kube-apiserver --allow-privileged (default true, as kubeadm/k3s clusters run) */
  allowPrivileged?: boolean;
  /** relaxed env var names (RelaxedEnvironmentVariableValidation, off in v1.32) */
  allowRelaxedEnvironmentVariableValidation?: boolean;
  /** invalid label values in selectors kept from an old object */
  allowInvalidLabelValueInSelector?: boolean;
  /** hugepages values not a multiple of the page size kept from an old object */
  allowIndivisibleHugePagesValues?: boolean;
  /** invalid topology spread label selectors kept from an old object */
  allowInvalidTopologySpreadConstraintLabelSelector?: boolean;
  /** the validated object is a Pod (not a template); always true for the pod strategy */
  resourceIsPod?: boolean;
}

/** `must be greater than zero` */
export const IS_NOT_POSITIVE_ERROR_MSG = 'must be greater than zero';
/** `must be a number between 0 and 0777 (octal), both inclusive` */
const FILE_MODE_ERROR_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';

/** field.Invalid per message of a string check (ValidateDNS1123Label etc.). */
export function eachInvalid(path: Path, value: string, msgs: string[]): FieldError[] {
  return msgs.map((m) => invalid(path, value, m));
}
export const validateDNS1123Label = (v: string, p: Path): FieldError[] => eachInvalid(p, v, isDNS1123Label(v));
export const validateQualifiedName = (v: string, p: Path): FieldError[] => eachInvalid(p, v, isQualifiedName(v));

/** Go's path.IsAbs. */
export const isAbs = (p: string): boolean => p.startsWith('/');

/** No `..` element (upstream validatePathNoBacksteps). */
export function validatePathNoBacksteps(target: string, p: Path): FieldError[] {
  if (target.indexOf('..') < 0) return []; // no '..' anywhere, so no '..' element
  return target.split('/').includes('..') ? [invalid(p, target, "must not contain '..'")] : [];
}

/** Relative and without `..` (upstream validateLocalDescendingPath). */
export function validateLocalDescendingPath(target: string, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (isAbs(target)) errs.push(invalid(p, target, 'must be a relative path'));
  errs.push(...validatePathNoBacksteps(target, p));
  return errs;
}

/** Relative, no `..` element, not starting with `..` (upstream ValidateLocalNonReservedPath). */
export function validateLocalNonReservedPath(target: string, p: Path): FieldError[] {
  const errs = validateLocalDescendingPath(target, p);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(invalid(p, target, "must not start with '..'"));
  return errs;
}

/** A file mode 0..0777 if set. */
export function validateFileMode(mode: number | undefined | null, p: Path): FieldError[] {
  return mode !== undefined && mode !== null && (mode > 0o777 || mode < 0) ? [invalid(p, mode, FILE_MODE_ERROR_MSG)] : [];
}

// ---------------------------------------------------------------------------------------
// resource names (upstream pkg/apis/core/helper)

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'quota',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const INTEGER_RESOURCES = new Set([
  'pods',
  'quota',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/** `hugepages-<size>` */
const isHugePageResourceName = (name: string): boolean => name.startsWith('hugepages-');
/** No '/' or a kubernetes.io/ prefix (upstream IsNativeResource). */
const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** Domain-prefixed, not native, not `requests.`-prefixed, valid as quota name (upstream IsExtendedResourceName). */
function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName('requests.' + name).length === 0;
}
/** Requests may be below limits (upstream IsOvercommitAllowed). */
const isOvercommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePageResourceName(name);
/** Values must be whole numbers (upstream IsIntegerResourceName). */
const isIntegerResourceName = (name: string): boolean => INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
/** cpu, memory, ephemeral-storage, hugepages-* (upstream IsStandardContainerResourceName). */
const isStandardContainerResourceName = (name: string): boolean => STANDARD_CONTAINER_RESOURCES.has(name) || isHugePageResourceName(name);
/** Upstream IsStandardResourceName. */
const isStandardResourceName = (name: string): boolean => STANDARD_RESOURCES.has(name) || isHugePageResourceName(name);

function validateResourceName(name: string, p: Path): FieldError[] {
  const errs = eachInvalid(p, name, isQualifiedName(name));
  if (errs.length) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) return [invalid(p, name, 'must be a standard resource type or fully qualified')];
  return errs;
}

/** Upstream validateContainerResourceName. */
function validateContainerResourceName(name: string, p: Path): FieldError[] {
  const errs = validateResourceName(name, p);
  if (!name.includes('/')) {
    if (!isStandardContainerResourceName(name)) errs.push(invalid(p, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(invalid(p, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------
// quantities

/**
 * Parse a quantity field for validation. Malformed values (which upstream rejects while
 * decoding, before validation) become `Invalid value: "<raw>": <parse error>`.
 */
export function parseForValidation(raw: unknown, p: Path, errs: FieldError[]): Quantity | undefined {
  try {
    return parseQuantityJSON(raw as string | number);
  } catch (e) {
    errs.push(invalid(p, raw === undefined || raw === null ? '' : String(raw), e instanceof QuantityParseError ? e.message : String(e)));
    return undefined;
  }
}

/** Non-negative; whole numbers for integer resources (upstream ValidateResourceQuantityValue). */
function validateResourceQuantityValue(name: string, q: Quantity, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (q.mantissa < 0n) errs.push(invalid(p, formatQuantity(q), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && milliValue(q) % 1000 !== 0) errs.push(invalid(p, formatQuantity(q), 'must be an integer'));
  return errs;
}

const HUGEPAGE_SIZE_CACHE = new Map<string, Quantity | null>();
function hugePageSize(name: string): Quantity | null {
  let q = HUGEPAGE_SIZE_CACHE.get(name);
  if (q === undefined) {
    try {
      q = parseQuantityJSON(name.slice('hugepages-'.length));
    } catch {
      q = null;
    }
    HUGEPAGE_SIZE_CACHE.set(name, q);
  }
  return q;
}

function hugePageDivisible(name: string, q: Quantity): boolean {
  const size = hugePageSize(name);
  if (!size || size.mantissa <= 0n) return false;
  const v = scaledValueBig(q, 0);
  const s = scaledValueBig(size, 0);
  return v % s === 0n;
}

/**
 * Container (or overhead) resources: names, values, requests ≤ limits, non-overcommittable
 * requests == limits, hugepages need cpu or memory (upstream validateResourceRequirements).
 */
export function validateResourceRequirements(req: ResourceRequirements | undefined, podClaimNames: Set<string>, p: Path, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (!req) return errs;
  const limPath = p.child('limits');
  const reqPath = p.child('requests');
  let limCPUMem = false;
  let reqCPUMem = false;
  let limHuge = false;
  let reqHuge = false;
  const limits = new Map<string, Quantity>();
  for (const name in req.limits ?? {}) {
    const fp = limPath.key(name);
    errs.push(...validateContainerResourceName(name, fp));
    const q = parseForValidation(req.limits![name], fp, errs);
    if (!q) continue;
    limits.set(name, q);
    errs.push(...validateResourceQuantityValue(name, q, fp));
    if (isHugePageResourceName(name)) {
      limHuge = true;
      if (!opts.allowIndivisibleHugePagesValues && !hugePageDivisible(name, q)) {
        errs.push(invalid(fp, formatQuantity(q), `${formatQuantity(q)} is not positive integer multiple of ${name}`));
      }
    }
    if (name === 'cpu' || name === 'memory') limCPUMem = true;
  }
  for (const name in req.requests ?? {}) {
    const fp = reqPath.key(name);
    errs.push(...validateContainerResourceName(name, fp));
    const q = parseForValidation(req.requests![name], fp, errs);
    if (!q) continue;
    errs.push(...validateResourceQuantityValue(name, q, fp));
    const lim = limits.get(name);
    if (lim) {
      if (compareQuantity(q, lim) !== 0 && !isOvercommitAllowed(name)) {
        errs.push(invalid(reqPath, formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(lim)}`));
      } else if (compareQuantity(q, lim) > 0) {
        errs.push(invalid(reqPath, formatQuantity(q), `must be less than or equal to ${name} limit of ${formatQuantity(lim)}`));
      }
    } else if (!isOvercommitAllowed(name) && !(req.limits && name in req.limits)) {
      errs.push(required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePageResourceName(name)) {
      reqHuge = true;
      if (!opts.allowIndivisibleHugePagesValues && !hugePageDivisible(name, q)) {
        errs.push(invalid(fp, formatQuantity(q), `${formatQuantity(q)} is not positive integer multiple of ${name}`));
      }
    }
    if (name === 'cpu' || name === 'memory') reqCPUMem = true;
  }
  if (!limCPUMem && !reqCPUMem && (reqHuge || limHuge)) errs.push(forbidden(p, 'HugePages require cpu or memory'));
  errs.push(...validateResourceClaimNames(req.claims ?? [], podClaimNames, p.child('claims')));
  return errs;
}

function validateResourceClaimNames(claims: { name: string; request?: string }[], podClaimNames: Set<string>, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  claims.forEach((c, i) => {
    const name = c.name;
    if (!name) {
      errs.push(required(p.index(i), ''));
      return;
    }
    if (names.has(name)) {
      errs.push({ type: 'FieldValueDuplicate', field: p.index(i).toString(), badValue: name });
    } else {
      let key = name;
      if (c.request) {
        errs.push(...validateDNS1123Label(c.request, p.index(i).child('request')));
        key += '/' + c.request;
      }
      if (names.has(key)) errs.push({ type: 'FieldValueDuplicate', field: p.index(i).toString(), badValue: key });
      else if (!c.request) {
        for (const k of names) {
          const idx = k.indexOf('/');
          if (idx >= 0 && k.slice(0, idx) === name) errs.push({ type: 'FieldValueDuplicate', field: p.index(i).toString(), badValue: name });
        }
      }
      names.add(key);
    }
    if (!podClaimNames.has(name)) {
      const list = [...podClaimNames].sort();
      errs.push({
        type: 'FieldValueNotFound',
        field: p.index(i).toString(),
        badValue: name,
        detail: 'must be one of the names in pod.spec.resourceClaims' + (list.length === 0 ? ' which is empty' : ': ' + list.join(', ')),
      });
    }
  });
  return errs;
}

// ---------------------------------------------------------------------------------------
// core ObjectMeta (adds the legacy finalizer-name rule to the generic checks)

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

function validateKubeFinalizers(meta: ObjectMeta | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (meta?.finalizers ?? []).forEach((f, i) => {
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      errs.push(invalid(p.child('finalizers').index(i), f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/** core ValidateObjectMeta: the generic checks plus finalizer names (for core/v1 kinds). */
export function validateCoreObjectMeta(meta: ObjectMeta | undefined, requiresNamespace: boolean, nameFn: ValidateNameFunc, p: Path): FieldError[] {
  return [...validateObjectMeta(meta, requiresNamespace, nameFn, p), ...validateKubeFinalizers(meta, p)];
}

/** core ValidateObjectMetaUpdate: the generic update checks plus finalizer names. */
export function validateCoreObjectMetaUpdate(newMeta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined, p: Path): FieldError[] {
  return [...validateObjectMetaUpdate(newMeta, oldMeta, p), ...validateKubeFinalizers(newMeta, p)];
}

/** `Unsupported value` helper re-exported for sibling modules. */
export { notSupported };
