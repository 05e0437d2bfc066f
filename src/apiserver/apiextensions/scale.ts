/**
 * The `scale` subresource of custom resources: an autoscaling/v1 Scale whose
 * spec.replicas, status.replicas and status.selector are read from the paths the CRD
 * names (`specReplicasPath`, `statusReplicasPath`, `labelSelectorPath`). Writes set the
 * spec path through the resource's own update strategy (validation, generation bump).
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/registry/customresource/etcd.go (ScaleREST)
 */
import type { CustomResourceSubresourceScale } from 'kubernetes-types/apiextensions/v1.js';
import type { Obj } from '../../api/resource.js';
import { scaleHandler, type Scale, type ScaleView } from '../subresources/scale.js';
import type { SubresourceHandler } from '../subresources/types.js';
import { parseSimpleJSONPath, valueAt } from './printer.js';

type Steps = NonNullable<ReturnType<typeof parseSimpleJSONPath>>;

function setAt(obj: Record<string, unknown>, steps: Steps, value: unknown): void {
  let cur: Record<string | number, unknown> = obj;
  for (let i = 0; i < steps.length - 1; i++) {
    const s = steps[i]!;
    let next = cur[s];
    if (next === null || typeof next !== 'object') cur[s] = next = {};
    cur = next as Record<string | number, unknown>;
  }
  cur[steps[steps.length - 1]!] = value;
}

/** The Scale view of a custom resource. */
export function customResourceScale(obj: Obj, paths: { spec: Steps; status: Steps; selector?: Steps }): Scale {
  const m = obj.metadata;
  const specReplicas = valueAt(obj, paths.spec);
  const statusReplicas = valueAt(obj, paths.status);
  const selector = paths.selector ? valueAt(obj, paths.selector) : undefined;
  const status: { replicas: number; selector?: string } = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector) status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: typeof specReplicas === 'number' ? { replicas: specReplicas } : {},
    status,
  };
}

/**
 * The scale subresource handler of one custom resource version: the built-in handler
 * (GET, PUT, PATCH, field ownership) over a view through the CRD's paths.
 * @throws Error when a path of `scale` is not a simple JSONPath (validation rejects such CRDs)
 */
export function customResourceScaleHandler(group: string, version: string, resource: string, scale: CustomResourceSubresourceScale): SubresourceHandler {
  const spec = parseSimpleJSONPath(scale.specReplicasPath);
  const status = parseSimpleJSONPath(scale.statusReplicasPath);
  const selector = scale.labelSelectorPath ? parseSimpleJSONPath(scale.labelSelectorPath) : undefined;
  if (!spec || !status) throw new Error(`invalid scale paths ${scale.specReplicasPath} ${scale.statusReplicasPath}`);
  const paths = { spec, status, selector };
  const view: ScaleView = {
    read: (obj) => customResourceScale(obj, paths),
    setReplicas(obj, replicas) {
      const old = valueAt(obj, spec);
      setAt(obj, spec, replicas);
      return typeof old === 'number' ? old : undefined;
    },
    fieldPath: spec.map((step) => (typeof step === 'number' ? `i:${step}` : `f:${step}`)),
  };
  return scaleHandler(group, version, resource, view);
}
