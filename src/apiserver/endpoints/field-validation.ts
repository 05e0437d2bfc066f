/**
 * Server-side field validation (`fieldValidation=Strict|Warn|Ignore`, default Warn):
 * unknown fields in a request object are an error (Strict: 400 `strict decoding error:
 * unknown field "spec.bogusField"`), a warning (Warn: `unknown field "spec.bogusField"`)
 * or ignored. Fields are checked against the OpenAPI schema of the kind.
 *
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
 */
import type { KObject, ResourceDefinition } from '../../api/resource.js';
import { newBadRequest, newInvalid } from '../../apimachinery/errors.js';
import { invalid } from '../../apimachinery/field-errors.js';
import { goSprint } from '../../apimachinery/patch/go-format.js';
import { unknownFields } from '../openapi/unknown-fields.js';

/**
 * @param directive the `fieldValidation` query value (null = Warn)
 * @param warnings collects Warn-mode messages
 * @throws StatusError 400 in Strict mode when unknown fields exist, or for an invalid directive
 */
export function checkFieldValidation(
  def: ResourceDefinition,
  obj: KObject,
  directive: string | null,
  warnings: string[],
  /** findings of a strict decode of the body (duplicate fields, patch body errors) */
  decodeErrors: string[] = [],
  /** the decoded patch for PATCH requests (undefined for create/update bodies) */
  patchBody?: unknown,
): void {
  const mode = directive ?? 'Warn';
  if (mode !== 'Strict' && mode !== 'Warn' && mode !== 'Ignore') {
    throw newBadRequest(`invalid fieldValidation directive: ${mode}`);
  }
  if (mode === 'Ignore') return;
  const msgs = [...decodeErrors, ...unknownFields(def, obj).map((f) => `unknown field "${f}"`)];
  if (msgs.length === 0) return;
  if (mode === 'Strict') {
    if (patchBody !== undefined) {
      // patches: upstream reports the patch map as an invalid value of field "patch"
      throw newInvalid({ group: '', kind: '' }, '', [invalid('patch', goSprint(patchBody), `strict decoding error: ${msgs.join(', ')}`)]);
    }
    // create/update decode the body into the kind: upstream's codec names it in the error
    throw newBadRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${msgs.join(', ')}`);
  }
  warnings.push(...msgs);
}
