/**
 * Pod volume validation: names, exactly one source per volume, per-source rules
 * (emptyDir, hostPath, secret, configMap, downwardAPI, projected, persistentVolumeClaim,
 * nfs, csi, ephemeral, image, and the required fields of the legacy in-tree sources).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidateVolumes)
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { duplicate, type FieldError, forbidden, invalid, notSupported, type Path, required, tooLong } from '../../../../apimachinery/field-errors.js';
import { formatQuantity } from '../../../../apimachinery/quantity.js';
import { isDNS1123Subdomain, nameIsDNSSubdomain, validateAnnotations, validateLabels } from '../../../../apimachinery/validation.js';
import {
  isAbs,
  parseForValidation,
  validateDNS1123Label,
  validateFileMode,
  validateLocalDescendingPath,
  validateLocalNonReservedPath,
  validatePathNoBacksteps,
  validateQualifiedName,
} from './validation-common.js';
import type { DownwardAPIVolumeFile, KeyToPath, ObjectFieldSelector, ProjectedVolumeSource, ResourceFieldSelector, Volume } from './types.js';

/** Volume name → the volume, for mount/device checks. */
export type VolumeMap = Map<string, Volume>;

/**
 * Validate spec.volumes; returns the valid volumes by name (invalid ones are left out, as
 * upstream does, so mounts of them report `Not found`).
 */
export function validateVolumes(volumes: Volume[] | undefined, podMeta: ObjectMeta | undefined, p: Path): [VolumeMap, FieldError[]] {
  const errs: FieldError[] = [];
  const vols: VolumeMap = new Map();
  const created = new Set<string>();
  if (podMeta?.name) for (const v of volumes ?? []) if (v.ephemeral) created.add(`${podMeta.name}-${v.name}`);
  (volumes ?? []).forEach((v, i) => {
    const ip = p.index(i);
    const np = ip.child('name');
    const el = validateVolumeSource(v, ip, podMeta);
    if (!v.name) el.push(required(np, ''));
    else el.push(...validateDNS1123Label(v.name, np));
    if (vols.has(v.name)) el.push(duplicate(np, v.name));
    if (el.length === 0) vols.set(v.name, v);
    else errs.push(...el);
    if (v.persistentVolumeClaim && created.has(v.persistentVolumeClaim.claimName)) {
      errs.push(
        invalid(ip.child('persistentVolumeClaim').child('claimName'), v.persistentVolumeClaim.claimName, 'must not reference a PVC that gets created for an ephemeral volume'),
      );
    }
  });
  return [vols, errs];
}

// upstream's check order, with the (sometimes odd) path each source is reported under
const SOURCE_ORDER: [string, string][] = [
  ['emptyDir', 'emptyDir'],
  ['hostPath', 'hostPath'],
  ['gitRepo', 'gitRepo'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['secret', 'secret'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['persistentVolumeClaim', 'persistentVolumeClaim'],
  ['rbd', 'rbd'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'],
  ['downwardAPI', 'downwarAPI'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['configMap', 'configMap'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected'],
  ['scaleIO', 'scaleIO'],
  ['csi', 'csi'],
  ['ephemeral', 'ephemeral'],
  ['image', 'image'],
];

/** Upstream supportedHostPathTypes (sorted as it lists them). */
export const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

function validateVolumeSource(v: Volume, p: Path, podMeta: ObjectMeta | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const src = v as unknown as Record<string, Record<string, unknown> | undefined | null>;
  let n = 0;
  for (const [key, reportAs] of SOURCE_ORDER) {
    const s = src[key];
    if (s === undefined || s === null) continue;
    if (key === 'emptyDir') {
      n++;
      const sl = v.emptyDir?.sizeLimit;
      if (sl !== undefined && sl !== null) {
        const q = parseForValidation(sl, p.child('emptyDir').child('sizeLimit'), errs);
        if (q && q.mantissa < 0n) errs.push(forbidden(p.child('emptyDir').child('sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
      }
      continue;
    }
    if (n > 0) {
      errs.push(forbidden(p.child(reportAs), 'may not specify more than 1 volume type'));
      continue;
    }
    n++;
    errs.push(...validateOneSource(key, v, p, podMeta));
  }
  if (n === 0) errs.push(required(p, 'must specify a volume type'));
  return errs;
}

function requireFields(s: Record<string, unknown>, p: Path, fields: string[]): FieldError[] {
  return fields.filter((f) => !s[f] || (Array.isArray(s[f]) && (s[f] as unknown[]).length === 0)).map((f) => required(p.child(f), ''));
}

function validateOneSource(key: string, v: Volume, p: Path, podMeta: ObjectMeta | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const s = (v as unknown as Record<string, Record<string, unknown>>)[key]!;
  switch (key) {
    case 'hostPath': {
      const hp = p.child('hostPath');
      if (!v.hostPath!.path) return [required(hp.child('path'), '')];
      errs.push(...validatePathNoBacksteps(v.hostPath!.path, hp.child('path')));
      const t = v.hostPath!.type;
      if (t !== undefined && t !== null && !HOST_PATH_TYPES.includes(t)) errs.push(notSupported(hp.child('type'), t, HOST_PATH_TYPES));
      return errs;
    }
    case 'gitRepo':
      errs.push(...requireFields(s, p.child('gitRepo'), ['repository']));
      errs.push(...validateLocalDescendingPath(v.gitRepo!.directory ?? '', p.child('gitRepo').child('directory')));
      return errs;
    case 'gcePersistentDisk':
      // upstream reports this source under "persistentDisk"
      errs.push(...requireFields(s, p.child('persistentDisk'), ['pdName']));
      if ((v.gcePersistentDisk!.partition ?? 0) < 0 || (v.gcePersistentDisk!.partition ?? 0) > 255) {
        errs.push(invalid(p.child('persistentDisk').child('partition'), v.gcePersistentDisk!.partition, 'must be between 1 and 255, inclusive'));
      }
      return errs;
    case 'awsElasticBlockStore':
      errs.push(...requireFields(s, p.child('awsElasticBlockStore'), ['volumeID']));
      return errs;
    case 'secret': {
      const sp = p.child('secret');
      if (!v.secret!.secretName) errs.push(required(sp.child('secretName'), ''));
      errs.push(...validateFileMode(v.secret!.defaultMode, sp.child('defaultMode')));
      (v.secret!.items ?? []).forEach((kp, i) => errs.push(...validateKeyToPath(kp, sp.child('items').index(i))));
      return errs;
    }
    case 'configMap': {
      const cp = p.child('configMap');
      if (!v.configMap!.name) errs.push(required(cp.child('name'), ''));
      errs.push(...validateFileMode(v.configMap!.defaultMode, cp.child('defaultMode')));
      (v.configMap!.items ?? []).forEach((kp, i) => errs.push(...validateKeyToPath(kp, cp.child('items').index(i))));
      return errs;
    }
    case 'nfs': {
      const np = p.child('nfs');
      errs.push(...requireFields(s, np, ['server', 'path']));
      if (!isAbs(v.nfs!.path ?? '')) errs.push(invalid(np.child('path'), v.nfs!.path ?? '', 'must be an absolute path'));
      return errs;
    }
    case 'iscsi': {
      const ip = p.child('iscsi');
      errs.push(...requireFields(s, ip, ['targetPortal', 'iqn']));
      const lun = v.iscsi!.lun ?? 0;
      if (lun < 0 || lun > 255) errs.push(invalid(ip.child('lun'), lun, 'must be between 0 and 255, inclusive'));
      if ((v.iscsi!.chapAuthDiscovery || v.iscsi!.chapAuthSession) && !v.iscsi!.secretRef) errs.push(required(ip.child('secretRef'), ''));
      if (v.iscsi!.initiatorName && `${v.name}:${v.iscsi!.targetPortal}`.length > 64) {
        errs.push(invalid(p.child('name'), v.name, 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.'));
      }
      return errs;
    }
    case 'glusterfs':
      return requireFields(s, p.child('glusterfs'), ['endpoints', 'path']);
    case 'flocker': {
      const fp = p.child('flocker');
      const f = v.flocker!;
      if (!f.datasetName && !f.datasetUUID) errs.push(required(fp, 'one of datasetName and datasetUUID is required'));
      if (f.datasetName && f.datasetUUID) errs.push(invalid(fp, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
      if ((f.datasetName ?? '').includes('/')) errs.push(invalid(fp.child('datasetName'), f.datasetName, "must not contain '/'"));
      return errs;
    }
    case 'persistentVolumeClaim':
      return requireFields(s, p.child('persistentVolumeClaim'), ['claimName']);
    case 'rbd':
      return [...requireFields({ monitors: s.monitors }, p.child('rbd'), ['monitors']), ...requireFields(s, p.child('rbd'), ['image'])];
    case 'cinder':
      return requireFields(s, p.child('cinder'), ['volumeID']);
    case 'cephfs':
      // upstream checks under "cephfs" while rejecting a second source under "cephFS"
      return requireFields(s, p.child('cephfs'), ['monitors']);
    case 'quobyte': {
      const qp = p.child('quobyte');
      if (!v.quobyte!.registry) errs.push(required(qp.child('registry'), 'must be a host:port pair or multiple pairs separated by commas'));
      if (!v.quobyte!.volume) errs.push(required(qp.child('volume'), ''));
      return errs;
    }
    case 'downwardAPI': {
      const dp = p.child('downwardAPI');
      errs.push(...validateFileMode(v.downwardAPI!.defaultMode, dp.child('defaultMode')));
      for (const f of v.downwardAPI!.items ?? []) errs.push(...validateDownwardAPIVolumeFile(f, dp));
      return errs;
    }
    case 'fc': {
      const fp = p.child('fc');
      const fc = v.fc!;
      const wwns = fc.targetWWNs ?? [];
      const wwids = fc.wwids ?? [];
      if (wwns.length < 1 && wwids.length < 1) errs.push(required(fp.child('targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
      if (wwns.length && wwids.length) errs.push(invalid(fp.child('targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
      if (wwns.length) {
        if (fc.lun === undefined || fc.lun === null) errs.push(required(fp.child('lun'), 'lun is required if targetWWNs is specified'));
        else if (fc.lun < 0 || fc.lun > 255) errs.push(invalid(fp.child('lun'), fc.lun, 'must be between 0 and 255, inclusive'));
      }
      return errs;
    }
    case 'flexVolume': {
      const fp = p.child('flexVolume');
      errs.push(...requireFields(s, fp, ['driver']));
      for (const k of Object.keys(v.flexVolume!.options ?? {})) {
        const ns = k.includes('/') ? k.slice(0, k.indexOf('/')) : k;
        const norm = '.' + ns.toLowerCase();
        if (norm.endsWith('.kubernetes.io') || norm.endsWith('.k8s.io')) {
          errs.push(invalid(fp.child('options').key(k), k, 'kubernetes.io and k8s.io namespaces are reserved'));
        }
      }
      return errs;
    }
    case 'azureFile':
      return requireFields(s, p.child('azureFile'), ['secretName', 'shareName']);
    case 'vsphereVolume':
      return requireFields(s, p.child('vsphereVolume'), ['volumePath']);
    case 'photonPersistentDisk':
      return requireFields(s, p.child('photonPersistentDisk'), ['pdID']);
    case 'portworxVolume':
      return requireFields(s, p.child('portworxVolume'), ['volumeID']);
    case 'azureDisk': {
      const ap = p.child('azureDisk');
      errs.push(...requireFields(s, ap, ['diskName']));
      if (!v.azureDisk!.diskURI) errs.push(required(ap.child('diskURI'), ''));
      const cm = v.azureDisk!.cachingMode;
      if (cm && !['None', 'ReadOnly', 'ReadWrite'].includes(cm)) errs.push(notSupported(ap.child('cachingMode'), cm, ['None', 'ReadOnly', 'ReadWrite']));
      const kind = v.azureDisk!.kind;
      if (kind && !['Dedicated', 'Managed', 'Shared'].includes(kind)) errs.push(notSupported(ap.child('kind'), kind, ['Dedicated', 'Managed', 'Shared']));
      return errs;
    }
    case 'storageos': {
      const sp = p.child('storageos');
      if (!v.storageos!.volumeName) errs.push(required(sp.child('volumeName'), ''));
      else errs.push(...validateDNS1123Label(v.storageos!.volumeName, sp.child('volumeName')));
      if (v.storageos!.volumeNamespace) errs.push(...validateDNS1123Label(v.storageos!.volumeNamespace, sp.child('volumeNamespace')));
      return errs;
    }
    case 'projected':
      return validateProjected(v.projected!, p.child('projected'));
    case 'scaleIO':
      return requireFields(s, p.child('scaleIO'), ['gateway', 'system', 'volumeName']);
    case 'csi': {
      const cp = p.child('csi');
      const driver = v.csi!.driver ?? '';
      if (!driver) errs.push(required(cp.child('driver'), ''));
      if (driver.length > 63) errs.push(tooLong(cp.child('driver'), '', 63));
      for (const m of isDNS1123Subdomain(driver.toLowerCase())) errs.push(invalid(cp.child('driver'), driver, m));
      const ref = v.csi!.nodePublishSecretRef;
      if (ref) {
        if (!ref.name) errs.push(required(cp.child('nodePublishSecretRef', 'name'), ''));
        else for (const m of nameIsDNSSubdomain(ref.name, false)) errs.push(invalid(cp.child('name'), ref.name, m));
      }
      return errs;
    }
    case 'ephemeral': {
      const ep = p.child('ephemeral');
      const tmpl = v.ephemeral!.volumeClaimTemplate;
      if (!tmpl) return [required(ep.child('volumeClaimTemplate'), '')];
      const tp = ep.child('volumeClaimTemplate');
      errs.push(...validateAnnotations(tmpl.metadata?.annotations, tp.child('metadata').child('annotations')));
      errs.push(...validateLabels(tmpl.metadata?.labels, tp.child('metadata').child('labels')));
      for (const f of Object.keys(tmpl.metadata ?? {})) {
        if (f !== 'labels' && f !== 'annotations') errs.push(forbidden(tp.child('metadata').child(f), 'cannot be set'));
      }
      const spec = tmpl.spec;
      if (!spec?.accessModes?.length) errs.push(required(tp.child('spec').child('accessModes'), 'at least 1 access mode is required'));
      if (!spec?.resources?.requests || !('storage' in spec.resources.requests)) {
        errs.push(required(tp.child('spec').child('resources').key('storage'), ''));
      }
      if (podMeta?.name && v.name) {
        const pvcName = `${podMeta.name}-${v.name}`;
        for (const m of nameIsDNSSubdomain(pvcName, false)) errs.push(invalid(p.child('name'), v.name, `PVC name "${pvcName}": ${m}`));
      }
      return errs;
    }
    case 'image': {
      const ip = p.child('image');
      if (!v.image!.reference) errs.push(required(ip.child('reference'), ''));
      const pp = v.image!.pullPolicy;
      if (pp && !['Always', 'IfNotPresent', 'Never'].includes(pp)) errs.push(notSupported(ip.child('pullPolicy'), pp, ['Always', 'IfNotPresent', 'Never']));
      return errs;
    }
  }
  return errs;
}

function validateKeyToPath(kp: KeyToPath, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!kp.key) errs.push(required(p.child('key'), ''));
  if (!kp.path) errs.push(required(p.child('path'), ''));
  errs.push(...validateLocalNonReservedPath(kp.path ?? '', p.child('path')));
  errs.push(...validateFileMode(kp.mode, p.child('mode')));
  return errs;
}

const VOLUME_DOWNWARD_FIELDS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const RESOURCE_FIELD_EXPRESSIONS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

function validateDownwardAPIVolumeFile(f: DownwardAPIVolumeFile, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!f.path) errs.push(required(p.child('path'), ''));
  errs.push(...validateLocalNonReservedPath(f.path ?? '', p.child('path')));
  if (f.fieldRef) {
    errs.push(...validateObjectFieldSelector(f.fieldRef, VOLUME_DOWNWARD_FIELDS, p.child('fieldRef')));
    if (f.resourceFieldRef) errs.push(invalid(p, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (f.resourceFieldRef) {
    errs.push(...validateContainerResourceFieldSelector(f.resourceFieldRef, p.child('resourceFieldRef'), true));
  } else {
    errs.push(required(p, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...validateFileMode(f.mode, p.child('mode')));
  return errs;
}

/** `metadata.annotations['x']` → ['metadata.annotations', 'x'] (upstream SplitMaybeSubscriptedPath). */
function splitSubscript(path: string): [string, string] | undefined {
  if (!path.endsWith("']")) return undefined;
  const s = path.slice(0, -2);
  const i = s.indexOf("['");
  if (i <= 0) return undefined;
  return [s.slice(0, i), s.slice(i + 2)];
}

const DOWNWARD_LABELS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

/** Upstream validateObjectFieldSelector with ConvertDownwardAPIFieldLabel. */
export function validateObjectFieldSelector(fs: ObjectFieldSelector, expressions: string[], p: Path): FieldError[] {
  if (!fs.apiVersion) return [required(p.child('apiVersion'), '')];
  if (!fs.fieldPath) return [required(p.child('fieldPath'), '')];
  let internal = fs.fieldPath;
  let convErr: string | undefined;
  if (fs.apiVersion !== 'v1') convErr = `unsupported pod version: ${fs.apiVersion}`;
  else {
    const sub = splitSubscript(fs.fieldPath);
    if (sub) {
      if (sub[0] !== 'metadata.annotations' && sub[0] !== 'metadata.labels') convErr = `field label does not support subscript: ${fs.fieldPath}`;
    } else if (fs.fieldPath === 'spec.host') internal = 'spec.nodeName';
    else if (!DOWNWARD_LABELS.has(fs.fieldPath)) convErr = `field label not supported: ${fs.fieldPath}`;
  }
  if (convErr) return [invalid(p.child('fieldPath'), fs.fieldPath, `error converting fieldPath: ${convErr}`)];
  const sub = splitSubscript(internal);
  if (sub) {
    if (sub[0] === 'metadata.annotations') return validateQualifiedName(sub[1].toLowerCase(), p);
    if (sub[0] === 'metadata.labels') return validateQualifiedName(sub[1], p);
    return [invalid(p, sub[0], 'does not support subscript')];
  }
  if (!expressions.includes(internal)) return [notSupported(p.child('fieldPath'), internal, [...expressions].sort())];
  return [];
}

const CPU_DIVISORS = ['1m', '1'];
const BYTE_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

/** Upstream validateContainerResourceFieldSelector + validateContainerResourceDivisor. */
export function validateContainerResourceFieldSelector(fs: ResourceFieldSelector, p: Path, volume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (volume && !fs.containerName) errs.push(required(p.child('containerName'), ''));
  else if (!fs.resource) errs.push(required(p.child('resource'), ''));
  else if (!RESOURCE_FIELD_EXPRESSIONS.includes(fs.resource) && !fs.resource.startsWith('requests.hugepages-') && !fs.resource.startsWith('limits.hugepages-')) {
    errs.push(notSupported(p.child('resource'), fs.resource, RESOURCE_FIELD_EXPRESSIONS));
  }
  if (fs.divisor !== undefined && fs.divisor !== null) {
    const q = parseForValidation(fs.divisor, p.child('divisor'), errs);
    if (q && q.mantissa !== 0n) {
      const d = formatQuantity(q); // upstream compares String(), the canonical form
      const r = fs.resource;
      if ((r === 'limits.cpu' || r === 'requests.cpu') && !CPU_DIVISORS.includes(d)) {
        errs.push(invalid(p.child('divisor'), r, "only divisor's values 1m and 1 are supported with the cpu resource"));
      } else if ((r === 'limits.memory' || r === 'requests.memory') && !BYTE_DIVISORS.includes(d)) {
        errs.push(invalid(p.child('divisor'), r, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource"));
      } else if ((r === 'limits.ephemeral-storage' || r === 'requests.ephemeral-storage') && !BYTE_DIVISORS.includes(d)) {
        errs.push(
          invalid(p.child('divisor'), r, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource"),
        );
      }
      if ((r.startsWith('requests.hugepages-') || r.startsWith('limits.hugepages-')) && !BYTE_DIVISORS.includes(d)) {
        errs.push(invalid(p.child('divisor'), r, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource"));
      }
    }
  }
  return errs;
}

function validateProjected(pv: ProjectedVolumeSource, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateFileMode(pv.defaultMode, p.child('defaultMode')));
  const allPaths = new Set<string>();
  (pv.sources ?? []).forEach((src, i) => {
    let n = 0;
    const sp = p.child('sources').index(i);
    if (src.secret) {
      n++;
      const pp = sp.child('secret');
      if (!src.secret.name) errs.push(required(pp.child('name'), ''));
      (src.secret.items ?? []).forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, pp.child('items').index(j)));
        if (kp.path) {
          if (allPaths.has(kp.path)) errs.push(invalid(p, src.secret!.name ?? '', 'conflicting duplicate paths'));
          else allPaths.add(kp.path);
        }
      });
    }
    if (src.configMap) {
      n++;
      const pp = sp.child('configMap');
      if (!src.configMap.name) errs.push(required(pp.child('name'), ''));
      (src.configMap.items ?? []).forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, pp.child('items').index(j)));
        if (kp.path) {
          if (allPaths.has(kp.path)) errs.push(invalid(p, src.configMap!.name ?? '', 'conflicting duplicate paths'));
          else allPaths.add(kp.path);
        }
      });
    }
    if (src.downwardAPI) {
      n++;
      const pp = sp.child('downwardAPI');
      for (const f of src.downwardAPI.items ?? []) {
        errs.push(...validateDownwardAPIVolumeFile(f, pp));
        if (f.path) {
          if (allPaths.has(f.path)) errs.push(invalid(p, f.path, 'conflicting duplicate paths'));
          else allPaths.add(f.path);
        }
      }
    }
    if (src.serviceAccountToken) {
      n++;
      const t = src.serviceAccountToken;
      const pp = sp.child('serviceAccountToken');
      const exp = t.expirationSeconds ?? 0;
      if (exp < 600) errs.push(invalid(pp.child('expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'));
      if (exp > 2 ** 32) errs.push(invalid(pp.child('expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'));
      if (!t.path) errs.push(required(p.child('path'), ''));
      else errs.push(...validateLocalNonReservedPath(t.path, p.child('path')));
    }
    if (src.clusterTrustBundle) {
      n++;
      const c = src.clusterTrustBundle;
      const pp = sp.child('clusterTrustBundle');
      if (c.name !== undefined && c.signerName !== undefined) errs.push(invalid(pp, c, 'only one of name and signerName may be used'));
      else if (c.name !== undefined) {
        if (!c.name) errs.push(required(pp.child('name'), 'must be a valid object name'));
        if (c.labelSelector) errs.push(invalid(pp.child('labelSelector'), c.labelSelector, 'labelSelector must be unset if name is specified'));
      } else if (c.signerName !== undefined) {
        if (!c.signerName) errs.push(required(pp.child('signerName'), 'must be a valid signer name'));
      } else errs.push(required(pp, 'either name or signerName must be specified'));
      if (!c.path) errs.push(required(pp.child('path'), ''));
      errs.push(...validateLocalNonReservedPath(c.path ?? '', pp.child('path')));
      if (allPaths.has(c.path ?? '')) errs.push(invalid(p, c.path ?? '', 'conflicting duplicate paths'));
      else allPaths.add(c.path ?? '');
    }
    if (n > 1) errs.push(forbidden(sp, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}
