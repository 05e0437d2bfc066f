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

export function serviceAccount(o: ServiceAccountOptions = {}): AdmissionPlugin {
  const retries = o.retries ?? 20;
  const delay = o.retryDelayMs ?? 50;
  return {
    name: 'ServiceAccount',
    async admit(a, lookup) {
      if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource || !a.object) return;
      const pod = a.object;
      const spec = (pod.spec ??= {}) as PodSpec;
      if (pod.metadata.annotations?.[MIRROR]) return; // mirror pods are checked in validate
      if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SA;
      spec.serviceAccount = spec.serviceAccountName;
      let sa: ServiceAccount | undefined;
      for (let i = 0; ; i++) {
        sa = (await lookup.get(SA_R, a.namespace, spec.serviceAccountName)) as ServiceAccount | undefined;
        if (sa || i >= retries || spec.serviceAccountName !== DEFAULT_SA) break;
        await new Promise((r) => setTimeout(r, delay));
      }
      if (!sa) {
        throw newForbidden(
          { group: '', resource: 'pods' },
          pod.metadata.name ?? '',
          `error looking up service account ${a.namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`,
        );
      }
      const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
      if (!automount) return;
      const all: Container[] = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
      // a pod that mounts something at the path already gets no token volume there
      const existing = (spec.volumes ?? []).find((v) => v.name.startsWith('kube-api-access-') && v.projected);
      let volName = existing?.name;
      if (!volName) {
        volName = `kube-api-access-${generateNameSuffix()}`;
        spec.volumes = [...(spec.volumes ?? []), tokenVolume(volName)];
      }
      for (const c of all) {
        if ((c.volumeMounts ?? []).some((m) => m.mountPath === SA_MOUNT_PATH)) continue;
        c.volumeMounts = [...(c.volumeMounts ?? []), { name: volName, readOnly: true, mountPath: SA_MOUNT_PATH }];
      }
    },
    async validate(a) {
      if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource || !a.object) return;
      const pod = a.object;
      if (!pod.metadata.annotations?.[MIRROR]) return;
      const spec = (pod.spec ?? {}) as PodSpec;
      const gr = { group: '', resource: 'pods' };
      if (spec.serviceAccountName && spec.serviceAccountName !== '') {
        throw newForbidden(gr, pod.metadata.name ?? '', 'a mirror pod may not reference service accounts');
      }
      for (const v of spec.volumes ?? []) {
        if (v.secret || v.projected?.sources?.some((s) => s.secret || s.serviceAccountToken)) {
          throw newForbidden(gr, pod.metadata.name ?? '', `volume ${v.name} has secret or service account token projection, which is not allowed for mirror pods`);
        }
      }
    },
  };
}
