/**
 * The write options every write request carries in its query (CreateOptions,
 * UpdateOptions, PatchOptions, DeleteOptions of meta.k8s.io/v1), validated as
 * upstream's handlers validate them before anything else happens.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/apis/meta/v1/validation/validation.go (ValidateDryRun)
 */
import { newInvalid } from '../../apimachinery/errors.js';
import { notSupported, Path } from '../../apimachinery/field-errors.js';

/** The options kind of a write verb, as upstream's handlers name it in errors. */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** @returns the options kind of `verb` (create, update, patch, delete, deletecollection) */
export function optionsKindOf(verb: string): OptionsKind {
  if (verb === 'create') return 'CreateOptions';
  if (verb === 'update') return 'UpdateOptions';
  if (verb === 'patch') return 'PatchOptions';
  return 'DeleteOptions';
}

/**
 * Whether the request is a dry run: `dryRun` may only be `All` (possibly repeated).
 * @param values the `dryRun` query values (or DeleteOptions.dryRun)
 * @throws StatusError 422 `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"foo"}: supported values: "All"`
 */
export function dryRunOf(values: readonly string[], kind: OptionsKind): boolean {
  if (values.some((v) => v !== 'All')) {
    throw newInvalid({ group: 'meta.k8s.io', kind }, '', [notSupported(Path.root('dryRun'), [...values], ['All'])]);
  }
  return values.length > 0;
}
