/**
 * The admission plugins the API server runs, in one place and in upstream's order
 * (kube-apiserver's AllOrderedPlugins): every mutating phase in this order, then every
 * validating phase in this order. Each plugin appears once.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubeapiserver/options/plugins.go
 * @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/
 */
import type { StoreConsumer } from '../../apiserver.js';
import type { UnionAuthorizer } from '../../authz/types.js';
import type { AdmissionPlugin } from '../types.js';
import { certificatePlugins } from './certificates.js';
import { defaultTolerationSeconds } from './default-toleration-seconds.js';
import { limitRanger } from './limit-ranger.js';
import { namespaceLifecycle } from './namespace-lifecycle.js';
import { nodeRestriction } from './node-restriction.js';
import { podSecurity, type PodSecurityOptions } from './pod-security.js';
import { priority } from './priority.js';
import { resourceQuota } from './resource-quota.js';
import { runtimeClass } from './runtime-class.js';
import { serviceAccount } from './service-account.js';

/**
 * Upstream v1.32's AllOrderedPlugins: the order in which enabled plugins run. k8ts
 * implements a subset; {@link admissionPlugins} returns them in this order.
 */
export const ALL_ORDERED_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  // webhooks, policies, quota and deny go last
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

export interface AdmissionOptions {
  /** decides CSR `approve`/`sign` on signers (CertificateApproval, CertificateSigning) */
  authorizer: UnionAuthorizer;
  /** PodSecurity defaults and exemptions */
  podSecurity?: PodSecurityOptions;
}

/** The enabled plugins, plus those that read the API server's stores directly (ResourceQuota writes quota status). */
export interface Admission {
  plugins: AdmissionPlugin[];
  storeConsumers: StoreConsumer[];
}

/**
 * kube-apiserver's default-on plugins that k8ts implements, in {@link ALL_ORDERED_PLUGINS} order.
 * @throws Error when a plugin is out of upstream's order or listed twice (a programming error)
 */
export function admissionPlugins(o: AdmissionOptions): Admission {
  const quota = resourceQuota();
  const plugins: AdmissionPlugin[] = [
    namespaceLifecycle,
    limitRanger,
    serviceAccount(),
    nodeRestriction,
    podSecurity(o.podSecurity),
    priority,
    defaultTolerationSeconds(),
    runtimeClass,
    ...certificatePlugins(o.authorizer),
    quota,
  ];
  checkOrder(plugins.map((p) => p.name));
  return { plugins, storeConsumers: [{ attach: (api) => quota.attach(api) }] };
}

/**
 * @throws Error naming the first plugin that is unknown, repeated or out of upstream's order
 */
export function checkOrder(names: readonly string[]): void {
  let last = -1;
  const seen = new Set<string>();
  for (const n of names) {
    const i = ALL_ORDERED_PLUGINS.indexOf(n);
    if (i < 0) throw new Error(`admission plugin ${n} is not one of upstream's plugins`);
    if (seen.has(n)) throw new Error(`admission plugin ${n} is listed twice`);
    if (i < last) throw new Error(`admission plugin ${n} runs after ${ALL_ORDERED_PLUGINS[last]}, against upstream's order`);
    seen.add(n);
    last = i;
  }
}
