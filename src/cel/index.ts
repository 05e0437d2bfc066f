/**
 * CEL for k8ts: the evaluator (`@marcbachmann/cel-js`) with the Kubernetes base
 * environment and libraries, runtime cost limits and upstream's error texts.
 *
 * @see ./README section "CEL" for the library choice and limits
 */
export { compile, CelProgram, type CelAstNode, type CompileOptions, type CompileResult, type EvalOptions, type EvalResult } from './program.js';
export { CelError, type CelErrorType } from './errors.js';
export { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, type VariableDecl } from './environment.js';
export { COST_LIMIT_EXCEEDED } from './cost.js';
export { toCel, toCelWithSchema, fromCel, type CelSchema } from './values.js';
export { undefinedFieldCheck, type FieldType } from './field-check.js';
