/**
 * The published OpenAPI v3 schema of a custom resource version: the CRD's
 * `openAPIV3Schema` with the standard `apiVersion`, `kind` and `metadata` (ObjectMeta)
 * properties and `x-kubernetes-group-version-kind`, as apiextensions-apiserver's builder
 * publishes it. Embedded resources get apiVersion/kind/metadata too, so unknown-field
 * detection leaves them alone.
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/controller/openapi/builder/builder.go
 */
import type { CRDVersion, CRSchema } from '../../api/apiextensions/v1/customresourcedefinition/types.js';
import type { Schema } from '../openapi/schemas.js';

const OBJECT_META = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

function standardProperties(): Record<string, Schema> {
  return {
    apiVersion: {
      description:
        'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
      type: 'string',
    },
    kind: {
      description:
        'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
      type: 'string',
    },
    metadata: {
      allOf: [{ $ref: OBJECT_META }],
      description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    },
  };
}

function withEmbedded(s: CRSchema): Schema {
  const out: Schema = { ...s };
  if (s.properties) {
    const props: Record<string, Schema> = {};
    for (const [k, v] of Object.entries(s.properties)) props[k] = withEmbedded(v);
    out.properties = props;
  }
  if (s.items && !Array.isArray(s.items)) out.items = withEmbedded(s.items);
  if (typeof s.additionalProperties === 'object') out.additionalProperties = withEmbedded(s.additionalProperties);
  if (s['x-kubernetes-embedded-resource']) {
    out.properties = { ...standardProperties(), ...((out.properties as Record<string, Schema> | undefined) ?? {}) };
    out.type ??= 'object';
  }
  return out;
}

/** The kind schema of one version (`com.example.stable.v1.CronTab` in the document). */
export function customResourceOpenAPISchema(group: string, kind: string, v: CRDVersion): Schema {
  const base: CRSchema = v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const s = withEmbedded(base);
  const props = { ...((s.properties as Record<string, Schema> | undefined) ?? {}) };
  delete props.metadata;
  s.properties = { ...standardProperties(), ...props };
  s.type = 'object';
  s['x-kubernetes-group-version-kind'] = [{ group, kind, version: v.name }];
  return s;
}
