/**
 * The words CEL reserves (the language definition's reserved identifiers), which a
 * variable name may not be and which a CRD property name is escaped from
 * (`__<word>__`), as upstream's cel.Escape and the ValidatingAdmissionPolicy validation.
 *
 * @see https://github.com/google/cel-spec/blob/master/doc/langdef.md#syntax
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/escaping.go
 */
export const CEL_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
