/**
 * ServiceAccount admission: pods run as `default` unless they name a ServiceAccount,
 * which must exist; unless automounting is off (pod or ServiceAccount), the pod gets
 * the projected `kube-api-access-<suffix>` volume (bound token, cluster CA, namespace)
 * mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in every init and
 * regular container. Mirror pods may not use accounts or secrets; accounts annotated
 * `kubernetes.io/enforce-mountable-secrets` limit the secrets their pods may use.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/serviceaccount/admission.go
 */
import type { Container, PodSpec, ServiceAccount, Volume } from 'kubernetes-types/core/v1.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import { generateNameSuffix } from '../../registry/meta.js';
import type { ObjectLookup } from '../../../api/resource.js';
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
  /** lookups of a missing `default` ServiceAccount (created by the controller right after its namespace); upstream 10 */
  retries?: number;
  /** ms between them, plus up to as much again at random (upstream 100–200) */
  retryDelayMs?: number;
}

/** Upstream EnforceMountableSecretsAnnotation: pods may then only use the secrets the account lists. */
export const ENFORCE_MOUNTABLE_SECRETS = 'kubernetes.io/enforce-mountable-secrets';

type SecretRef = { name?: string } | undefined;

/** Every secret name a pod references, as upstream VisitPodSecretNames (all containers). */
function podSecretNames(spec: PodSpec): string[] {
  const out: string[] = [];
  const add = (n: string | undefined): void => {
    if (n) out.push(n);
  };
  for (const s of spec.imagePullSecrets ?? []) add(s.name);
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...((spec.ephemeralContainers ?? []) as Container[])]) {
    for (const e of c.envFrom ?? []) add(e.secretRef?.name);
    for (const e of c.env ?? []) add(e.valueFrom?.secretKeyRef?.name);
  }
  for (const v of spec.volumes ?? []) {
    add(v.secret?.secretName);
    add(v.azureFile?.secretName);
    for (const r of [
      v.cephfs?.secretRef,
      v.cinder?.secretRef,
      v.flexVolume?.secretRef,
      v.rbd?.secretRef,
      v.scaleIO?.secretRef,
      v.iscsi?.secretRef,
      v.storageos?.secretRef,
      v.csi?.nodePublishSecretRef,
    ] as SecretRef[])
      add(r?.name);
    for (const src of v.projected?.sources ?? []) add(src.secret?.name);
  }
  return out;
}

/** Mounts the token volume in every container that has nothing at the mount path (adds the volume unless one named kube-api-access-* exists). */
function mountToken(spec: PodSpec): void {
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith('kube-api-access-'));
  const volName = existing?.name ?? `kube-api-access-${generateNameSuffix()}`;
  let needed = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((c.volumeMounts ?? []).some((m) => m.mountPath === SA_MOUNT_PATH)) continue;
    c.volumeMounts = [...(c.volumeMounts ?? []), { name: volName, readOnly: true, mountPath: SA_MOUNT_PATH }];
    needed = true;
  }
  if (needed && !existing) spec.volumes = [...(spec.volumes ?? []), tokenVolume(volName)];
}

/** Go strconv.ParseBool's true spellings. */
const isTrue = (v: string | undefined): boolean => v !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);

/** Upstream limitSecretReferences: the first secret the pod uses that the account does not list, as upstream words it. */
function secretReferenceError(sa: ServiceAccount, spec: PodSpec, ephemeralOnly: boolean): string | undefined {
  const mountable = new Set((sa.secrets ?? []).map((s) => s.name));
  const who = sa.metadata?.name ?? '';
  const notAllowed = `is not allowed because service account ${who} does not reference that secret`;
  const containers = (kind: string, list: readonly Container[] | undefined): string | undefined => {
    for (const c of list ?? []) {
      for (const e of c.env ?? []) {
        const n = e.valueFrom?.secretKeyRef?.name;
        if (n !== undefined && !mountable.has(n)) return `${kind} ${c.name} with envVar ${e.name} referencing secret.secretName="${n}" ${notAllowed}`;
      }
      for (const e of c.envFrom ?? []) {
        const n = e.secretRef?.name;
        if (n !== undefined && !mountable.has(n)) return `${kind} ${c.name} with envFrom referencing secret.secretName="${n}" ${notAllowed}`;
      }
    }
    return undefined;
  };
  if (ephemeralOnly) return containers('ephemeral container', spec.ephemeralContainers as Container[] | undefined);
  for (const v of spec.volumes ?? []) {
    const n = v.secret?.secretName;
    if (n !== undefined && !mountable.has(n)) return `volume with secret.secretName="${n}" ${notAllowed}`;
  }
  const err = containers('init container', spec.initContainers) ?? containers('container', spec.containers);
  if (err) return err;
  const pull = new Set((sa.imagePullSecrets ?? []).map((s) => s.name));
  for (const [i, r] of (spec.imagePullSecrets ?? []).entries()) {
    if (!pull.has(r.name)) return `imagePullSecrets[${i}].name="${r.name ?? ''}" is not allowed because service account ${who} does not reference that imagePullSecret`;
  }
  return undefined;
}

/**
 * The ServiceAccount admission plugin. Mutating (pod CREATE): defaults the account to
 * `default`, requires it to exist, mounts the token volume unless automounting is off
 * (pod over account), copies the account's imagePullSecrets. Validating: mirror pods may
 * not use accounts, secrets or token projections; with the account annotated
 * `kubernetes.io/enforce-mountable-secrets: "true"`, pods (and ephemeral containers added
 * later) may only use the secrets it lists.
 * @throws StatusError 403 with upstream's messages
 */
export function serviceAccount(o: ServiceAccountOptions = {}): AdmissionPlugin {
  const retries = o.retries ?? 10;
  const delay = o.retryDelayMs ?? 100;
  const gr = { group: '', resource: 'pods' };
  /** upstream getServiceAccount: the default account is retried, it comes right after its namespace */
  const getServiceAccount = async (lookup: ObjectLookup, ns: string, name: string): Promise<ServiceAccount> => {
    const attempts = name === DEFAULT_SA ? retries : 1;
    for (let i = 0; i < attempts; i++) {
      if (i) await new Promise((r) => setTimeout(r, delay + Math.floor(Math.random() * delay)));
      const sa = (await lookup.get(SA_R, ns, name)) as ServiceAccount | undefined;
      if (sa) return sa;
    }
    throw new Error(`serviceaccount ${JSON.stringify(name)} not found`);
  };
  const lookupOrForbid = async (lookup: ObjectLookup, ns: string, podName: string, name: string): Promise<ServiceAccount> => {
    try {
      return await getServiceAccount(lookup, ns, name);
    } catch (e) {
      throw newForbidden(gr, podName, `error looking up service account ${ns}/${name}: ${(e as Error).message}`);
    }
  };
  const ignored = (a: Parameters<NonNullable<AdmissionPlugin['admit']>>[0]): boolean =>
    a.resource.group !== '' || a.resource.resource !== 'pods' || (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') || !a.object;
  return {
    name: 'ServiceAccount',
    async admit(a, lookup) {
      if (ignored(a) || a.operation !== 'CREATE') return;
      const pod = a.object!;
      if (pod.metadata.annotations?.[MIRROR] !== undefined) return; // left alone; validate restricts it
      const spec = (pod.spec ??= {}) as PodSpec;
      if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SA;
      spec.serviceAccount = spec.serviceAccountName;
      const sa = await lookupOrForbid(lookup, a.namespace, pod.metadata.name ?? '', spec.serviceAccountName);
      const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
      if (automount) mountToken(spec);
      if (!spec.imagePullSecrets?.length && sa.imagePullSecrets?.length) spec.imagePullSecrets = sa.imagePullSecrets.map((s) => ({ ...s }));
    },
    async validate(a, lookup) {
      if (ignored(a)) return;
      const pod = a.object!;
      const spec = (pod.spec ?? {}) as PodSpec;
      const podName = pod.metadata.name ?? a.name;
      const ephemeral = a.operation === 'UPDATE' && a.subresource === 'ephemeralcontainers';
      if (!ephemeral && (a.operation !== 'CREATE' || a.subresource !== '')) return;
      if (!ephemeral && pod.metadata.annotations?.[MIRROR] !== undefined) {
        if (spec.serviceAccountName) throw newForbidden(gr, podName, 'a mirror pod may not reference service accounts');
        if (podSecretNames(spec).length) throw newForbidden(gr, podName, 'a mirror pod may not reference secrets');
        if (spec.volumes?.some((v) => v.projected?.sources?.some((s) => s.serviceAccountToken))) {
          throw newForbidden(gr, podName, 'a mirror pod may not use ServiceAccountToken volume projections');
        }
        return;
      }
      if (!spec.serviceAccountName) throw newForbidden(gr, podName, `no service account specified for pod ${a.namespace}/${podName}`);
      const sa = await lookupOrForbid(lookup, a.namespace, podName, spec.serviceAccountName);
      if (!isTrue(sa.metadata?.annotations?.[ENFORCE_MOUNTABLE_SECRETS])) return;
      const err = secretReferenceError(sa, spec, ephemeral);
      if (err) throw newForbidden(gr, podName, err);
    },
  };
}
