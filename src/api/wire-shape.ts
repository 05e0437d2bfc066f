/**
 * The JSON shape upstream gives built-in objects, applied once when an object is written
 * (so every read, list and watch sends stored text as it is):
 *
 * - member order: `kind`, `apiVersion`, `metadata` (ObjectMeta in its Go order), then
 *   the kind's own fields in Go declaration order (`spec`, `status` for most kinds);
 * - status counters without `omitempty` in upstream's types, which Go writes even when
 *   zero — and with them the status struct itself (Go writes struct fields always):
 *   a new DaemonSet reads `"status":{"currentNumberScheduled":0,"numberMisscheduled":0,
 *   "desiredNumberScheduled":0,"numberReady":0}`. Clients generated from the OpenAPI
 *   (the Python client) refuse these objects when such required fields are missing.
 *
 * Custom resources are not shaped (they are unstructured upstream too).
 *
 * @see https://github.com/kubernetes/api/blob/v0.32.0/apps/v1/types.go
 * @see https://github.com/kubernetes/api/blob/v0.32.0/core/v1/types.go
 */
import { fieldOrder, inFieldOrder, objectMetaInOrder, TYPE_META_FIELDS, type FieldOrder } from '../apimachinery/wire-order.js';
import type { Obj } from './resource.js';

/** Top-level fields after TypeMeta/ObjectMeta of kinds without the usual `spec`, `status` (key `group/Kind`). */
const TOP_LEVEL: Record<string, readonly string[]> = {
  '/ConfigMap': ['immutable', 'data', 'binaryData'],
  '/Secret': ['immutable', 'data', 'stringData', 'type'],
  '/ServiceAccount': ['secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
  '/Endpoints': ['subsets'],
  '/Binding': ['target'],
  '/PodTemplate': ['template'],
  '/ComponentStatus': ['conditions'],
  '/RangeAllocation': ['range', 'data'],
  '/Event': [
    'involvedObject',
    'reason',
    'message',
    'source',
    'firstTimestamp',
    'lastTimestamp',
    'count',
    'type',
    'eventTime',
    'series',
    'action',
    'related',
    'reportingComponent',
    'reportingInstance',
  ],
  'events.k8s.io/Event': [
    'eventTime',
    'series',
    'reportingController',
    'reportingInstance',
    'action',
    'reason',
    'regarding',
    'related',
    'note',
    'type',
    'deprecatedSource',
    'deprecatedFirstTimestamp',
    'deprecatedLastTimestamp',
    'deprecatedCount',
  ],
  'apps/ControllerRevision': ['data', 'revision'],
  'discovery.k8s.io/EndpointSlice': ['addressType', 'endpoints', 'ports'],
  'rbac.authorization.k8s.io/Role': ['rules'],
  'rbac.authorization.k8s.io/ClusterRole': ['rules', 'aggregationRule'],
  'rbac.authorization.k8s.io/RoleBinding': ['subjects', 'roleRef'],
  'rbac.authorization.k8s.io/ClusterRoleBinding': ['subjects', 'roleRef'],
  'scheduling.k8s.io/PriorityClass': ['value', 'globalDefault', 'description', 'preemptionPolicy'],
  'node.k8s.io/RuntimeClass': ['handler', 'overhead', 'scheduling'],
  'storage.k8s.io/StorageClass': ['provisioner', 'parameters', 'reclaimPolicy', 'mountOptions', 'allowVolumeExpansion', 'volumeBindingMode', 'allowedTopologies'],
  'storage.k8s.io/CSIStorageCapacity': ['nodeTopology', 'storageClassName', 'capacity', 'maximumVolumeSize'],
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': ['webhooks'],
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': ['webhooks'],
  'policy/Eviction': ['deleteOptions'],
};

/** Top-level scalars without `omitempty`, with their zero values. */
const TOP_LEVEL_ZEROS: Record<string, Readonly<Record<string, unknown>>> = {
  '/Event': { reportingComponent: '', reportingInstance: '' },
  'apps/ControllerRevision': { revision: 0 },
  'scheduling.k8s.io/PriorityClass': { value: 0 },
};

/** A status struct: its fields in Go order and the counters written even when zero. */
interface StatusShape {
  order: readonly string[];
  zeros: Readonly<Record<string, unknown>>;
}

const REPLICA_SET_LIKE: StatusShape = {
  order: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration', 'conditions'],
  zeros: { replicas: 0 },
};

const STATUS: Record<string, StatusShape> = {
  'apps/DaemonSet': {
    order: [
      'currentNumberScheduled',
      'numberMisscheduled',
      'desiredNumberScheduled',
      'numberReady',
      'observedGeneration',
      'updatedNumberScheduled',
      'numberAvailable',
      'numberUnavailable',
      'collisionCount',
      'conditions',
    ],
    zeros: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
  },
  'apps/ReplicaSet': REPLICA_SET_LIKE,
  '/ReplicationController': REPLICA_SET_LIKE,
  'apps/StatefulSet': {
    order: [
      'observedGeneration',
      'replicas',
      'readyReplicas',
      'currentReplicas',
      'updatedReplicas',
      'currentRevision',
      'updateRevision',
      'collisionCount',
      'conditions',
      'availableReplicas',
    ],
    zeros: { replicas: 0, availableReplicas: 0 },
  },
  'apps/Deployment': {
    order: ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'conditions', 'collisionCount'],
    zeros: {},
  },
  'policy/PodDisruptionBudget': {
    order: ['observedGeneration', 'disruptedPods', 'disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods', 'conditions'],
    zeros: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
  },
  'autoscaling/HorizontalPodAutoscaler': {
    // v1 and v2 share the storage; the v2-only fields come after v1's
    order: ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas', 'currentCPUUtilizationPercentage', 'currentMetrics', 'conditions'],
    zeros: { desiredReplicas: 0 },
  },
};

/** A function giving an object its upstream wire shape (see the module comment). */
export type WireShaper = (obj: Obj) => Obj;

const identity: WireShaper = (o) => o;

/**
 * The wire shaper of a built-in kind. It fills the zero-valued fields into `obj` itself
 * (a mutable object being written) and returns `obj`, or a reordered shallow copy when
 * members move.
 */
export function wireShaper(group: string, kind: string): WireShaper {
  const key = `${group}/${kind}`;
  const top: FieldOrder = fieldOrder([...TYPE_META_FIELDS, ...(TOP_LEVEL[key] ?? ['spec', 'status'])]);
  const topZeros = TOP_LEVEL_ZEROS[key];
  const status = STATUS[key];
  const statusOrder = status ? fieldOrder(status.order) : undefined;
  const statusZeros = status && Object.keys(status.zeros).length ? status.zeros : undefined;
  return (obj) => {
    const o = obj as Record<string, unknown>;
    if (topZeros) for (const [k, v] of Object.entries(topZeros)) if (o[k] === undefined) o[k] = v;
    if (statusZeros) {
      let s = o.status as Record<string, unknown> | undefined;
      if (s === undefined || s === null || typeof s !== 'object') o.status = s = {};
      for (const [k, v] of Object.entries(statusZeros)) if (s[k] === undefined) s[k] = v;
    }
    if (statusOrder && o.status !== null && typeof o.status === 'object') o.status = inFieldOrder(o.status as object, statusOrder);
    const meta = o.metadata as Record<string, unknown> | undefined;
    if (meta !== null && typeof meta === 'object') {
      // the store sets resourceVersion after this (at the write's revision): reserve its
      // place in ObjectMeta's order, where the setter then keeps it
      if (!Object.hasOwn(meta, 'resourceVersion')) meta.resourceVersion = undefined;
      o.metadata = objectMetaInOrder(meta);
    }
    return inFieldOrder(obj, top);
  };
}

/** {@link wireShaper} for built-in kinds; the identity for custom resources. */
export function wireShaperFor(group: string, kind: string, custom: boolean): WireShaper {
  return custom ? identity : wireShaper(group, kind);
}
