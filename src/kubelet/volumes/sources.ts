/**
 * What configMap, secret, downwardAPI and projected volumes contain: the file
 * payload computed from the API objects, with upstream's errors for missing objects
 * and keys.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/configmap/configmap.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/secret/secret.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/projected/projected.go
 */
import type { ConfigMap, DownwardAPIVolumeFile, KeyToPath, Pod, Secret, Volume, VolumeProjection } from 'kubernetes-types/core/v1.js';
import { fieldRefValue, resourceFieldRefValue, type NodeAllocatable, type RuntimeFieldValues } from '../env/downward.js';
import type { FileProjection } from './atomic-writer.js';
import type { TokenRequestSpec } from '../token/manager.js';

export interface SourceDeps {
  getConfigMap(ns: string, name: string): Promise<ConfigMap | undefined>;
  getSecret(ns: string, name: string): Promise<Secret | undefined>;
  /** a bound ServiceAccount token for a projected serviceAccountToken source (TokenRequest) */
  getServiceAccountToken?(req: TokenRequestSpec): Promise<string>;
  runtimeValues: RuntimeFieldValues;
  alloc: NodeAllocatable;
}

const DEFAULT_MODE = 0o644;
type Payload = Map<string, FileProjection>;

function addItems(out: Payload, data: Map<string, Buffer>, items: readonly KeyToPath[] | undefined, mode: number, optional: boolean, missingKey: (k: string) => string): void {
  if (!items?.length) {
    for (const [k, v] of data) out.set(k, { data: v, mode });
    return;
  }
  for (const it of items) {
    const v = data.get(it.key);
    if (v === undefined) {
      if (optional) continue;
      throw new Error(missingKey(it.key));
    }
    out.set(it.path, { data: v, mode: it.mode ?? mode });
  }
}

function configMapData(cm: ConfigMap): Map<string, Buffer> {
  const m = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(cm.data ?? {})) m.set(k, Buffer.from(v, 'utf8'));
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) m.set(k, Buffer.from(v, 'base64'));
  return m;
}

function secretData(s: Secret): Map<string, Buffer> {
  const m = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(s.data ?? {})) m.set(k, Buffer.from(v, 'base64'));
  for (const [k, v] of Object.entries(s.stringData ?? {})) m.set(k, Buffer.from(v, 'utf8'));
  return m;
}

async function configMapPayload(out: Payload, pod: Pod, src: { name?: string; items?: readonly KeyToPath[]; optional?: boolean }, mode: number, d: SourceDeps): Promise<void> {
  const cm = await d.getConfigMap(pod.metadata?.namespace ?? '', src.name ?? '');
  if (!cm) {
    if (src.optional) return;
    throw new Error(`configmap ${JSON.stringify(src.name ?? '')} not found`);
  }
  addItems(out, configMapData(cm), src.items, mode, !!src.optional, (k) => `configmap references non-existent config key: ${k}`);
}

async function secretPayload(out: Payload, pod: Pod, src: { name?: string; items?: readonly KeyToPath[]; optional?: boolean }, mode: number, d: SourceDeps): Promise<void> {
  const s = await d.getSecret(pod.metadata?.namespace ?? '', src.name ?? '');
  if (!s) {
    if (src.optional) return;
    throw new Error(`secret ${JSON.stringify(src.name ?? '')} not found`);
  }
  addItems(out, secretData(s), src.items, mode, !!src.optional, (k) => `secret references non-existent secret key: ${k}`);
}

function downwardPayload(out: Payload, pod: Pod, items: readonly DownwardAPIVolumeFile[] | undefined, mode: number, d: SourceDeps): void {
  const first = pod.spec?.containers?.[0]?.name ?? '';
  for (const it of items ?? []) {
    let v = '';
    if (it.fieldRef) v = fieldRefValue(pod, it.fieldRef.fieldPath, d.runtimeValues);
    else if (it.resourceFieldRef) v = resourceFieldRefValue(pod, it.resourceFieldRef, first, d.alloc);
    out.set(it.path, { data: Buffer.from(v, 'utf8'), mode: it.mode ?? mode });
  }
}

/**
 * Upstream FsUserFrom: the effective runAsUser shared by every init and regular
 * container (container securityContext over the pod's), or undefined when one has none
 * or they differ.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/util.go
 */
export function fsUserFrom(pod: Pod): number | undefined {
  let user: number | undefined;
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const u = c.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser;
    if (u === undefined || (user !== undefined && u !== user)) return undefined;
    user = u;
  }
  return user;
}

/** The payload of a projected volume; errors of all sources are aggregated like upstream (`[a, b]`). */
async function projectedPayload(out: Payload, pod: Pod, sources: readonly VolumeProjection[], mode: number, d: SourceDeps): Promise<void> {
  const errs: string[] = [];
  for (const s of sources) {
    try {
      if (s.configMap) await configMapPayload(out, pod, s.configMap, mode, d);
      else if (s.secret) await secretPayload(out, pod, s.secret, mode, d);
      else if (s.downwardAPI) downwardPayload(out, pod, s.downwardAPI.items, mode, d);
      else if (s.serviceAccountToken) {
        if (!d.getServiceAccountToken) throw new Error('cannot request a ServiceAccount token: no token manager');
        const sa = pod.spec?.serviceAccountName || 'default';
        const token = await d.getServiceAccountToken({
          namespace: pod.metadata?.namespace ?? '',
          serviceAccount: sa,
          // an empty audience means the API server's own (it fills them in)
          audiences: s.serviceAccountToken.audience ? [s.serviceAccountToken.audience] : [],
          expirationSeconds: s.serviceAccountToken.expirationSeconds ?? 3600,
          pod: { name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
        });
        // upstream: the volume's defaultMode, but 0600 (owned by the FsUser) when the pod
        // runs as one user or has an fsGroup (SetVolumeOwnership then makes it 0640)
        const fsUser = fsUserFrom(pod);
        const own = fsUser !== undefined || pod.spec?.securityContext?.fsGroup !== undefined;
        out.set(s.serviceAccountToken.path, { data: Buffer.from(token, 'utf8'), mode: own ? 0o600 : mode, fsUser });
      }
    } catch (e) {
      errs.push((e as Error).message);
    }
  }
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
}

/**
 * The files of volume `v`, or undefined for volume types that are plain directories
 * (emptyDir, and types the kubelet does not project).
 * @throws Error with upstream's message (e.g. `configmap "special-config" not found`)
 */
export async function volumePayload(pod: Pod, v: Volume, d: SourceDeps): Promise<Payload | undefined> {
  const out: Payload = new Map();
  if (v.configMap) await configMapPayload(out, pod, v.configMap, v.configMap.defaultMode ?? DEFAULT_MODE, d);
  else if (v.secret) await secretPayload(out, pod, { name: v.secret.secretName, items: v.secret.items, optional: v.secret.optional }, v.secret.defaultMode ?? DEFAULT_MODE, d);
  else if (v.downwardAPI) downwardPayload(out, pod, v.downwardAPI.items, v.downwardAPI.defaultMode ?? DEFAULT_MODE, d);
  else if (v.projected) await projectedPayload(out, pod, v.projected.sources ?? [], v.projected.defaultMode ?? DEFAULT_MODE, d);
  else return undefined;
  return out;
}

/** The upstream plugin directory name of a volume (`kubernetes.io~configmap` …). */
export function pluginName(v: Volume): string {
  if (v.emptyDir) return 'kubernetes.io~empty-dir';
  if (v.configMap) return 'kubernetes.io~configmap';
  if (v.secret) return 'kubernetes.io~secret';
  if (v.downwardAPI) return 'kubernetes.io~downward-api';
  if (v.projected) return 'kubernetes.io~projected';
  if (v.hostPath) return 'kubernetes.io~host-path';
  if (v.persistentVolumeClaim) return 'kubernetes.io~csi';
  if (v.ephemeral) return 'kubernetes.io~csi';
  return 'kubernetes.io~empty-dir';
}
