/**
 * Validators the storage.k8s.io/v1 kinds share: qualified provisioner/driver names, the
 * topology selector terms of StorageClass.allowedTopologies, label-selector printing.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/storage/validation/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidateTopologySelectorTerm)
 */
import type { TopologySelectorTerm } from 'kubernetes-types/core/v1.js';
import { duplicate, type FieldError, invalid, type Path, required, tooLong } from '../../../apimachinery/field-errors.js';
import { isDNS1123Subdomain, validateLabelName } from '../../../apimachinery/validation.js';
import { validateQualifiedName } from '../../core/v1/shared/validation.js';

/** Upstream validateProvisioner: required, and a qualified name once lower-cased. */
export function validateProvisioner(provisioner: string | undefined, path: Path): FieldError[] {
  const p = provisioner ?? '';
  if (p.length === 0) return [required(path, '')];
  return validateQualifiedName(p.toLowerCase(), path);
}

/**
 * Upstream ValidateTopologySelectorTerm: each requirement needs values (no duplicates) and
 * a label-name key; keys are unique within the term. Returns the term's key → values map
 * (used to detect duplicate terms) with the errors.
 */
export function validateTopologySelectorTerm(term: TopologySelectorTerm, path: Path): { exprs: Map<string, string[]>; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const exprs = new Map<string, string[]>();
  const exprPath = path.child('matchLabelExpressions');
  (term.matchLabelExpressions ?? []).forEach((req, i) => {
    const idx = exprPath.index(i);
    const values = req.values ?? [];
    const seen = new Set<string>();
    if (values.length === 0) errs.push(required(idx.child('values'), ''));
    values.forEach((v, j) => {
      if (seen.has(v)) errs.push(duplicate(idx.child('values').index(j), v));
      seen.add(v);
    });
    errs.push(...validateLabelName(req.key ?? '', idx.child('key')));
    if (exprs.has(req.key)) errs.push(duplicate(idx.child('key'), req.key));
    exprs.set(req.key, [...seen].sort());
  });
  return { exprs, errs };
}

/** Upstream core ValidateCSIDriverName: required, ≤ 63 characters, a DNS subdomain once lower-cased. */
export function validateCSIDriverName(name: string | undefined, path: Path): FieldError[] {
  const n = name ?? '';
  const errs: FieldError[] = [];
  if (n.length === 0) errs.push(required(path, ''));
  if (n.length > 63) errs.push(tooLong(path, n, 63));
  errs.push(...isDNS1123Subdomain(n.toLowerCase()).map((m) => invalid(path, n, m)));
  return errs;
}
