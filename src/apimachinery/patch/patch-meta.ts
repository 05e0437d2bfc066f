/**
 * Strategic-merge-patch metadata of the built-in kinds: merge keys and patch
 * strategies per field, the nested definition of each field the patch walker descends
 * into, and the root definition of each kind.
 *
 * Definition names are the OpenAPI ones (`io.k8s.api.core.v1.PodSpec`,
 * `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`); field names are JSON names.
 * Embedded (`json:",inline"`) Go structs are flattened into their parent, as in OpenAPI
 * (e.g. EphemeralContainerCommon into EphemeralContainer, VolumeSource into Volume).
 * Taken from the struct tags `patchStrategy:"merge" patchMergeKey:"name"` of
 * k8s.io/api v0.32 and k8s.io/apimachinery v0.32 (meta/v1).
 *
 * @see https://github.com/kubernetes/api/blob/release-1.32/core/v1/types.go
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/apis/meta/v1/types.go
 * @see https://kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch/
 */

/** A field's patch strategy, as the Go `patchStrategy` tag spells it. */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

/** Patch metadata of one field (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`). */
export interface FieldPatchMeta {
  /** `merge`: lists merge (by `mergeKey` for lists of objects); `replace`: the value is replaced whole;
   * `retainKeys`: the client may send `$retainKeys`. */
  strategy: PatchStrategy;
  /** For lists of objects merged by a key field, e.g. `name` for containers, `containerPort` for ports. */
  mergeKey?: string;
}

/**
 * Patch metadata per OpenAPI definition and JSON field: the `patchStrategy` and
 * `patchMergeKey` struct tags of the upstream Go types (v1.32), i.e. what the OpenAPI
 * documents publish as `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`.
 * Fields without an entry have no strategy: maps merge key by key, lists are replaced.
 *
 * Shape (stable; the OpenAPI generator reads it):
 * `patchMeta[definitionName][jsonField] = { strategy, mergeKey? }`.
 */
export const patchMeta: Record<string, Record<string, FieldPatchMeta>> = {
  // io.k8s.api.admissionregistration.v1
  'io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration': {
    webhooks: { strategy: 'merge', mergeKey: 'name' },
  },
  'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration': {
    webhooks: { strategy: 'merge', mergeKey: 'name' },
  },
  // io.k8s.kube-aggregator.pkg.apis.apiregistration.v1
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  // io.k8s.api.autoscaling.v2
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  // io.k8s.api.storage.v1
  'io.k8s.api.storage.v1.CSINodeSpec': {
    drivers: { strategy: 'merge', mergeKey: 'name' },
  },
  // io.k8s.api.apps.v1
  'io.k8s.api.apps.v1.DaemonSetStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  'io.k8s.api.apps.v1.DeploymentSpec': {
    strategy: { strategy: 'retainKeys' },
  },
  'io.k8s.api.apps.v1.DeploymentStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  'io.k8s.api.apps.v1.ReplicaSetStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  'io.k8s.api.apps.v1.StatefulSetStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  // io.k8s.api.batch.v1
  'io.k8s.api.batch.v1.JobStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  // io.k8s.api.core.v1
  'io.k8s.api.core.v1.ComponentStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  'io.k8s.api.core.v1.Container': {
    ports: { strategy: 'merge', mergeKey: 'containerPort' },
    env: { strategy: 'merge', mergeKey: 'name' },
    volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
    volumeDevices: { strategy: 'merge', mergeKey: 'devicePath' },
  },
  'io.k8s.api.core.v1.ContainerStatus': {
    volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
    allocatedResourcesStatus: { strategy: 'merge', mergeKey: 'name' },
  },
  'io.k8s.api.core.v1.EphemeralContainer': {
    ports: { strategy: 'merge', mergeKey: 'containerPort' },
    env: { strategy: 'merge', mergeKey: 'name' },
    volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
    volumeDevices: { strategy: 'merge', mergeKey: 'devicePath' },
  },
  'io.k8s.api.core.v1.NamespaceStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  'io.k8s.api.core.v1.NodeSpec': {
    podCIDRs: { strategy: 'merge' },
  },
  'io.k8s.api.core.v1.NodeStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
    addresses: { strategy: 'merge', mergeKey: 'type' },
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  'io.k8s.api.core.v1.PodSpec': {
    volumes: { strategy: 'merge,retainKeys', mergeKey: 'name' },
    initContainers: { strategy: 'merge', mergeKey: 'name' },
    containers: { strategy: 'merge', mergeKey: 'name' },
    ephemeralContainers: { strategy: 'merge', mergeKey: 'name' },
    imagePullSecrets: { strategy: 'merge', mergeKey: 'name' },
    hostAliases: { strategy: 'merge', mergeKey: 'ip' },
    topologySpreadConstraints: { strategy: 'merge', mergeKey: 'topologyKey' },
    schedulingGates: { strategy: 'merge', mergeKey: 'name' },
    resourceClaims: { strategy: 'merge,retainKeys', mergeKey: 'name' },
  },
  'io.k8s.api.core.v1.PodStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
    hostIPs: { strategy: 'merge', mergeKey: 'ip' },
    podIPs: { strategy: 'merge', mergeKey: 'ip' },
    resourceClaimStatuses: { strategy: 'merge,retainKeys', mergeKey: 'name' },
  },
  'io.k8s.api.core.v1.ReplicationControllerStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  'io.k8s.api.core.v1.ServiceAccount': {
    secrets: { strategy: 'merge', mergeKey: 'name' },
  },
  'io.k8s.api.core.v1.ServiceSpec': {
    ports: { strategy: 'merge', mergeKey: 'port' },
  },
  'io.k8s.api.core.v1.ServiceStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  // io.k8s.api.policy.v1
  'io.k8s.api.policy.v1.PodDisruptionBudgetSpec': {
    selector: { strategy: 'replace' },
  },
  'io.k8s.api.policy.v1.PodDisruptionBudgetStatus': {
    conditions: { strategy: 'merge', mergeKey: 'type' },
  },
  // io.k8s.apimachinery.pkg.apis.meta.v1
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    ownerReferences: { strategy: 'merge', mergeKey: 'uid' },
    finalizers: { strategy: 'merge' },
  },
};

/**
 * Nested definition of struct-typed fields (for lists: of their elements), so the patch
 * walker knows which `patchMeta` entry applies below a field, e.g.
 * `fieldTypes['io.k8s.api.core.v1.PodSpec'].containers === 'io.k8s.api.core.v1.Container'`.
 * Only fields on a path to some patch metadata are listed: below any other field every
 * map merges key by key and every list is replaced, with or without a type.
 */
export const fieldTypes: Record<string, Record<string, string>> = {
  // io.k8s.api.apps.v1
  'io.k8s.api.apps.v1.ControllerRevision': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.apps.v1.DaemonSet': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.apps.v1.DaemonSetSpec',
    status: 'io.k8s.api.apps.v1.DaemonSetStatus',
  },
  'io.k8s.api.apps.v1.DaemonSetSpec': {
    template: 'io.k8s.api.core.v1.PodTemplateSpec',
  },
  'io.k8s.api.apps.v1.Deployment': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.apps.v1.DeploymentSpec',
    status: 'io.k8s.api.apps.v1.DeploymentStatus',
  },
  'io.k8s.api.apps.v1.DeploymentSpec': {
    template: 'io.k8s.api.core.v1.PodTemplateSpec',
  },
  'io.k8s.api.apps.v1.ReplicaSet': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.apps.v1.ReplicaSetSpec',
    status: 'io.k8s.api.apps.v1.ReplicaSetStatus',
  },
  'io.k8s.api.apps.v1.ReplicaSetSpec': {
    template: 'io.k8s.api.core.v1.PodTemplateSpec',
  },
  'io.k8s.api.apps.v1.StatefulSet': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.apps.v1.StatefulSetSpec',
    status: 'io.k8s.api.apps.v1.StatefulSetStatus',
  },
  'io.k8s.api.apps.v1.StatefulSetSpec': {
    template: 'io.k8s.api.core.v1.PodTemplateSpec',
    volumeClaimTemplates: 'io.k8s.api.core.v1.PersistentVolumeClaim',
  },
  // io.k8s.api.batch.v1
  'io.k8s.api.batch.v1.CronJob': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.batch.v1.CronJobSpec',
  },
  'io.k8s.api.batch.v1.CronJobSpec': {
    jobTemplate: 'io.k8s.api.batch.v1.JobTemplateSpec',
  },
  'io.k8s.api.batch.v1.Job': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.batch.v1.JobSpec',
    status: 'io.k8s.api.batch.v1.JobStatus',
  },
  'io.k8s.api.batch.v1.JobSpec': {
    template: 'io.k8s.api.core.v1.PodTemplateSpec',
  },
  'io.k8s.api.batch.v1.JobTemplateSpec': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.batch.v1.JobSpec',
  },
  // io.k8s.api.coordination.v1
  'io.k8s.api.coordination.v1.Lease': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  // io.k8s.api.core.v1
  'io.k8s.api.core.v1.ComponentStatus': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.ConfigMap': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.Endpoints': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.EphemeralVolumeSource': {
    volumeClaimTemplate: 'io.k8s.api.core.v1.PersistentVolumeClaimTemplate',
  },
  'io.k8s.api.core.v1.Event': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.LimitRange': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.Namespace': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    status: 'io.k8s.api.core.v1.NamespaceStatus',
  },
  'io.k8s.api.core.v1.Node': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.core.v1.NodeSpec',
    status: 'io.k8s.api.core.v1.NodeStatus',
  },
  'io.k8s.api.core.v1.PersistentVolume': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.PersistentVolumeClaim': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    status: 'io.k8s.api.core.v1.PersistentVolumeClaimStatus',
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimTemplate': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.Pod': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.core.v1.PodSpec',
    status: 'io.k8s.api.core.v1.PodStatus',
  },
  'io.k8s.api.core.v1.PodSpec': {
    volumes: 'io.k8s.api.core.v1.Volume',
    initContainers: 'io.k8s.api.core.v1.Container',
    containers: 'io.k8s.api.core.v1.Container',
    ephemeralContainers: 'io.k8s.api.core.v1.EphemeralContainer',
  },
  'io.k8s.api.core.v1.PodStatus': {
    initContainerStatuses: 'io.k8s.api.core.v1.ContainerStatus',
    containerStatuses: 'io.k8s.api.core.v1.ContainerStatus',
    ephemeralContainerStatuses: 'io.k8s.api.core.v1.ContainerStatus',
  },
  'io.k8s.api.core.v1.PodTemplate': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    template: 'io.k8s.api.core.v1.PodTemplateSpec',
  },
  'io.k8s.api.core.v1.PodTemplateSpec': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.core.v1.PodSpec',
  },
  'io.k8s.api.core.v1.ReplicationController': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.core.v1.ReplicationControllerSpec',
    status: 'io.k8s.api.core.v1.ReplicationControllerStatus',
  },
  'io.k8s.api.core.v1.ReplicationControllerSpec': {
    template: 'io.k8s.api.core.v1.PodTemplateSpec',
  },
  'io.k8s.api.core.v1.ResourceQuota': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.Secret': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.Service': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.core.v1.ServiceSpec',
    status: 'io.k8s.api.core.v1.ServiceStatus',
  },
  'io.k8s.api.core.v1.ServiceAccount': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.core.v1.Volume': {
    ephemeral: 'io.k8s.api.core.v1.EphemeralVolumeSource',
  },
  // io.k8s.api.policy.v1
  'io.k8s.api.policy.v1.PodDisruptionBudget': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    spec: 'io.k8s.api.policy.v1.PodDisruptionBudgetSpec',
    status: 'io.k8s.api.policy.v1.PodDisruptionBudgetStatus',
  },
  // io.k8s.api.rbac.v1
  'io.k8s.api.rbac.v1.ClusterRole': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.rbac.v1.ClusterRoleBinding': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.rbac.v1.Role': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  'io.k8s.api.rbac.v1.RoleBinding': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  },
  // kinds whose only patch metadata is in ObjectMeta
  'io.k8s.api.events.v1.Event': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.autoscaling.v1.Scale': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.networking.v1.Ingress': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.networking.v1.IngressClass': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.networking.v1.NetworkPolicy': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.discovery.v1.EndpointSlice': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.scheduling.v1.PriorityClass': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.certificates.v1.CertificateSigningRequest': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  // kinds whose only patch metadata is ObjectMeta's (or one status/spec list)
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    status: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus',
  },
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler': {
    metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    status: 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus',
  },
  'io.k8s.api.flowcontrol.v1.FlowSchema': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.node.v1.RuntimeClass': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.storage.v1.StorageClass': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.storage.v1.CSIDriver': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.storage.v1.CSINode': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', spec: 'io.k8s.api.storage.v1.CSINodeSpec' },
  'io.k8s.api.storage.v1.CSIStorageCapacity': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.storage.v1.VolumeAttachment': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration': { metadata: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
};

/**
 * The root definition of each kind that accepts strategic merge patches, keyed
 * `<apiVersion>/<Kind>` (`v1/Pod`, `apps/v1/Deployment`, `rbac.authorization.k8s.io/v1/Role`).
 * Subresources patch the object of their parent kind (`pods/status` → `v1/Pod`), except
 * `scale` (`autoscaling/v1/Scale`). Kinds not listed here (custom resources) get
 * 415 UnsupportedMediaType for `application/strategic-merge-patch+json`, as upstream.
 */
export const kindDefinitions: Record<string, string> = {
  'v1/Pod': 'io.k8s.api.core.v1.Pod',
  'v1/PodTemplate': 'io.k8s.api.core.v1.PodTemplate',
  'v1/ReplicationController': 'io.k8s.api.core.v1.ReplicationController',
  'v1/Service': 'io.k8s.api.core.v1.Service',
  'v1/Endpoints': 'io.k8s.api.core.v1.Endpoints',
  'v1/Node': 'io.k8s.api.core.v1.Node',
  'v1/Namespace': 'io.k8s.api.core.v1.Namespace',
  'v1/ConfigMap': 'io.k8s.api.core.v1.ConfigMap',
  'v1/Secret': 'io.k8s.api.core.v1.Secret',
  'v1/ServiceAccount': 'io.k8s.api.core.v1.ServiceAccount',
  'v1/Event': 'io.k8s.api.core.v1.Event',
  'v1/PersistentVolume': 'io.k8s.api.core.v1.PersistentVolume',
  'v1/PersistentVolumeClaim': 'io.k8s.api.core.v1.PersistentVolumeClaim',
  'v1/LimitRange': 'io.k8s.api.core.v1.LimitRange',
  'v1/ResourceQuota': 'io.k8s.api.core.v1.ResourceQuota',
  'v1/ComponentStatus': 'io.k8s.api.core.v1.ComponentStatus',
  'apps/v1/Deployment': 'io.k8s.api.apps.v1.Deployment',
  'apps/v1/ReplicaSet': 'io.k8s.api.apps.v1.ReplicaSet',
  'apps/v1/StatefulSet': 'io.k8s.api.apps.v1.StatefulSet',
  'apps/v1/DaemonSet': 'io.k8s.api.apps.v1.DaemonSet',
  'apps/v1/ControllerRevision': 'io.k8s.api.apps.v1.ControllerRevision',
  'batch/v1/Job': 'io.k8s.api.batch.v1.Job',
  'batch/v1/CronJob': 'io.k8s.api.batch.v1.CronJob',
  'coordination.k8s.io/v1/Lease': 'io.k8s.api.coordination.v1.Lease',
  'rbac.authorization.k8s.io/v1/Role': 'io.k8s.api.rbac.v1.Role',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'io.k8s.api.rbac.v1.ClusterRole',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'io.k8s.api.rbac.v1.RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'io.k8s.api.rbac.v1.ClusterRoleBinding',
  'policy/v1/PodDisruptionBudget': 'io.k8s.api.policy.v1.PodDisruptionBudget',
  'events.k8s.io/v1/Event': 'io.k8s.api.events.v1.Event',
  'autoscaling/v1/Scale': 'io.k8s.api.autoscaling.v1.Scale',
  'autoscaling/v1/HorizontalPodAutoscaler': 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler',
  'networking.k8s.io/v1/Ingress': 'io.k8s.api.networking.v1.Ingress',
  'networking.k8s.io/v1/IngressClass': 'io.k8s.api.networking.v1.IngressClass',
  'networking.k8s.io/v1/NetworkPolicy': 'io.k8s.api.networking.v1.NetworkPolicy',
  'discovery.k8s.io/v1/EndpointSlice': 'io.k8s.api.discovery.v1.EndpointSlice',
  'scheduling.k8s.io/v1/PriorityClass': 'io.k8s.api.scheduling.v1.PriorityClass',
  'certificates.k8s.io/v1/CertificateSigningRequest': 'io.k8s.api.certificates.v1.CertificateSigningRequest',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': 'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': 'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding',
  'apiextensions.k8s.io/v1/CustomResourceDefinition': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  'apiregistration.k8s.io/v1/APIService': 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService',
  'autoscaling/v2/HorizontalPodAutoscaler': 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': 'io.k8s.api.flowcontrol.v1.FlowSchema',
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': 'io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration',
  'node.k8s.io/v1/RuntimeClass': 'io.k8s.api.node.v1.RuntimeClass',
  'storage.k8s.io/v1/StorageClass': 'io.k8s.api.storage.v1.StorageClass',
  'storage.k8s.io/v1/CSIDriver': 'io.k8s.api.storage.v1.CSIDriver',
  'storage.k8s.io/v1/CSINode': 'io.k8s.api.storage.v1.CSINode',
  'storage.k8s.io/v1/CSIStorageCapacity': 'io.k8s.api.storage.v1.CSIStorageCapacity',
  'storage.k8s.io/v1/VolumeAttachment': 'io.k8s.api.storage.v1.VolumeAttachment',
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': 'io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': 'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration',
};
