/**
 * Facts the `kubernetes-types` declarations do not carry but upstream's OpenAPI does:
 * which `number` fields are 64-bit or floating point, which strings are base64 bytes,
 * and the server-side-apply list/struct markers. Read from upstream's Go types
 * (k8s.io/api and k8s.io/apimachinery v0.32: field types `int64`/`float64`/`[]byte`,
 * `// +listType`, `// +listMapKey`, `// +structType` markers) and kept here as data.
 *
 * Keys are `<kubernetes-types module>#<Type>.<field>` (e.g. `core/v1#PodSpec.containers`).
 *
 * @see https://github.com/kubernetes/api/blob/release-1.32/core/v1/types.go
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy
 */

/**
 * Integer format heuristic: every `number` is `integer`/`int32` except fields with one of
 * these names (all int64 in upstream's Go types, in every group) and the exceptions below.
 */
export const INT64_FIELD_NAMES: ReadonlySet<string> = new Set([
  'observedGeneration',
  'generation',
  'deletionGracePeriodSeconds',
  'terminationGracePeriodSeconds',
  'activeDeadlineSeconds',
  'startingDeadlineSeconds',
  'expirationSeconds',
  'runAsUser',
  'runAsGroup',
  'fsGroup',
  'supplementalGroups',
  'tolerationSeconds',
  'remainingItemCount',
  'gracePeriodSeconds',
  'sizeBytes',
  'limitBytes',
  'sinceSeconds',
  'tailLines',
]);

/** Fields whose names are in INT64_FIELD_NAMES but which are int32 upstream. */
export const INT32_EXCEPTIONS: ReadonlySet<string> = new Set([
  'certificates/v1#CertificateSigningRequestSpec.expirationSeconds',
  'certificates/v1alpha1#CertificateSigningRequestSpec.expirationSeconds',
]);

/** Further int64 fields whose names are too generic for the name rule. */
export const INT64_FIELDS: ReadonlySet<string> = new Set([
  'apps/v1#ControllerRevision.revision',
  'core/v1#LinuxContainerUser.uid',
  'core/v1#LinuxContainerUser.gid',
  'core/v1#SleepAction.seconds',
  'apiextensions/v1#JSONSchemaProps.maxItems',
  'apiextensions/v1#JSONSchemaProps.maxLength',
  'apiextensions/v1#JSONSchemaProps.maxProperties',
  'apiextensions/v1#JSONSchemaProps.minItems',
  'apiextensions/v1#JSONSchemaProps.minLength',
  'apiextensions/v1#JSONSchemaProps.minProperties',
]);

/** `number` fields that are float64 (`type: number, format: double`). */
export const DOUBLE_FIELDS: ReadonlySet<string> = new Set([
  'apiextensions/v1#JSONSchemaProps.maximum',
  'apiextensions/v1#JSONSchemaProps.minimum',
  'apiextensions/v1#JSONSchemaProps.multipleOf',
]);

/** `[]byte` fields (strings, or map values for maps): `format: byte` (base64). */
export const BYTE_FIELDS: ReadonlySet<string> = new Set([
  'core/v1#Secret.data',
  'core/v1#ConfigMap.binaryData',
  'core/v1#RangeAllocation.data',
  'certificates/v1#CertificateSigningRequestSpec.request',
  'certificates/v1#CertificateSigningRequestStatus.certificate',
  'admissionregistration/v1#WebhookClientConfig.caBundle',
  'admissionregistration/v1beta1#WebhookClientConfig.caBundle',
  'admissionregistration/v1alpha1#WebhookClientConfig.caBundle',
  'apiextensions/v1#WebhookClientConfig.caBundle',
  'apiregistration/v1#APIServiceSpec.caBundle',
]);

/** Types whose struct is replaced as a whole by server-side apply (`x-kubernetes-map-type: atomic`). */
export const ATOMIC_STRUCTS: ReadonlySet<string> = new Set([
  'admissionregistration/v1#ParamKind',
  'admissionregistration/v1#Variable',
  'admissionregistration/v1#ParamRef',
  'admissionregistration/v1#MatchResources',
  'admissionregistration/v1#NamedRuleWithOperations',
  'autoscaling/v1#CrossVersionObjectReference',
  'core/v1#SecretReference',
  'core/v1#ObjectFieldSelector',
  'core/v1#ResourceFieldSelector',
  'core/v1#ConfigMapKeySelector',
  'core/v1#SecretKeySelector',
  'core/v1#NodeSelector',
  'core/v1#NodeSelectorTerm',
  'core/v1#TopologySelectorTerm',
  'core/v1#EndpointAddress',
  'core/v1#EndpointPort',
  'core/v1#ObjectReference',
  'core/v1#LocalObjectReference',
  'core/v1#TypedLocalObjectReference',
  'core/v1#ScopeSelector',
  'discovery/v1#EndpointPort',
  'networking/v1#ServiceBackendPort',
  'rbac/v1#Subject',
  'rbac/v1#RoleRef',
  'meta/v1#OwnerReference',
  'meta/v1#LabelSelector',
]);

/**
 * `x-kubernetes-list-type` (and `-list-map-keys` for `map`) of list fields, one per line:
 * `<module>#<Type>.<field> <atomic|set|map> [key,key]`. Only GA groups are listed.
 */
const LIST_TYPE_LINES = `
admissionregistration/v1#MatchResources.excludeResourceRules atomic
admissionregistration/v1#MatchResources.resourceRules atomic
admissionregistration/v1#MutatingWebhook.admissionReviewVersions atomic
admissionregistration/v1#MutatingWebhook.matchConditions map name
admissionregistration/v1#MutatingWebhook.rules atomic
admissionregistration/v1#MutatingWebhookConfiguration.webhooks map name
admissionregistration/v1#NamedRuleWithOperations.resourceNames atomic
admissionregistration/v1#Rule.apiGroups atomic
admissionregistration/v1#Rule.apiVersions atomic
admissionregistration/v1#Rule.resources atomic
admissionregistration/v1#RuleWithOperations.operations atomic
admissionregistration/v1#TypeChecking.expressionWarnings atomic
admissionregistration/v1#ValidatingAdmissionPolicyBindingSpec.validationActions set
admissionregistration/v1#ValidatingAdmissionPolicySpec.auditAnnotations atomic
admissionregistration/v1#ValidatingAdmissionPolicySpec.matchConditions map name
admissionregistration/v1#ValidatingAdmissionPolicySpec.validations atomic
admissionregistration/v1#ValidatingAdmissionPolicySpec.variables map name
admissionregistration/v1#ValidatingAdmissionPolicyStatus.conditions map type
apiregistration/v1#APIServiceStatus.conditions map type
admissionregistration/v1#ValidatingWebhook.admissionReviewVersions atomic
admissionregistration/v1#ValidatingWebhook.matchConditions map name
admissionregistration/v1#ValidatingWebhook.rules atomic
admissionregistration/v1#ValidatingWebhookConfiguration.webhooks map name
apps/v1#DaemonSetStatus.conditions map type
apps/v1#DeploymentStatus.conditions map type
apps/v1#ReplicaSetStatus.conditions map type
apps/v1#StatefulSetSpec.volumeClaimTemplates atomic
apps/v1#StatefulSetStatus.conditions map type
authentication/v1#TokenRequestSpec.audiences atomic
authentication/v1#TokenReviewSpec.audiences atomic
authentication/v1#TokenReviewStatus.audiences atomic
authentication/v1#UserInfo.groups atomic
authorization/v1#FieldSelectorAttributes.requirements atomic
authorization/v1#LabelSelectorAttributes.requirements atomic
authorization/v1#NonResourceRule.nonResourceURLs atomic
authorization/v1#NonResourceRule.verbs atomic
authorization/v1#ResourceRule.apiGroups atomic
authorization/v1#ResourceRule.resourceNames atomic
authorization/v1#ResourceRule.resources atomic
authorization/v1#ResourceRule.verbs atomic
authorization/v1#SubjectAccessReviewSpec.groups atomic
authorization/v1#SubjectRulesReviewStatus.nonResourceRules atomic
authorization/v1#SubjectRulesReviewStatus.resourceRules atomic
autoscaling/v2#HPAScalingRules.policies atomic
autoscaling/v2#HorizontalPodAutoscalerSpec.metrics atomic
autoscaling/v2#HorizontalPodAutoscalerStatus.conditions map type
autoscaling/v2#HorizontalPodAutoscalerStatus.currentMetrics atomic
batch/v1#CronJobStatus.active atomic
batch/v1#JobStatus.conditions atomic
batch/v1#PodFailurePolicy.rules atomic
batch/v1#PodFailurePolicyOnExitCodesRequirement.values set
batch/v1#PodFailurePolicyRule.onPodConditions atomic
batch/v1#SuccessPolicy.rules atomic
batch/v1#UncountedTerminatedPods.failed set
batch/v1#UncountedTerminatedPods.succeeded set
certificates/v1#CertificateSigningRequestSpec.groups atomic
certificates/v1#CertificateSigningRequestSpec.request atomic
certificates/v1#CertificateSigningRequestSpec.usages atomic
certificates/v1#CertificateSigningRequestStatus.certificate atomic
certificates/v1#CertificateSigningRequestStatus.conditions map type
core/v1#AvoidPods.preferAvoidPods atomic
core/v1#Capabilities.add atomic
core/v1#Capabilities.drop atomic
core/v1#CephFSPersistentVolumeSource.monitors atomic
core/v1#CephFSVolumeSource.monitors atomic
core/v1#ComponentStatus.conditions map type
core/v1#ConfigMapProjection.items atomic
core/v1#ConfigMapVolumeSource.items atomic
core/v1#Container.args atomic
core/v1#Container.command atomic
core/v1#Container.env map name
core/v1#Container.envFrom atomic
core/v1#Container.ports map containerPort,protocol
core/v1#Container.resizePolicy atomic
core/v1#Container.volumeDevices map devicePath
core/v1#Container.volumeMounts map mountPath
core/v1#ContainerImage.names atomic
core/v1#ContainerStatus.allocatedResourcesStatus map name
core/v1#ContainerStatus.volumeMounts map mountPath
core/v1#DownwardAPIProjection.items atomic
core/v1#DownwardAPIVolumeSource.items atomic
core/v1#EndpointSubset.addresses atomic
core/v1#EndpointSubset.notReadyAddresses atomic
core/v1#EndpointSubset.ports atomic
core/v1#Endpoints.subsets atomic
core/v1#EphemeralContainer.args atomic
core/v1#EphemeralContainer.command atomic
core/v1#EphemeralContainer.env map name
core/v1#EphemeralContainer.envFrom atomic
core/v1#EphemeralContainer.ports map containerPort,protocol
core/v1#EphemeralContainer.resizePolicy atomic
core/v1#EphemeralContainer.volumeDevices map devicePath
core/v1#EphemeralContainer.volumeMounts map mountPath
core/v1#ExecAction.command atomic
core/v1#FCVolumeSource.targetWWNs atomic
core/v1#FCVolumeSource.wwids atomic
core/v1#HTTPGetAction.httpHeaders atomic
core/v1#HostAlias.hostnames atomic
core/v1#ISCSIPersistentVolumeSource.portals atomic
core/v1#ISCSIVolumeSource.portals atomic
core/v1#LimitRangeSpec.limits atomic
core/v1#LinuxContainerUser.supplementalGroups atomic
core/v1#LoadBalancerIngress.ports atomic
core/v1#LoadBalancerStatus.ingress atomic
core/v1#NamespaceSpec.finalizers atomic
core/v1#NamespaceStatus.conditions map type
core/v1#NodeAffinity.preferredDuringSchedulingIgnoredDuringExecution atomic
core/v1#NodeSelector.nodeSelectorTerms atomic
core/v1#NodeSelectorRequirement.values atomic
core/v1#NodeSelectorTerm.matchExpressions atomic
core/v1#NodeSelectorTerm.matchFields atomic
core/v1#NodeSpec.podCIDRs set
core/v1#NodeSpec.taints atomic
core/v1#NodeStatus.addresses map type
core/v1#NodeStatus.conditions map type
core/v1#NodeStatus.images atomic
core/v1#NodeStatus.runtimeHandlers atomic
core/v1#NodeStatus.volumesAttached atomic
core/v1#NodeStatus.volumesInUse atomic
core/v1#PersistentVolumeClaimSpec.accessModes atomic
core/v1#PersistentVolumeClaimStatus.accessModes atomic
core/v1#PersistentVolumeClaimStatus.conditions map type
core/v1#PersistentVolumeSpec.accessModes atomic
core/v1#PersistentVolumeSpec.mountOptions atomic
core/v1#PodAffinity.preferredDuringSchedulingIgnoredDuringExecution atomic
core/v1#PodAffinity.requiredDuringSchedulingIgnoredDuringExecution atomic
core/v1#PodAffinityTerm.matchLabelKeys atomic
core/v1#PodAffinityTerm.mismatchLabelKeys atomic
core/v1#PodAffinityTerm.namespaces atomic
core/v1#PodAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution atomic
core/v1#PodAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution atomic
core/v1#PodDNSConfig.nameservers atomic
core/v1#PodDNSConfig.options atomic
core/v1#PodDNSConfig.searches atomic
core/v1#PodExecOptions.command atomic
core/v1#PodPortForwardOptions.ports atomic
core/v1#PodSecurityContext.supplementalGroups atomic
core/v1#PodSecurityContext.sysctls atomic
core/v1#PodSpec.containers map name
core/v1#PodSpec.ephemeralContainers map name
core/v1#PodSpec.hostAliases map ip
core/v1#PodSpec.imagePullSecrets map name
core/v1#PodSpec.initContainers map name
core/v1#PodSpec.readinessGates atomic
core/v1#PodSpec.resourceClaims map name
core/v1#PodSpec.schedulingGates map name
core/v1#PodSpec.tolerations atomic
core/v1#PodSpec.topologySpreadConstraints map topologyKey,whenUnsatisfiable
core/v1#PodSpec.volumes map name
core/v1#PodStatus.conditions map type
core/v1#PodStatus.containerStatuses atomic
core/v1#PodStatus.ephemeralContainerStatuses atomic
core/v1#PodStatus.hostIPs atomic
core/v1#PodStatus.initContainerStatuses atomic
core/v1#PodStatus.podIPs map ip
core/v1#PodStatus.resourceClaimStatuses map name
core/v1#ProjectedVolumeSource.sources atomic
core/v1#RBDPersistentVolumeSource.monitors atomic
core/v1#RBDVolumeSource.monitors atomic
core/v1#ReplicationControllerStatus.conditions map type
core/v1#ResourceQuotaSpec.scopes atomic
core/v1#ResourceRequirements.claims map name
core/v1#ResourceStatus.resources map resourceID
core/v1#ScopeSelector.matchExpressions atomic
core/v1#ScopedResourceSelectorRequirement.values atomic
core/v1#SecretProjection.items atomic
core/v1#SecretVolumeSource.items atomic
core/v1#ServiceAccount.imagePullSecrets atomic
core/v1#ServiceAccount.secrets map name
core/v1#ServiceSpec.clusterIPs atomic
core/v1#ServiceSpec.externalIPs atomic
core/v1#ServiceSpec.ipFamilies atomic
core/v1#ServiceSpec.loadBalancerSourceRanges atomic
core/v1#ServiceSpec.ports map port,protocol
core/v1#ServiceStatus.conditions map type
core/v1#TopologySelectorLabelRequirement.values atomic
core/v1#TopologySelectorTerm.matchLabelExpressions atomic
core/v1#TopologySpreadConstraint.matchLabelKeys atomic
discovery/v1#Endpoint.addresses set
discovery/v1#EndpointHints.forZones atomic
discovery/v1#EndpointSlice.endpoints atomic
discovery/v1#EndpointSlice.ports atomic
flowcontrol/v1#FlowSchemaSpec.rules atomic
flowcontrol/v1#FlowSchemaStatus.conditions map type
flowcontrol/v1#NonResourcePolicyRule.nonResourceURLs set
flowcontrol/v1#NonResourcePolicyRule.verbs set
flowcontrol/v1#PolicyRulesWithSubjects.nonResourceRules atomic
flowcontrol/v1#PolicyRulesWithSubjects.resourceRules atomic
flowcontrol/v1#PolicyRulesWithSubjects.subjects atomic
flowcontrol/v1#PriorityLevelConfigurationStatus.conditions map type
flowcontrol/v1#ResourcePolicyRule.apiGroups set
flowcontrol/v1#ResourcePolicyRule.namespaces set
flowcontrol/v1#ResourcePolicyRule.resources set
flowcontrol/v1#ResourcePolicyRule.verbs set
meta/v1#APIGroup.serverAddressByClientCIDRs atomic
meta/v1#APIGroup.versions atomic
meta/v1#APIGroupList.groups atomic
meta/v1#APIResource.categories atomic
meta/v1#APIResource.shortNames atomic
meta/v1#APIResourceList.resources atomic
meta/v1#APIVersions.serverAddressByClientCIDRs atomic
meta/v1#APIVersions.versions atomic
meta/v1#ApplyOptions.dryRun atomic
meta/v1#CreateOptions.dryRun atomic
meta/v1#DeleteOptions.dryRun atomic
meta/v1#FieldSelectorRequirement.values atomic
meta/v1#LabelSelector.matchExpressions atomic
meta/v1#LabelSelectorRequirement.values atomic
meta/v1#ObjectMeta.finalizers set
meta/v1#ObjectMeta.managedFields atomic
meta/v1#ObjectMeta.ownerReferences map uid
meta/v1#PatchOptions.dryRun atomic
meta/v1#RootPaths.paths atomic
meta/v1#StatusDetails.causes atomic
meta/v1#Table.columnDefinitions atomic
meta/v1#Table.rows atomic
meta/v1#TableRow.cells atomic
meta/v1#TableRow.conditions atomic
meta/v1#UpdateOptions.dryRun atomic
networking/v1#HTTPIngressRuleValue.paths atomic
networking/v1#IPBlock.except atomic
networking/v1#IngressLoadBalancerIngress.ports atomic
networking/v1#IngressLoadBalancerStatus.ingress atomic
networking/v1#IngressSpec.rules atomic
networking/v1#IngressSpec.tls atomic
networking/v1#IngressTLS.hosts atomic
networking/v1#NetworkPolicyEgressRule.ports atomic
networking/v1#NetworkPolicyEgressRule.to atomic
networking/v1#NetworkPolicyIngressRule.from atomic
networking/v1#NetworkPolicyIngressRule.ports atomic
networking/v1#NetworkPolicySpec.egress atomic
networking/v1#NetworkPolicySpec.ingress atomic
networking/v1#NetworkPolicySpec.policyTypes atomic
node/v1#Scheduling.tolerations atomic
policy/v1#PodDisruptionBudgetStatus.conditions map type
rbac/v1#AggregationRule.clusterRoleSelectors atomic
rbac/v1#ClusterRole.rules atomic
rbac/v1#ClusterRoleBinding.subjects atomic
rbac/v1#PolicyRule.apiGroups atomic
rbac/v1#PolicyRule.nonResourceURLs atomic
rbac/v1#PolicyRule.resourceNames atomic
rbac/v1#PolicyRule.resources atomic
rbac/v1#PolicyRule.verbs atomic
rbac/v1#Role.rules atomic
rbac/v1#RoleBinding.subjects atomic
storage/v1#CSIDriverSpec.tokenRequests atomic
storage/v1#CSIDriverSpec.volumeLifecycleModes set
storage/v1#CSINodeDriver.topologyKeys atomic
storage/v1#CSINodeSpec.drivers map name
storage/v1#StorageClass.allowedTopologies atomic
storage/v1#StorageClass.mountOptions atomic
`;

/** A list field's server-side-apply markers. */
export interface ListTypeInfo {
  type: 'atomic' | 'set' | 'map';
  mapKeys?: string[];
}

/** LIST_TYPE_LINES parsed: key `<module>#<Type>.<field>`. */
export const LIST_TYPES: ReadonlyMap<string, ListTypeInfo> = new Map(
  LIST_TYPE_LINES.trim()
    .split('\n')
    .map((line): [string, ListTypeInfo] => {
      const [key, type, keys] = line.trim().split(/\s+/);
      const info: ListTypeInfo = { type: type as ListTypeInfo['type'] };
      if (keys) info.mapKeys = keys.split(',');
      return [key!, info];
    }),
);

/**
 * Fields of embedded Go structs that the kubernetes-types declarations drop: the
 * admission rules inline `Rule` (`resources`, `scope`), which upstream's OpenAPI lists
 * on RuleWithOperations and NamedRuleWithOperations.
 *
 * @see https://github.com/kubernetes/api/blob/release-1.32/admissionregistration/v1/types.go (Rule)
 */
const RULE_FIELDS: Readonly<Record<string, { [k: string]: unknown }>> = {
  resources: {
    description:
      "Resources is a list of resources this rule applies to.\n\nFor example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.\n\nIf wildcard is present, the validation rule will ensure resources do not overlap with each other.\n\nDepending on the enclosing object, subresources might not be allowed. Required.",
    items: { type: 'string' },
    type: 'array',
    'x-kubernetes-list-type': 'atomic',
  },
  scope: {
    description:
      'scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*" "Cluster" means that only cluster-scoped resources will match this rule. Namespace API objects are cluster-scoped. "Namespaced" means that only namespaced resources will match this rule. "*" means that there are no scope restrictions. Subresources match the scope of their parent resource. Default is "*".',
    type: 'string',
  },
};

/** `<module>#<Type>` → properties to add (see RULE_FIELDS). */
export const EMBEDDED_FIELDS: ReadonlyMap<string, Readonly<Record<string, { [k: string]: unknown }>>> = new Map(
  ['v1', 'v1beta1', 'v1alpha1'].flatMap((v) => [
    [`admissionregistration/${v}#RuleWithOperations`, RULE_FIELDS],
    [`admissionregistration/${v}#NamedRuleWithOperations`, RULE_FIELDS],
  ]),
);
