/**
 * Static pods from manifest files: decoding, defaults and the identity the kubelet
 * gives them (upstream pkg/kubelet/config common.go `tryDecodeSinglePod` +
 * `applyDefaults`).
 *
 * A file holds one Pod (YAML or JSON). It gets the API server's defaults, then the
 * static-pod ones: a UID that is an MD5 hash of the node, the file's path and the
 * defaulted pod (so an unchanged file keeps its UID across kubelet restarts and any
 * edit makes a new one), the name `<name>-<node>`, namespace `default` when unset,
 * `spec.nodeName`, the annotations `kubernetes.io/config.hash` (= the UID) and
 * `kubernetes.io/config.source: file`, and a toleration of every NoExecute taint.
 * The result is validated as the API server validates a pod on create.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/config/common.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/types/pod_update.go
 */
import { createHash } from 'node:crypto';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseAllDocuments } from 'yaml';
import { aggregateFieldErrors } from '../../apimachinery/field-errors.js';
import { setPodDefaults } from '../../api/core/v1/pod/defaults.js';
import type { Pod as APIPod } from '../../api/core/v1/pod/types.js';
import { validatePodCreate } from '../../api/core/v1/pod/validation.js';

/** The hash of a static pod's manifest, also its UID (upstream ConfigHashAnnotationKey). */
export const CONFIG_HASH_ANNOTATION = 'kubernetes.io/config.hash';
/** Where a pod came from: `file`, `http` or `api` (upstream ConfigSourceAnnotationKey). */
export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';
/** When the kubelet first saw the pod, RFC 3339 with nanoseconds (upstream ConfigFirstSeenAnnotationKey). */
export const CONFIG_SEEN_ANNOTATION = 'kubernetes.io/config.seen';
/** On a mirror pod: the hash of the static pod it mirrors (upstream ConfigMirrorAnnotationKey). */
export const CONFIG_MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
/** The file source's name in {@link CONFIG_SOURCE_ANNOTATION} (upstream FileSource). */
export const FILE_SOURCE = 'file';

/** Is `pod` one the kubelet runs from a file (not from the API server)? (upstream IsStaticPod) */
export function isStaticPod(pod: Pod): boolean {
  const s = pod.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return s !== undefined && s !== 'api';
}

/** Is `pod` an API object mirroring a static pod? (upstream IsMirrorPod) */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;
}

/** `<namespace>/<name>`: how static and mirror pods find each other (upstream GetPodFullName uses name_namespace). */
export function podFullName(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** JSON with object keys sorted, so the hash does not depend on the order of keys in the file. */
function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Decodes one manifest file into the static pod the kubelet runs.
 * @param data the file's contents (YAML or JSON, one document)
 * @param file the file's absolute path (part of the UID hash)
 * @param nodeName this kubelet's node name
 * @throws Error with upstream's texts: `invalid pod: …` for a kind other than Pod or a pod failing validation; the YAML parser's message for a malformed file
 */
export function decodeStaticPod(data: string, file: string, nodeName: string): Pod {
  const docs = parseAllDocuments(data).filter((d) => d.contents !== null);
  if (docs.length !== 1) throw new Error(docs.length === 0 ? 'invalid pod: the file holds no object' : 'invalid pod: the file holds more than one object');
  const doc = docs[0]!;
  if (doc.errors.length) throw new Error(doc.errors[0]!.message);
  const obj = doc.toJS() as Record<string, unknown> | null;
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('invalid pod: not an object');
  if (obj.apiVersion !== 'v1' || obj.kind !== 'Pod') {
    throw new Error(`invalid pod: the file holds apiVersion ${JSON.stringify(obj.apiVersion ?? '')}, kind ${JSON.stringify(obj.kind ?? '')}; want v1 Pod`);
  }
  delete obj.status;
  const pod = obj as unknown as Pod;
  pod.metadata ??= {};
  pod.spec ??= { containers: [] };
  setPodDefaults(pod as APIPod);
  applyStaticPodDefaults(pod, file, nodeName);
  const errs = validatePodCreate(pod as APIPod);
  if (errs.length) throw new Error(`invalid pod: ${aggregateFieldErrors(errs)}`);
  return pod;
}

/**
 * The static-pod defaults (upstream applyDefaults with isFile): UID, name, namespace,
 * nodeName, hash and source annotations, the NoExecute toleration, phase Pending.
 * @param where the pod's origin within its source (a file's path), part of the UID hash
 * @param source the config source named in `kubernetes.io/config.source` (default `file`)
 */
export function applyStaticPodDefaults(pod: Pod, where: string, nodeName: string, source = FILE_SOURCE): void {
  const m: { -readonly [K in keyof NonNullable<Pod['metadata']>]: NonNullable<Pod['metadata']>[K] } = (pod.metadata ??= {});
  if (!m.uid) {
    const h = createHash('md5');
    h.update(`host:${nodeName}`);
    h.update(`${source}:${where}`);
    h.update(canonicalJSON(pod));
    m.uid = h.digest('hex');
  }
  m.name = `${m.name ?? ''}-${nodeName.toLowerCase()}`;
  m.namespace ||= 'default';
  const spec = pod.spec!;
  spec.nodeName = nodeName;
  m.annotations = { ...m.annotations, [CONFIG_HASH_ANNOTATION]: m.uid, [CONFIG_SOURCE_ANNOTATION]: source };
  // tolerate every NoExecute taint so node problems never evict a static pod
  const tol = { operator: 'Exists', effect: 'NoExecute' };
  const tolerations = (spec.tolerations ??= []);
  const same = tolerations.findIndex((t) => !t.key && t.operator === 'Exists' && t.effect === 'NoExecute');
  if (same >= 0) tolerations[same] = tol;
  else tolerations.push(tol);
  (pod as { status?: Pod['status'] }).status = { phase: 'Pending' };
}
