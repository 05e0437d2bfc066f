/**
 * ServiceAccount admission: pods run as `default` unless they name a ServiceAccount,
 * which must exist; unless automounting is off (pod or ServiceAccount), the pod gets
 * the projected `kube-api-access-<suffix>` volume (bound token, cluster CA, namespace)
 * mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in every container.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/serviceaccount/admission.go
 */
import type { Container, PodSpec, ServiceAccount, Volume } from 'kubernetes-types/core/v1.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import { generateNameSuffix } from '../../registry/meta.js';
import type { AdmissionPlugin } from '../types.js';

export const DEFAULT_SA = 'default';
export const SA_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** Upstream's token lifetime for the projected volume (1 h + 7 s marks it as kubelet-managed). */
export const PROJECTED_TOKEN_SECONDS = 3607;
const MIRROR = 'kubernetes.io/config.mirror';

const SA_R = { group: '', version: 'v1', resource: 'serviceaccounts' };

/** The projected volume upstream adds (TokenVolumeSource). */
export function tokenVolume(name: string): Volume {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: PROJECTED_TOKEN_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

export interface ServiceAccountOptions {
  /** waits for a missing `default` ServiceAccount (created by the controller right after its namespace) */
  retries?: number;
  retryDelayMs?: number;
}

function referencesSecrets(spec: PodSpec): boolean {
  if (spec.imagePullSecrets?.length) return true;
  for (const v of spec.volumes ?? []) {
    if (v.secret || v.projected?.sources?.some((s) => s.secret) || v.csi?.nodePublishSecretRef) return true;
  }
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if (c.envFrom?.some((e) => e.secretRef)) return true;
    if (c.env?.some((e) => e.valueFrom?.secretKeyRef)) return true;
  }
  return false;
}

/** Mounts the token volume in every container that has nothing at the mount path (adds the volume if one does). */
function mountToken(spec: PodSpec): void {
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith('kube-api-access-') && v.projected);
  const volName = existing?.name ?? `kube-api-access-${generateNameSuffix()}`;
  let needed = false;
  const all: Container[] = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  for (const c of all) {
    if ((c.volumeMounts ?? []).some((m) => m.mountPath === SA_MOUNT_PATH)) continue;
    c.volumeMounts = [...(c.volumeMounts ?? []), { name: volName, readOnly: true, mountPath: SA_MOUNT_PATH }];
    needed = true;
  }
  if (needed && !existing) spec.volumes = [...(spec.volumes ?? []), tokenVolume(volName)];
}

export function serviceAccount(o: ServiceAccountOptions = {}): AdmissionPlugin {
  const retries = o.retries ?? 10;
  const delay = o.retryDelayMs ?? 100;
  return {
    name: 'ServiceAccount',
    async admit(a, lookup) {
      if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource || !a.object) return;
      const pod = a.object;
      const spec = (pod.spec ??= {}) as PodSpec;
      const gr = { group: '', resource: 'pods' };
      const podName = pod.metadata.name ?? '';
      if (pod.metadata.annotations?.[MIRROR] !== undefined) {
        // mirror pods are left alone, and may not reference service accounts or secrets
        if (spec.serviceAccountName) throw newForbidden(gr, podName, 'a mirror pod may not reference service accounts');
        if (referencesSecrets(spec)) throw newForbidden(gr, podName, 'a mirror pod may not reference secrets');
        return;
      }
      if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SA;
      spec.serviceAccount = spec.serviceAccountName;
      let sa: ServiceAccount | undefined;
      // the default account is created by a controller right after its namespace: retry a little
      const attempts = spec.serviceAccountName === DEFAULT_SA ? retries : 1;
      for (let i = 0; i < attempts; i++) {
        if (i) await new Promise((r) => setTimeout(r, delay));
        sa = (await lookup.get(SA_R, a.namespace, spec.serviceAccountName)) as ServiceAccount | undefined;
        if (sa) break;
      }
      if (!sa) {
        throw newForbidden(gr, podName, `service account ${a.namespace}/${spec.serviceAccountName} was not found, retry after the service account is created`);
      }
      const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
      if (automount) mountToken(spec);
      if (!spec.imagePullSecrets?.length && sa.imagePullSecrets?.length) spec.imagePullSecrets = sa.imagePullSecrets.map((s) => ({ ...s }));
    },
  };
}
