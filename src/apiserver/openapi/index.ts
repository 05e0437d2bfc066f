/**
 * OpenAPI v3 for the API server: documents and the /openapi handler, the built-in
 * schemas, and unknown-field detection for server-side field validation.
 */
export { handleOpenAPI, handleOpenAPIAsync, type OpenAPIResponse } from './handler.js';
export {
  buildOpenAPIIndex,
  buildGroupVersionDocument,
  buildOpenAPIDocuments,
  openAPIDocuments,
  sha512Hex,
  type OpenAPIDocuments,
  type GroupVersionDocument,
} from './document.js';
export { builtinSchemas, builtinSchemaName, type Schema, type SchemaSet } from './schemas.js';
export { unknownFields } from './unknown-fields.js';
export { setCustomResourceSchema, customResourceSchema, type CustomResourceSchema } from './custom.js';
export { handleOpenAPIV2, OPENAPI_V2_PROTOBUF } from './v2/handler.js';
export { buildSwaggerDocument, swaggerDocument, type SwaggerDocument } from './v2/document.js';
