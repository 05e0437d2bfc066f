/**
 * apiextensions.k8s.io/v1 CustomResourceDefinitions: cluster-scoped, short names `crd`
 * and `crds`, category `api-extensions`. Defaults (singular, listKind, conversion None),
 * status cleared on create with the storage version recorded in `status.storedVersions`,
 * generation bumped on spec changes, and a DELETE that adds the
 * `customresourcecleanup.apiextensions.k8s.io` finalizer and the Terminating condition so
 * the custom resources are removed before the definition (the CRD controller in
 * src/apiserver/apiextensions finishes the job).
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/registry/customresourcedefinition/strategy.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/registry/customresourcedefinition/etcd.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apis/apiextensions/v1/defaults.go
 */
import type { DeleteStep, Obj, ResourceDefinition } from '../../../resource.js';
import { column, NAME_COLUMN } from '../../../core/v1/shared/printing.js';
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, type CustomResourceDefinition, type CustomResourceDefinitionCondition, storageVersion } from './types.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionStatus, validateCustomResourceDefinitionUpdate } from './validation.js';

type CRD = Obj<CustomResourceDefinition>;

/** Upstream SetDefaults_CustomResourceDefinition(Spec) (mutates). */
export function defaultCustomResourceDefinition(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return;
  const names = (spec.names ??= { kind: '', plural: '' });
  if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  if (spec.conversion.strategy === 'Webhook' && spec.conversion.webhook && !spec.conversion.webhook.conversionReviewVersions) {
    spec.conversion.webhook.conversionReviewVersions = ['v1beta1'];
  }
  const status = crd.status;
  if (status) {
    status.storedVersions ??= [];
    status.acceptedNames ??= { kind: '', plural: '' };
  }
}

function addStorageVersion(crd: CustomResourceDefinition): void {
  const sv = storageVersion(crd);
  if (!sv) return;
  const status = (crd.status ??= { acceptedNames: { kind: '', plural: '' }, storedVersions: [] });
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(sv)) stored.push(sv);
}

function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Sets (or replaces) a condition, keeping lastTransitionTime when the status did not change. */
export function setCondition(crd: CustomResourceDefinition, c: CustomResourceDefinitionCondition): void {
  const status = (crd.status ??= { acceptedNames: { kind: '', plural: '' }, storedVersions: [] });
  const list = (status.conditions ??= []);
  const i = list.findIndex((x) => x.type === c.type);
  if (i < 0) {
    list.push(c);
    return;
  }
  const old = list[i]!;
  list[i] = { ...c, lastTransitionTime: old.status === c.status ? old.lastTransitionTime : c.lastTransitionTime };
}

/** Second-precision RFC 3339, as metav1.Time serializes. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition resource (cluster-scoped, with a
 * status subresource). Serving the custom resources a CRD defines is the business of
 * the CRD controller in src/apiserver/apiextensions.
 */
export const customResourceDefinitionDefinition: ResourceDefinition<CustomResourceDefinition> = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  resource: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  schemaRef: 'apiextensions/v1#CustomResourceDefinition',

  defaults: defaultCustomResourceDefinition,

  // upstream's default table convertor: NAME, CREATED AT
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'Created At',
        'date',
        'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
      ),
    ],
    cells: (crd) => [crd.metadata.name ?? '', crd.metadata.creationTimestamp ?? null],
  },

  prepareForCreate(crd) {
    crd.status = { acceptedNames: { kind: '', plural: '' }, storedVersions: [] };
    crd.metadata.generation = 1;
    addStorageVersion(crd);
  },

  prepareForUpdate(crd, old) {
    if (!sameJSON(crd.spec, old.spec)) crd.metadata.generation = (old.metadata.generation ?? 0) + 1;
    else crd.metadata.generation = old.metadata.generation;
    crd.status = structuredClone(old.status);
    addStorageVersion(crd);
  },

  validate: (crd) => validateCustomResourceDefinition(crd),
  validateUpdate: (crd, old) => validateCustomResourceDefinitionUpdate(crd, old),

  status: {
    prepareForUpdate(crd, old) {
      crd.spec = old.spec;
      const m = crd.metadata;
      m.labels = old.metadata.labels;
      m.annotations = old.metadata.annotations;
      m.finalizers = old.metadata.finalizers;
      m.ownerReferences = old.metadata.ownerReferences;
      m.generation = old.metadata.generation;
      for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) if (m[k] === undefined) delete m[k];
    },
    validateUpdate: (crd) => validateCustomResourceDefinitionStatus(crd),
  },

  /**
   * The first DELETE adds the cleanup finalizer and a Terminating condition and marks the
   * CRD for deletion; the CRD controller deletes the custom resources and then removes
   * the finalizer.
   */
  deleteStep(crd, _opts, now): DeleteStep<CustomResourceDefinition> {
    if (crd.metadata.deletionTimestamp) return { kind: 'delete' };
    const next = structuredClone(crd) as CRD;
    const m = next.metadata;
    const fins = (m.finalizers ??= []);
    if (!fins.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) fins.push(CUSTOM_RESOURCE_CLEANUP_FINALIZER);
    m.deletionTimestamp = rfc3339(now);
    m.deletionGracePeriodSeconds = 0;
    setCondition(next, {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      lastTransitionTime: rfc3339(now),
    });
    return { kind: 'update', obj: next };
  },
};
