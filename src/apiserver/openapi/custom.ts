/**
 * OpenAPI schemas of custom resources, registered at runtime by the CRD controller for
 * the ResourceDefinitions it builds: the published group-version documents carry them
 * (so `kubectl explain` works) and server-side field validation reports unknown fields
 * against them. Keyed by definition identity; a definition without one gets the
 * free-form schema of {@link customKindSchema}.
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/controller/openapi/builder/builder.go
 */
import type { ResourceDefinition } from '../../api/resource.js';
import { createHash } from 'node:crypto';
import type { Schema } from './schemas.js';

/** A registered kind schema and a hash of it (part of the document cache key). */
export interface CustomResourceSchema {
  schema: Schema;
  hash: string;
}

const schemas = new WeakMap<object, CustomResourceSchema>();

/** Registers the OpenAPI v3 schema of a runtime-built definition's kind (replacing any earlier one). */
export function setCustomResourceSchema(def: ResourceDefinition, schema: Schema): void {
  schemas.set(def, { schema, hash: createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 16) });
}

/** The registered schema of a definition, or undefined (built-in kinds, unregistered custom kinds). */
export function customResourceSchema(def: object): CustomResourceSchema | undefined {
  return schemas.get(def);
}
