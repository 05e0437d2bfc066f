/**
 * Errors of the CEL evaluator, shaped like upstream's `k8s.io/apiserver/pkg/cel.Error`:
 * a type (Required, Invalid, Internal, …) and a detail written in upstream's words.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/errors.go
 */
import { EvaluationError } from '@marcbachmann/cel-js';

/** upstream cel.ErrorType: which field error a CEL error becomes. */
export type CelErrorType = 'Invalid' | 'Required' | 'Internal' | 'NotSupported';

/** A compilation or evaluation error with upstream's detail text. */
export class CelError extends Error {
  constructor(
    readonly type: CelErrorType,
    /** upstream's text, e.g. `compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')` */
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'CelError';
  }
}

/**
 * The error a library function raises during evaluation (cel-go's `types.NewErr`): it
 * propagates like any CEL error (absorbed by `||`/`&&` when the other side decides).
 */
export function celError(message: string): EvaluationError {
  return new EvaluationError(message);
}
