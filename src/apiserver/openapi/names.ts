/**
 * OpenAPI definition names, as upstream spells them, for the types of the
 * `kubernetes-types` package.
 *
 * Upstream names a schema after the Go package of its type with the `k8s.io/` prefix
 * reversed to `io.k8s.` and slashes turned into dots: `k8s.io/api/core/v1.Pod` →
 * `io.k8s.api.core.v1.Pod`, `k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta` →
 * `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`. `kubernetes-types` lays its modules
 * out by group folder (`core/v1`, `meta/v1`, `api/resource`, `runtime` …); this module
 * maps one onto the other.
 *
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/util/util.go (ToRESTFriendlyName / definition naming)
 */

/** Schema name of IntOrString, which `kubernetes-types` inlines as `number | string`. */
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

/** kubernetes-types module folders that do not live under k8s.io/api. */
const SPECIAL_PREFIXES: Record<string, string> = {
  'meta/v1': 'io.k8s.apimachinery.pkg.apis.meta.v1',
  'api/resource': 'io.k8s.apimachinery.pkg.api.resource',
  runtime: 'io.k8s.apimachinery.pkg.runtime',
  version: 'io.k8s.apimachinery.pkg.version',
  'apiextensions/v1': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1',
  'apiregistration/v1': 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1',
};

/**
 * The schema-name prefix of a kubernetes-types module path.
 * `'core/v1'` → `'io.k8s.api.core.v1'`; `'meta/v1'` → `'io.k8s.apimachinery.pkg.apis.meta.v1'`.
 */
export function modulePrefix(modulePath: string): string {
  return SPECIAL_PREFIXES[modulePath] ?? `io.k8s.api.${modulePath.replace(/\//g, '.')}`;
}

/**
 * The schema name for a `ResourceDefinition.schemaRef` (`'core/v1#Pod'` →
 * `'io.k8s.api.core.v1.Pod'`). Returns undefined for a malformed reference.
 */
export function schemaNameFromRef(schemaRef: string): string | undefined {
  const hash = schemaRef.indexOf('#');
  if (hash <= 0 || hash === schemaRef.length - 1) return undefined;
  return `${modulePrefix(schemaRef.slice(0, hash))}.${schemaRef.slice(hash + 1)}`;
}

/**
 * The name upstream gives a custom resource's schema: the group's DNS labels reversed,
 * then version and kind (`example.com`, `v1`, `Widget` → `com.example.v1.Widget`).
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/controller/openapi/builder/builder.go
 */
export function customSchemaName(group: string, version: string, kind: string): string {
  const reversed = group ? group.split('.').reverse().join('.') : 'core';
  return `${reversed}.${version}.${kind}`;
}

/** `x-kubernetes-group-version-kind` entry. */
export interface GVK {
  group: string;
  version: string;
  kind: string;
}

/** Splits an apiVersion (`apps/v1`, `v1`) into group and version. */
export function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The path segment of a group-version in /openapi/v3: `api/v1` for the core group,
 * `apis/<group>/<version>` otherwise.
 */
export function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}
