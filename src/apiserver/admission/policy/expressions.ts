/**
 * Installs k8ts' CEL compiler for the admission configuration validation of the `api`
 * folder (src/api/admissionregistration/v1/expressions.ts), so that policies with
 * expressions that do not compile are refused at write time as upstream refuses them.
 */
import { type ExpressionResult, setExpressionCompiler } from '../../../api/admissionregistration/v1/expressions.js';
import { compile } from '../../../cel/index.js';
import { AUTHORIZER_TYPE } from '../../../cel/library/authz.js';

const RESULT_TYPES: Record<ExpressionResult, string[] | undefined> = { bool: ['bool'], string: ['string'], stringOrNull: ['string', 'null'], any: undefined };

/** Installs the compiler (idempotent). */
export function installExpressionCompiler(): void {
  setExpressionCompiler((expression, variables, result) => {
    const r = compile(expression, { variables: variables.map((name) => (name === 'authorizer' ? { name, type: AUTHORIZER_TYPE } : { name })), resultTypes: RESULT_TYPES[result] });
    return r.error?.detail;
  });
}
