/** ResourceDefinitions for the OpenAPI tests: a few built-in kinds and one custom kind. */
import type { ResourceDefinition } from '../../../api/resource.js';

const status = { prepareForUpdate(): void {} };

export function testDefs(): ResourceDefinition[] {
  return [
    { group: '', version: 'v1', kind: 'Pod', listKind: 'PodList', resource: 'pods', singular: 'pod', namespaced: true, status, schemaRef: 'core/v1#Pod' },
    { group: '', version: 'v1', kind: 'ConfigMap', listKind: 'ConfigMapList', resource: 'configmaps', singular: 'configmap', namespaced: true },
    { group: '', version: 'v1', kind: 'Namespace', listKind: 'NamespaceList', resource: 'namespaces', singular: 'namespace', namespaced: false, status },
    { group: 'apps', version: 'v1', kind: 'Deployment', listKind: 'DeploymentList', resource: 'deployments', singular: 'deployment', namespaced: true, status },
    {
      group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview', listKind: 'SelfSubjectAccessReviewList',
      resource: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview', namespaced: false, verbs: ['create'],
    },
    { group: 'example.com', version: 'v1', kind: 'Widget', listKind: 'WidgetList', resource: 'widgets', singular: 'widget', namespaced: true },
  ];
}
