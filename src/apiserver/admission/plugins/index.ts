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
import { webhookAdmission } from '../webhook/plugin.js';
import { webhookCredentialsFrom } from '../webhook/authentication-info.js';
import type { PluginConfigurations } from '../config-file.js';
import { validatingAdmissionPolicy } from './validating-admission-policy.js';
import { defaultStorageClass, persistentVolumeClaimResize, storageObjectInUseProtection } from './storage.js';

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

/**
 * kube-apiserver v1.32's default-on plugins (every other plugin of
 * {@link ALL_ORDERED_PLUGINS} is off unless `--enable-admission-plugins` names it).
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubeapiserver/options/plugins.go (DefaultOffAdmissionPlugins)
 */
export const DEFAULT_ON_PLUGINS: readonly string[] = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'DefaultStorageClass',
  'PersistentVolumeClaimResize',
  'DefaultTolerationSeconds',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'StorageObjectInUseProtection',
  'Priority',
  'TaintNodesByCondition',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodSecurity',
  'ValidatingAdmissionPolicy',
];

/**
 * What `k8ts server` enables without flags: upstream's default-on plugins plus
 * NodeRestriction, which kubeadm (and k3s) clusters enable through
 * `--enable-admission-plugins=NodeRestriction`.
 */
export const K8TS_DEFAULT_ON_PLUGINS: readonly string[] = [...DEFAULT_ON_PLUGINS, 'NodeRestriction'];

export interface AdmissionOptions {
  /** decides CSR `approve`/`sign` on signers (CertificateApproval, CertificateSigning) */
  authorizer: UnionAuthorizer;
  /** PodSecurity defaults and exemptions */
  podSecurity?: PodSecurityOptions;
  /** `--enable-admission-plugins`: plugins to run besides the default-on ones */
  enable?: readonly string[];
  /** `--disable-admission-plugins`: default-on plugins not to run */
  disable?: readonly string[];
  /** `--admission-control-config-file`: each plugin's configuration (../config-file.ts) */
  configurations?: PluginConfigurations;
}

/** The enabled plugins, plus those that read the API server's stores directly (ResourceQuota writes quota status). */
export interface Admission {
  plugins: AdmissionPlugin[];
  storeConsumers: StoreConsumer[];
}

/**
 * The flag errors kube-apiserver reports at start (upstream AdmissionOptions.Validate), plus
 * one for a plugin k8ts does not implement being enabled: `enable-admission-plugins plugin
 * "X" is unknown`, `disable-admission-plugins plugin "X" is unknown`, `[X Y] in
 * enable-admission-plugins and disable-admission-plugins overlapped`.
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/server/options/admission.go (Validate)
 */
export function validateAdmissionFlags(enable: readonly string[] = [], disable: readonly string[] = []): string[] {
  const errs: string[] = [];
  const known = new Set(ALL_ORDERED_PLUGINS);
  for (const n of enable) {
    if (!known.has(n)) errs.push(`enable-admission-plugins plugin ${JSON.stringify(n)} is unknown`);
    else if (!IMPLEMENTED.has(n)) errs.push(`enable-admission-plugins plugin ${JSON.stringify(n)} is not implemented by k8ts (implemented: ${[...IMPLEMENTED].join(', ')})`);
  }
  for (const n of disable) if (!known.has(n)) errs.push(`disable-admission-plugins plugin ${JSON.stringify(n)} is unknown`);
  const both = [...new Set(enable)].filter((n) => disable.includes(n)).sort();
  if (both.length) errs.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  return errs;
}

/**
 * The names of the plugins that run, in {@link ALL_ORDERED_PLUGINS} order (upstream
 * enabledPluginNames): the defaults and `enable`, without `disable`.
 */
export function enabledPluginNames(enable: readonly string[] = [], disable: readonly string[] = []): string[] {
  const on = new Set([...K8TS_DEFAULT_ON_PLUGINS, ...enable]);
  for (const n of disable) if (!enable.includes(n)) on.delete(n);
  return ALL_ORDERED_PLUGINS.filter((n) => on.has(n));
}

/** Plugins k8ts implements (the others of upstream's list are not run even when on). */
const IMPLEMENTED = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ResourceQuota',
]);

/**
 * The enabled plugins k8ts implements, in {@link ALL_ORDERED_PLUGINS} order: the defaults
 * ({@link K8TS_DEFAULT_ON_PLUGINS}) with `enable` added and `disable` removed.
 * @throws Error with {@link validateAdmissionFlags}' messages for bad flags, or when a plugin is
 *   out of upstream's order or listed twice (a programming error)
 */
export function admissionPlugins(o: AdmissionOptions): Admission {
  const errs = validateAdmissionFlags(o.enable, o.disable);
  if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  const on = new Set(enabledPluginNames(o.enable, o.disable));
  const quota = on.has('ResourceQuota') ? resourceQuota() : undefined;
  const webhooks =
    on.has('MutatingAdmissionWebhook') || on.has('ValidatingAdmissionWebhook')
      ? webhookAdmission({
          mutating: webhookCredentialsFrom(o.configurations?.get('MutatingAdmissionWebhook')),
          validating: webhookCredentialsFrom(o.configurations?.get('ValidatingAdmissionWebhook')),
        })
      : undefined;
  const vap = on.has('ValidatingAdmissionPolicy') ? validatingAdmissionPolicy(o.authorizer) : undefined;
  const all: AdmissionPlugin[] = [
    namespaceLifecycle,
    limitRanger,
    serviceAccount(),
    nodeRestriction,
    podSecurity(o.podSecurity),
    priority,
    defaultTolerationSeconds(),
    defaultStorageClass,
    storageObjectInUseProtection,
    persistentVolumeClaimResize,
    runtimeClass,
    ...certificatePlugins(o.authorizer),
    ...(webhooks ? [webhooks.mutating] : []),
    ...(vap ? [vap] : []),
    ...(webhooks ? [webhooks.validating] : []),
    ...(quota ? [quota] : []),
  ];
  const plugins = all.filter((p) => on.has(p.name));
  checkOrder(plugins.map((p) => p.name));
  const storeConsumers: StoreConsumer[] = [];
  if (webhooks) storeConsumers.push({ attach: (api) => webhooks.attach(api) });
  if (quota) storeConsumers.push({ attach: (api) => quota.attach(api) });
  if (vap) storeConsumers.push({ attach: (api) => vap.attach(api) });
  return { plugins, storeConsumers };
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
