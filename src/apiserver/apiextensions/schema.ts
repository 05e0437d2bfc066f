/**
 * Custom resources against their CRD's structural schema: validation, pruning and
 * defaulting. The functions live with the CRD API types (the CRD's own validation
 * checks `default:` values with them); the API server's custom resource strategy uses
 * them from here.
 *
 * @see src/api/apiextensions/v1/customresourcedefinition/values.ts
 */
export {
  type CRSchema,
  defaultCustomResource,
  jsonTypeOf,
  pruneCustomResource,
  validateCustomResource,
  validateValue,
} from '../../api/apiextensions/v1/customresourcedefinition/values.js';
