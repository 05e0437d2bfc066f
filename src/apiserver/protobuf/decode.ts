/**
 * Decoding of `application/vnd.kubernetes.protobuf` request bodies into the JSON shape
 * the JSON API uses. The body is the 4 bytes `k8s\0` and a `runtime.Unknown` whose
 * `typeMeta` names the kind and whose `raw` holds the typed message of k8s.io/api's
 * generated.proto. The messages k8ts understands are declared in ./proto/*.proto
 * (upstream's field numbers, JSON field names), parsed with protobufjs on first use.
 *
 * The JSON form follows what upstream's Go JSON encoding gives for the same struct:
 * unset fields are omitted; zero scalars are omitted unless the field is a Go pointer or
 * has no `omitempty` (`(k8s.emit_zero)`); embedded structs are flattened
 * (`(k8s.inline)`); Quantity → string, IntOrString → number|string, Time → RFC 3339
 * (seconds), MicroTime → RFC 3339 with microseconds, bytes → base64, RawExtension and
 * FieldsV1 → their JSON, ExtraValue → string array; a zero Time (empty message) is omitted.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/runtime/serializer/protobuf/protobuf.go
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#protobuf-encoding
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as PB from 'protobufjs';
import { newBadRequest, StatusError } from '../../apimachinery/errors.js';

/**
 * protobufjs, required on first use: importing it costs ~100 ms, which the API server's
 * cold start must not pay (most clusters never see a protobuf body).
 */
let pb: typeof PB | undefined;
function protobufjs(): typeof PB {
  return (pb ??= createRequire(import.meta.url)('protobufjs') as typeof PB);
}

/** The 4-byte prefix of every Kubernetes protobuf body: `k8s\0`. */
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const PROTO_FILES = [
  'runtime',
  'resource',
  'intstr',
  'meta-v1',
  'core-v1',
  'apps-v1',
  'batch-v1',
  'authorization-v1',
  'authentication-v1',
  'rbac-v1',
  'policy-v1',
  'scheduling-v1',
  'networking-v1',
  'autoscaling-v1',
  'certificates-v1',
];

/**
 * apiVersion + kind → message name, for the kinds k8ts decodes: every kind a
 * `kubectl create <generator>` (1.32+) or `kubectl auth` command sends, the
 * CertificateSigningRequest `kubectl certificate approve|deny` PUTs, plus Pod, Binding and
 * Eviction, which client-go based components send as protobuf.
 */
const KINDS: Record<string, string> = {
  'v1/Namespace': 'k8s.io.api.core.v1.Namespace',
  'v1/ConfigMap': 'k8s.io.api.core.v1.ConfigMap',
  'v1/Secret': 'k8s.io.api.core.v1.Secret',
  'v1/Service': 'k8s.io.api.core.v1.Service',
  'v1/ServiceAccount': 'k8s.io.api.core.v1.ServiceAccount',
  'v1/ResourceQuota': 'k8s.io.api.core.v1.ResourceQuota',
  'v1/Pod': 'k8s.io.api.core.v1.Pod',
  'v1/Binding': 'k8s.io.api.core.v1.Binding',
  'apps/v1/Deployment': 'k8s.io.api.apps.v1.Deployment',
  'batch/v1/Job': 'k8s.io.api.batch.v1.Job',
  'batch/v1/CronJob': 'k8s.io.api.batch.v1.CronJob',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'k8s.io.api.authorization.v1.SelfSubjectRulesReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'k8s.io.api.authentication.v1.SelfSubjectReview',
  'authentication.k8s.io/v1/TokenRequest': 'k8s.io.api.authentication.v1.TokenRequest',
  'rbac.authorization.k8s.io/v1/Role': 'k8s.io.api.rbac.v1.Role',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'k8s.io.api.rbac.v1.RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'k8s.io.api.rbac.v1.ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'k8s.io.api.rbac.v1.ClusterRoleBinding',
  'policy/v1/PodDisruptionBudget': 'k8s.io.api.policy.v1.PodDisruptionBudget',
  'policy/v1/Eviction': 'k8s.io.api.policy.v1.Eviction',
  'policy/v1beta1/Eviction': 'k8s.io.api.policy.v1.Eviction',
  'scheduling.k8s.io/v1/PriorityClass': 'k8s.io.api.scheduling.v1.PriorityClass',
  'networking.k8s.io/v1/Ingress': 'k8s.io.api.networking.v1.Ingress',
  'autoscaling/v1/HorizontalPodAutoscaler': 'k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler',
  'certificates.k8s.io/v1/CertificateSigningRequest': 'k8s.io.api.certificates.v1.CertificateSigningRequest',
};

/**
 * Kinds every group version registers (upstream metav1.AddToGroupVersion): client-go
 * encodes them with the client's group version, e.g. `v1` DeleteOptions for a pod DELETE.
 */
const META_KINDS: Record<string, string> = {
  DeleteOptions: 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
};

/** The apiVersion/kind pairs {@link decodeProtobufObject} accepts (`apps/v1/Deployment` …; DeleteOptions in any version). */
export const PROTOBUF_KINDS: readonly string[] = Object.keys(KINDS);

/** Where upstream's apiserver scheme lives; part of its "no kind is registered" message. */
const SCHEME_NAME = 'pkg/api/legacyscheme/scheme.go:30';

/** How a field turns into JSON (computed once per message type). */
interface FieldPlan {
  name: string;
  mode: 'scalar' | 'message' | 'repeated-scalar' | 'repeated-message' | 'map-scalar' | 'map-message';
  type?: PB.Type;
  bytes: boolean;
  emitZero: boolean;
  inline: boolean;
}

interface Loaded {
  root: PB.Root;
  unknown: PB.Type;
  kinds: Map<string, PB.Type>;
}

let loaded: Loaded | undefined;
const plans = new WeakMap<PB.Type, FieldPlan[]>();

/** Reads one .proto beside this module, or (for a bundle in dist/) in the source tree. */
function readProto(name: string): string {
  const urls = [new URL(`./proto/${name}.proto`, import.meta.url), new URL(`../src/apiserver/protobuf/proto/${name}.proto`, import.meta.url)];
  for (const u of urls) {
    try {
      return readFileSync(u, 'utf8');
    } catch {
      // next candidate
    }
  }
  throw new Error(`protobuf: proto/${name}.proto not found`);
}

/** Loads protobufjs and parses the .proto files on first use (~100-200 ms, once). */
function load(): Loaded {
  if (loaded) return loaded;
  const protobuf = protobufjs();
  const root = new protobuf.Root();
  for (const f of PROTO_FILES) protobuf.parse(readProto(f), root, { keepCase: true });
  root.resolveAll();
  const kinds = new Map<string, PB.Type>();
  for (const [k, name] of Object.entries(KINDS)) kinds.set(k, root.lookupType(name));
  for (const [k, name] of Object.entries(META_KINDS)) kinds.set(k, root.lookupType(name));
  loaded = { root, unknown: root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown'), kinds };
  return loaded;
}

function planOf(type: PB.Type): FieldPlan[] {
  let p = plans.get(type);
  if (p) return p;
  const protobuf = protobufjs();
  p = type.fieldsArray.map((f): FieldPlan => {
    const sub = f.resolvedType instanceof protobuf.Type ? f.resolvedType : undefined;
    const isMap = f instanceof protobuf.MapField;
    const mode: FieldPlan['mode'] = isMap ? (sub ? 'map-message' : 'map-scalar') : f.repeated ? (sub ? 'repeated-message' : 'repeated-scalar') : sub ? 'message' : 'scalar';
    return {
      name: f.name,
      mode,
      type: sub,
      bytes: f.type === 'bytes',
      emitZero: f.options?.['(k8s.emit_zero)'] === true,
      inline: f.options?.['(k8s.inline)'] === true,
    };
  });
  plans.set(type, p);
  return p;
}

type Msg = Record<string, unknown>;
const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

function scalar(v: unknown, bytes: boolean): unknown {
  if (bytes) return Buffer.from(v as Uint8Array).toString('base64');
  if (typeof v === 'object' && v !== null) return (v as { toNumber(): number }).toNumber(); // int64 as Long
  return v;
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

/** Go's time.RFC3339 (`2006-01-02T15:04:05Z`) or, with `micro`, RFC3339Micro, in UTC. */
function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString(); // 2006-01-02T15:04:05.000Z
  const base = iso.slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/** JSON for a message value; undefined = omit (zero Time, empty RawExtension). */
function messageJSON(type: PB.Type, m: Msg): unknown {
  switch (type.fullName) {
    case '.k8s.io.apimachinery.pkg.api.resource.Quantity':
      return hasOwn(m, 'string') ? m.string : '0';
    case '.k8s.io.apimachinery.pkg.util.intstr.IntOrString': {
      const t = hasOwn(m, 'type') ? Number(scalar(m.type, false)) : 0;
      return t === 1 ? (hasOwn(m, 'strVal') ? m.strVal : '') : hasOwn(m, 'intVal') ? m.intVal : 0;
    }
    case '.k8s.io.apimachinery.pkg.apis.meta.v1.Time':
    case '.k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': {
      if (!hasOwn(m, 'seconds') && !hasOwn(m, 'nanos')) return undefined; // zero time: null in Go's JSON
      const s = hasOwn(m, 'seconds') ? Number(scalar(m.seconds, false)) : 0;
      const n = hasOwn(m, 'nanos') ? Number(m.nanos) : 0;
      return formatTime(s, n, type.name === 'MicroTime');
    }
    case '.k8s.io.apimachinery.pkg.runtime.RawExtension':
      return rawJSON(hasOwn(m, 'raw') ? (m.raw as Uint8Array) : undefined);
    case '.k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1':
      return rawJSON(hasOwn(m, 'Raw') ? (m.Raw as Uint8Array) : undefined) ?? {};
    case '.k8s.io.api.authentication.v1.ExtraValue':
    case '.k8s.io.api.certificates.v1.ExtraValue':
      return (m.items as string[] | undefined) ?? [];
    default:
      return toJSON(type, m);
  }
}

/** An embedded object: JSON text, or a nested `k8s\0` protobuf object. */
function rawJSON(raw: Uint8Array | undefined): unknown {
  if (!raw || raw.length === 0) return undefined;
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.length);
  if (buf.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    const d = decodeProtobufObject(buf);
    return d.object;
  }
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (e) {
    throw new Error(`invalid embedded JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A decoded protobufjs message → the JSON object upstream's JSON encoding would give. */
function toJSON(type: PB.Type, m: Msg): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of planOf(type)) {
    const v = m[f.name];
    switch (f.mode) {
      case 'scalar': {
        if (!hasOwn(m, f.name)) break;
        const s = scalar(v, f.bytes);
        if (!f.emitZero && (isZero(s) || (f.bytes && s === ''))) break;
        out[f.name] = s;
        break;
      }
      case 'message': {
        if (!hasOwn(m, f.name) || v == null) break;
        const j = messageJSON(f.type!, v as Msg);
        if (j === undefined) break;
        if (f.inline) Object.assign(out, j);
        else out[f.name] = j;
        break;
      }
      case 'repeated-scalar': {
        const a = v as unknown[];
        if (a.length) out[f.name] = a.map((x) => scalar(x, f.bytes));
        break;
      }
      case 'repeated-message': {
        const a = v as Msg[];
        if (a.length) out[f.name] = a.map((x) => messageJSON(f.type!, x) ?? null);
        break;
      }
      case 'map-scalar': {
        const o = v as Record<string, unknown>;
        const keys = Object.keys(o);
        if (!keys.length) break;
        const r: Record<string, unknown> = {};
        for (const k of keys) r[k] = scalar(o[k], f.bytes);
        out[f.name] = r;
        break;
      }
      case 'map-message': {
        const o = v as Record<string, Msg>;
        const keys = Object.keys(o);
        if (!keys.length) break;
        const r: Record<string, unknown> = {};
        for (const k of keys) r[k] = messageJSON(f.type!, o[k]!) ?? null;
        out[f.name] = r;
        break;
      }
    }
  }
  return out;
}

/**
 * Loads protobufjs and the message definitions now rather than on the first protobuf
 * request (e.g. from an idle callback after the server reports ready).
 */
export function preloadProtobuf(): void {
  load();
}

/** The parsed message definitions (protobufjs Root), e.g. for tests that encode bodies. */
export function protobufRoot(): PB.Root {
  return load().root;
}

/** Upstream's summary of undecodable data in error messages (first bytes, quoted). */
function summarize(data: Buffer, max = 30): string {
  const s = data.subarray(0, max).toString('latin1');
  return data.length > max ? `${JSON.stringify(s)}...` : JSON.stringify(s);
}

/** The result of {@link decodeProtobufObject}. */
export interface DecodedObject {
  /** `apps/v1`, `v1` (from the envelope's typeMeta) */
  apiVersion: string;
  kind: string;
  /** the object as the JSON API would receive it, `apiVersion` and `kind` first */
  object: Record<string, unknown>;
}

/**
 * Decodes a Kubernetes protobuf request body into its JSON form.
 *
 * @param body the raw request body: `k8s\0` + runtime.Unknown
 * @returns apiVersion, kind and the object (with apiVersion and kind set)
 * @throws StatusError 400 BadRequest: missing prefix (`provided data does not appear to be a
 *   protobuf message, expected prefix [107 56 115 0]`), an undecodable envelope or object,
 *   a missing kind, or a kind k8ts does not decode (`no kind "X" is registered for version "g/v" …`)
 */
export function decodeProtobufObject(body: Buffer): DecodedObject {
  if (body.length < 4 || !body.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    throw newBadRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const { unknown, kinds } = load();
  let env: Msg;
  try {
    env = unknown.decode(body.subarray(4)) as unknown as Msg;
  } catch (e) {
    throw newBadRequest(`the object provided is unrecognized: ${protoError(e)} (${summarize(body)})`);
  }
  const tm = (env.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const apiVersion = tm.apiVersion ?? '';
  const kind = tm.kind ?? '';
  if (!kind) throw newBadRequest(`Object 'Kind' is missing in '${summarize(body)}'`);
  const type = kinds.get(`${apiVersion}/${kind}`) ?? (apiVersion && hasOwn(META_KINDS, kind) ? kinds.get(kind) : undefined);
  if (!type) throw newBadRequest(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "${SCHEME_NAME}"`);
  const raw = (env.raw as Uint8Array | undefined) ?? new Uint8Array(0);
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  try {
    const msg = type.decode(raw) as unknown as Msg;
    return { apiVersion, kind, object: { apiVersion, kind, ...toJSON(type, msg) } };
  } catch (e) {
    if (e instanceof StatusError) throw e;
    throw newBadRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${protoError(e)}`);
  }
}

/** protobufjs errors in Go's wording where one exists. */
function protoError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (/index out of range/.test(msg)) return 'unexpected EOF';
  return msg;
}
