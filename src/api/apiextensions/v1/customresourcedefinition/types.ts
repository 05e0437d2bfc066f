/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition as the server handles it:
 * kubernetes-types' shapes with the schema node widened by the Kubernetes extensions
 * (`x-kubernetes-*`), which kubernetes-types leaves out.
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apis/apiextensions/v1/types.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apis/apiextensions/v1/types_jsonschema.go
 */
import type {
  CustomResourceDefinition as CRD130,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionSpec as CRDSpec130,
  CustomResourceDefinitionStatus,
  CustomResourceDefinitionVersion as CRDVersion130,
  JSONSchemaProps,
} from 'kubernetes-types/apiextensions/v1.js';
import type { KObject } from '../../../resource.js';

/** A CRD schema node: JSONSchemaProps plus the Kubernetes extensions. */
export interface CRSchema extends Omit<JSONSchemaProps, 'properties' | 'items' | 'additionalProperties' | 'allOf' | 'anyOf' | 'oneOf' | 'not'> {
  properties?: Record<string, CRSchema>;
  items?: CRSchema;
  additionalProperties?: CRSchema | boolean;
  allOf?: CRSchema[];
  anyOf?: CRSchema[];
  oneOf?: CRSchema[];
  not?: CRSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  /** CEL rules, evaluated by the API server on custom resources (src/apiserver/apiextensions/validation-rules.ts) */
  'x-kubernetes-validations'?: unknown[];
}

/** One version of a CRD, with the widened schema. */
export interface CRDVersion extends Omit<CRDVersion130, 'schema'> {
  schema?: { openAPIV3Schema?: CRSchema };
}

export interface CRDSpec extends Omit<CRDSpec130, 'versions'> {
  versions: CRDVersion[];
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition. */
export interface CustomResourceDefinition extends KObject {
  apiVersion?: CRD130['apiVersion'];
  kind?: CRD130['kind'];
  spec: CRDSpec;
  status?: CustomResourceDefinitionStatus;
}

export type { CustomResourceDefinitionCondition, CustomResourceDefinitionNames, CustomResourceDefinitionStatus };

/** The finalizer that keeps a CRD until its custom resources are gone. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** The storage version of a CRD (the one marked `storage: true`), or undefined. */
export function storageVersion(crd: Pick<CustomResourceDefinition, 'spec'>): string | undefined {
  return crd.spec?.versions?.find((v) => v.storage)?.name;
}

/** A condition of the CRD's status, or undefined. */
export function findCondition(crd: CustomResourceDefinition, type: string): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

/** Whether the CRD's condition `type` is True. */
export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}
