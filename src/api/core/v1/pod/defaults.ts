/**
 * Pod defaulting, as upstream's generated SetObjectDefaults_Pod (pkg/apis/core/v1): every
 * field the API server fills in before storing, so `kubectl get -o yaml` and
 * `kubectl describe` show what they show against a real cluster.
 *
 * Resource quantities are rounded up to milli precision and re-serialised canonically
 * ("0.1" → "100m"), which is what upstream's decode + SetDefaults_ResourceList produce.
 * Malformed quantities are left untouched for validation to report.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/defaults.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/zz_generated.defaults.go
 */
import { formatQuantity, parseQuantityJSON, QUANTITY_ERR_FORMAT, QuantityParseError, roundUpQuantity, type Quantity } from '../../../../apimachinery/quantity.js';
import type { Container, EphemeralContainer, HTTPGetAction, Lifecycle, ObjectFieldSelector, Pod, PodSpec, Probe, ResourceList, ResourceRequirements, Volume } from './types.js';

/** Upstream DefaultTerminationGracePeriodSeconds (seconds). */
const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
/** Upstream DefaultSchedulerName. */
const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
/** Upstream TerminationMessagePathDefault. */
const TERMINATION_MESSAGE_PATH_DEFAULT = '/dev/termination-log';
/** 0644, the default mode of secret/configMap/downwardAPI/projected volumes. */
const DEFAULT_VOLUME_MODE = 420;

/**
 * Apply all upstream defaults to a Pod in place (SetObjectDefaults_Pod). Idempotent; safe to
 * run on create, update and on objects read from storage.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/defaults.go
 */
export function setPodDefaults(pod: Pod): void {
  const spec = (pod.spec ??= { containers: [] } as PodSpec);
  spec.containers ??= [];
  defaultPodLevel(spec);
  defaultPodSpec(spec);
  for (const v of spec.volumes ?? []) defaultVolume(v);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.containers) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
  if (spec.overhead) roundResourceList(spec.overhead);
  syncDeprecatedAliases(pod);
  const status = pod.status;
  if (status) {
    for (const list of [status.initContainerStatuses, status.containerStatuses, status.ephemeralContainerStatuses]) {
      for (const cs of list ?? []) {
        if (cs.allocatedResources) roundResourceList(cs.allocatedResources as ResourceList);
        if (cs.resources) {
          if (cs.resources.limits) roundResourceList(cs.resources.limits);
          if (cs.resources.requests) roundResourceList(cs.resources.requests);
        }
      }
    }
  }
}

/**
 * What upstream's v1 ⇄ internal conversion does to alias fields, so stored and served
 * objects look the same: `serviceAccount` mirrors `serviceAccountName` (the latter wins);
 * `podIP`/`hostIP` mirror `podIPs[0]`/`hostIPs[0]` (the singular wins when they differ).
 */
function syncDeprecatedAliases(pod: Pod): void {
  const spec = pod.spec!;
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
  const st = pod.status;
  if (!st) return;
  if (st.podIP && (!st.podIPs?.length || st.podIPs[0]!.ip !== st.podIP)) st.podIPs = [{ ip: st.podIP }];
  if (st.podIPs?.length) st.podIP = st.podIPs[0]!.ip;
  if (st.hostIP && (!st.hostIPs?.length || st.hostIPs[0]!.ip !== st.hostIP)) st.hostIPs = [{ ip: st.hostIP }];
  if (st.hostIPs?.length) st.hostIP = st.hostIPs[0]!.ip;
}

/** SetDefaults_Pod: requests from limits, enableServiceLinks, host-network host ports. */
function defaultPodLevel(spec: PodSpec): void {
  for (const c of spec.containers) defaultRequestsFromLimits(c.resources);
  for (const c of spec.initContainers ?? []) defaultRequestsFromLimits(c.resources);
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (spec.hostNetwork) {
    for (const list of [spec.containers, spec.initContainers ?? []]) {
      for (const c of list) for (const p of c.ports ?? []) if (!p.hostPort) p.hostPort = p.containerPort;
    }
  }
}

function defaultRequestsFromLimits(res: ResourceRequirements | undefined): void {
  if (!res?.limits) return;
  const requests = (res.requests ??= {});
  for (const name in res.limits) if (!(name in requests)) requests[name] = res.limits[name]!;
}

/** SetDefaults_PodSpec. */
function defaultPodSpec(spec: PodSpec): void {
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  spec.securityContext ??= {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    spec.terminationGracePeriodSeconds = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  }
  if (!spec.schedulerName) spec.schedulerName = DEFAULT_SCHEDULER_NAME;
}

const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
] as const;

/** SetDefaults_Volume and the per-source defaulters. */
function defaultVolume(v: Volume): void {
  const src = v as unknown as Record<string, unknown>;
  if (!VOLUME_SOURCES.some((k) => src[k] !== undefined && src[k] !== null)) v.emptyDir = {};
  if (v.hostPath && (v.hostPath.type === undefined || v.hostPath.type === null)) v.hostPath.type = '';
  if (v.secret && v.secret.defaultMode === undefined) v.secret.defaultMode = DEFAULT_VOLUME_MODE;
  if (v.configMap && v.configMap.defaultMode === undefined) v.configMap.defaultMode = DEFAULT_VOLUME_MODE;
  if (v.downwardAPI) {
    if (v.downwardAPI.defaultMode === undefined) v.downwardAPI.defaultMode = DEFAULT_VOLUME_MODE;
    for (const item of v.downwardAPI.items ?? []) if (item.fieldRef) defaultFieldRef(item.fieldRef);
  }
  if (v.projected) {
    if (v.projected.defaultMode === undefined) v.projected.defaultMode = DEFAULT_VOLUME_MODE;
    for (const s of v.projected.sources ?? []) {
      for (const item of s.downwardAPI?.items ?? []) if (item.fieldRef) defaultFieldRef(item.fieldRef);
      if (s.serviceAccountToken && s.serviceAccountToken.expirationSeconds === undefined) s.serviceAccountToken.expirationSeconds = 3600;
    }
  }
  if (v.iscsi && !v.iscsi.iscsiInterface) v.iscsi.iscsiInterface = 'default';
  if (v.rbd) {
    if (!v.rbd.pool) v.rbd.pool = 'rbd';
    if (!v.rbd.user) v.rbd.user = 'admin';
    if (!v.rbd.keyring) v.rbd.keyring = '/etc/ceph/keyring';
  }
  if (v.azureDisk) {
    v.azureDisk.cachingMode ??= 'ReadWrite';
    v.azureDisk.fsType ??= 'ext4';
    v.azureDisk.readOnly ??= false;
    v.azureDisk.kind ??= 'Shared';
  }
  if (v.scaleIO) {
    if (!v.scaleIO.storageMode) v.scaleIO.storageMode = 'ThinProvisioned';
    if (!v.scaleIO.fsType) v.scaleIO.fsType = 'xfs';
  }
  const tmpl = v.ephemeral?.volumeClaimTemplate;
  if (tmpl?.spec) {
    tmpl.spec.volumeMode ??= 'Filesystem';
    if (tmpl.spec.resources?.limits) roundResourceList(tmpl.spec.resources.limits);
    if (tmpl.spec.resources?.requests) roundResourceList(tmpl.spec.resources.requests);
  }
  // v.image: ImageVolume is alpha in v1.32 (feature gate off), so no pullPolicy defaulting.
}

function defaultFieldRef(f: ObjectFieldSelector): void {
  if (!f.apiVersion) f.apiVersion = 'v1';
}

/** SetDefaults_Container plus ports, env, resources, probes and lifecycle defaulters. */
function defaultContainer(c: Container | EphemeralContainer): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  if (!c.terminationMessagePath) c.terminationMessagePath = TERMINATION_MESSAGE_PATH_DEFAULT;
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  for (const p of c.ports ?? []) if (!p.protocol) p.protocol = 'TCP';
  for (const e of c.env ?? []) if (e.valueFrom?.fieldRef) defaultFieldRef(e.valueFrom.fieldRef);
  // a struct (not a pointer) upstream, so always serialised: `resources: {}`
  c.resources ??= {};
  if (c.resources.limits) roundResourceList(c.resources.limits);
  if (c.resources.requests) roundResourceList(c.resources.requests);
  if (c.livenessProbe) defaultProbe(c.livenessProbe);
  if (c.readinessProbe) defaultProbe(c.readinessProbe);
  if (c.startupProbe) defaultProbe(c.startupProbe);
  if (c.lifecycle) defaultLifecycle(c.lifecycle);
}

function defaultProbe(p: Probe): void {
  if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  if (!p.periodSeconds) p.periodSeconds = 10;
  if (!p.successThreshold) p.successThreshold = 1;
  if (!p.failureThreshold) p.failureThreshold = 3;
  if (p.httpGet) defaultHTTPGet(p.httpGet);
  if (p.grpc && (p.grpc.service === undefined || p.grpc.service === null)) p.grpc.service = '';
}

function defaultLifecycle(l: Lifecycle): void {
  if (l.postStart?.httpGet) defaultHTTPGet(l.postStart.httpGet);
  if (l.preStop?.httpGet) defaultHTTPGet(l.preStop.httpGet);
}

function defaultHTTPGet(h: HTTPGetAction): void {
  if (!h.path) h.path = '/';
  if (!h.scheme) h.scheme = 'HTTP';
}

/**
 * SetDefaults_ResourceList: every quantity rounded up to milli precision, serialised
 * canonically. Malformed values are left as they are.
 */
export function roundResourceList(list: ResourceList): void {
  for (const name in list) {
    const raw = list[name] as unknown;
    if (typeof raw !== 'string' && typeof raw !== 'number') continue;
    let q: Quantity;
    try {
      q = parseQuantityJSON(raw);
    } catch {
      continue;
    }
    const [rounded] = roundUpQuantity(q, -3);
    list[name] = q.scale >= -3 ? formatQuantity(q) : formatQuantity(rounded);
  }
}

// Docker reference grammar (github.com/distribution/reference), enough to find the tag.
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domainRe = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const pathComponent = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const nameRe = `(?:${domainRe}/)?${pathComponent}(?:/${pathComponent})*`;
const referenceRe = new RegExp(`^(${nameRe})(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`);

/**
 * The tag of an image reference as upstream parsers.ParseImageName sees it: the explicit
 * tag; "latest" when there is neither tag nor digest; "" for digest-only or unparsable
 * references (which then default to IfNotPresent).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/util/parsers/parsers.go
 */
export function imageTag(image: string): string {
  const m = referenceRe.exec(image);
  if (!m || m[1]!.length > 255) return '';
  const tag = m[2] ?? '';
  const digest = m[3] ?? '';
  if (!tag && !digest) return 'latest';
  return tag;
}

/**
 * The first malformed quantity anywhere in a pod (resources, overhead, emptyDir sizeLimit,
 * resourceFieldRef divisors, ephemeral volume claims, container status resources).
 * Upstream rejects these while decoding the request, before defaulting and validation,
 * with 400 BadRequest `Pod in version "v1" cannot be handled as a Pod: <message>`; the API
 * server's decode step can call this to do the same. Returns undefined if all parse.
 */
export function findInvalidPodQuantity(pod: Pod): QuantityParseError | undefined {
  const check = (v: unknown): QuantityParseError | undefined => {
    if (v === undefined || v === null) return undefined;
    // a non-string JSON value reaches upstream's ParseQuantity as its raw text: a format error
    if (typeof v !== 'string' && typeof v !== 'number') return new QuantityParseError(QUANTITY_ERR_FORMAT, 'format', JSON.stringify(v));
    try {
      parseQuantityJSON(v);
      return undefined;
    } catch (e) {
      if (e instanceof QuantityParseError) return e;
      throw e;
    }
  };
  const lists: (ResourceList | undefined)[] = [];
  const singles: unknown[] = [];
  const spec = pod.spec;
  const containers = [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])];
  for (const c of containers) {
    lists.push(c.resources?.limits, c.resources?.requests);
    for (const e of c.env ?? []) singles.push(e.valueFrom?.resourceFieldRef?.divisor);
  }
  lists.push(spec?.overhead, spec?.resources?.limits, spec?.resources?.requests);
  for (const v of spec?.volumes ?? []) {
    singles.push(v.emptyDir?.sizeLimit);
    for (const item of v.downwardAPI?.items ?? []) singles.push(item.resourceFieldRef?.divisor);
    for (const src of v.projected?.sources ?? []) for (const item of src.downwardAPI?.items ?? []) singles.push(item.resourceFieldRef?.divisor);
    const r = v.ephemeral?.volumeClaimTemplate?.spec?.resources;
    lists.push(r?.limits, r?.requests);
  }
  const st = pod.status;
  for (const cs of [...(st?.initContainerStatuses ?? []), ...(st?.containerStatuses ?? []), ...(st?.ephemeralContainerStatuses ?? [])]) {
    lists.push(cs.allocatedResources as ResourceList | undefined, cs.resources?.limits, cs.resources?.requests);
  }
  for (const l of lists)
    for (const k in l ?? {}) {
      const e = check(l![k]);
      if (e) return e;
    }
  for (const v of singles) {
    const e = check(v);
    if (e) return e;
  }
  return undefined;
}
