/**
 * Container validation: regular, init (incl. restartable sidecars) and ephemeral
 * containers — names, images, ports, env, volume mounts/devices, probes, lifecycle,
 * resources, resize policy, security context.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 */
import { duplicate, type FieldError, forbidden, internalError, invalid, notFound, notSupported, type Path, required } from '../../../../apimachinery/field-errors.js';
import {
  isConfigMapKey,
  isEnvVarName,
  isHTTPHeaderName,
  isRelaxedEnvVarName,
  isValidPortName,
  isValidPortNum,
  nameIsDNSSubdomain,
  validateNonnegativeField,
} from '../../../../apimachinery/validation.js';
import {
  eachInvalid,
  type PodValidationOptions,
  validateDNS1123Label,
  validateLocalDescendingPath,
  validatePathNoBacksteps,
  validateResourceRequirements,
} from './validation-common.js';
import { validateSecurityContext } from './validation-security.js';
import { validateContainerResourceFieldSelector, validateObjectFieldSelector, type VolumeMap } from './validation-volumes.js';
import type { Container, ContainerPort, EnvFromSource, EnvVar, EphemeralContainer, LifecycleHandler, Probe } from './types.js';

const ENV_DOWNWARD_FIELDS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];

/** Shared context of one PodSpec's container validation. */
export interface ContainerContext {
  volumes: VolumeMap;
  podClaimNames: Set<string>;
  /** spec.terminationGracePeriodSeconds (seconds), undefined if unset */
  gracePeriod: number | undefined;
  restartPolicy: string;
  hostUsers: boolean;
  opts: PodValidationOptions;
}

function validateContainerPorts(ports: ContainerPort[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const ip = p.index(i);
    if (port.name) {
      const msgs = isValidPortName(port.name);
      if (msgs.length) errs.push(...eachInvalid(ip.child('name'), port.name, msgs));
      else if (names.has(port.name)) errs.push(duplicate(ip.child('name'), port.name));
      else names.add(port.name);
    }
    if (!port.containerPort) errs.push(required(ip.child('containerPort'), ''));
    else for (const m of isValidPortNum(port.containerPort)) errs.push(invalid(ip.child('containerPort'), port.containerPort, m));
    if (port.hostPort) for (const m of isValidPortNum(port.hostPort)) errs.push(invalid(ip.child('hostPort'), port.hostPort, m));
    if (!port.protocol) errs.push(required(ip.child('protocol'), ''));
    else if (!['SCTP', 'TCP', 'UDP'].includes(port.protocol)) errs.push(notSupported(ip.child('protocol'), port.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

function validateKeySelector(s: { name?: string; key: string }, p: Path): FieldError[] {
  const errs = eachInvalid(p.child('name'), s.name ?? '', nameIsDNSSubdomain(s.name ?? '', false));
  if (!s.key) errs.push(required(p.child('key'), ''));
  else errs.push(...eachInvalid(p.child('key'), s.key, isConfigMapKey(s.key)));
  return errs;
}

/** spec.containers[*].env (upstream ValidateEnv). */
function validateEnv(vars: EnvVar[] | undefined, p: Path, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  (vars ?? []).forEach((ev, i) => {
    const ip = p.index(i);
    if (!ev.name) errs.push(required(ip.child('name'), ''));
    else errs.push(...eachInvalid(ip.child('name'), ev.name, opts.allowRelaxedEnvironmentVariableValidation ? isRelaxedEnvVarName(ev.name) : isEnvVarName(ev.name)));
    const vf = ev.valueFrom;
    if (!vf) return;
    const vp = ip.child('valueFrom');
    let n = 0;
    if (vf.fieldRef) {
      n++;
      errs.push(...validateObjectFieldSelector(vf.fieldRef, ENV_DOWNWARD_FIELDS, vp.child('fieldRef')));
    }
    if (vf.resourceFieldRef) {
      n++;
      errs.push(...validateContainerResourceFieldSelector(vf.resourceFieldRef, vp.child('resourceFieldRef'), false));
    }
    if (vf.configMapKeyRef) {
      n++;
      errs.push(...validateKeySelector(vf.configMapKeyRef, vp.child('configMapKeyRef')));
    }
    if (vf.secretKeyRef) {
      n++;
      errs.push(...validateKeySelector(vf.secretKeyRef, vp.child('secretKeyRef')));
    }
    if (n === 0) errs.push(invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (ev.value) errs.push(invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (n > 1) errs.push(invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateEnvFrom(list: EnvFromSource[] | undefined, p: Path, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  (list ?? []).forEach((ev, i) => {
    const ip = p.index(i);
    if (ev.prefix) {
      errs.push(...eachInvalid(ip.child('prefix'), ev.prefix, opts.allowRelaxedEnvironmentVariableValidation ? isRelaxedEnvVarName(ev.prefix) : isEnvVarName(ev.prefix)));
    }
    let n = 0;
    for (const [key, ref] of [
      ['configMapRef', ev.configMapRef],
      ['secretRef', ev.secretRef],
    ] as const) {
      if (!ref) continue;
      n++;
      const rp = ip.child(key);
      if (!ref.name) errs.push(required(rp.child('name'), ''));
      else errs.push(...eachInvalid(rp.child('name'), ref.name, nameIsDNSSubdomain(ref.name, true)));
    }
    if (n === 0) errs.push(invalid(p, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (n > 1) errs.push(invalid(p, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateVolumeMounts(c: Container, volumes: VolumeMap, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const devices = new Map<string, string>();
  for (const d of c.volumeDevices ?? []) devices.set(d.name, d.devicePath);
  const devicePaths = new Set(devices.values());
  const mountpoints = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const ip = p.index(i);
    if (!m.name) errs.push(required(ip.child('name'), ''));
    if (!volumes.has(m.name)) errs.push(notFound(ip.child('name'), m.name));
    if (!m.mountPath) errs.push(required(ip.child('mountPath'), ''));
    if (mountpoints.has(m.mountPath)) errs.push(invalid(ip.child('mountPath'), m.mountPath, 'must be unique'));
    mountpoints.add(m.mountPath);
    if (devices.has(m.name)) errs.push(invalid(ip.child('name'), m.name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(m.mountPath)) errs.push(invalid(ip.child('mountPath'), m.mountPath, 'must not already exist as a path in volumeDevices'));
    if (volumes.get(m.name)?.image) {
      if (m.subPath) errs.push(invalid(ip.child('subPath'), m.subPath, 'not allowed in image volume sources'));
      if (m.subPathExpr) errs.push(invalid(ip.child('subPathExpr'), m.subPathExpr, 'not allowed in image volume sources'));
    }
    // upstream reports subPath problems under the list path, not the item path
    if (m.subPath) errs.push(...validateLocalDescendingPath(m.subPath, p.child('subPath')));
    if (m.subPathExpr) {
      if (m.subPath) errs.push(invalid(ip.child('subPathExpr'), m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(m.subPathExpr, p.child('subPathExpr')));
    }
    if (m.mountPropagation !== undefined && m.mountPropagation !== null) {
      const mp = p.child('mountPropagation');
      const supported = ['Bidirectional', 'HostToContainer', 'None'];
      if (!supported.includes(m.mountPropagation)) errs.push(notSupported(mp, m.mountPropagation, supported));
      if (m.mountPropagation === 'Bidirectional' && c.securityContext?.privileged !== true) {
        errs.push(forbidden(mp, 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
    if (m.recursiveReadOnly !== undefined && m.recursiveReadOnly !== null) {
      const rp = p.child('recursiveReadOnly');
      if (m.recursiveReadOnly === 'Enabled' || m.recursiveReadOnly === 'IfPossible') {
        if (!m.readOnly) errs.push(forbidden(rp, 'may only be specified when readOnly is true'));
        if (m.mountPropagation && m.mountPropagation !== 'None') errs.push(forbidden(rp, 'may only be specified when mountPropagation is None or not specified'));
      } else if (m.recursiveReadOnly !== 'Disabled') {
        errs.push(notSupported(rp, m.recursiveReadOnly, ['Disabled', 'Enabled', 'IfPossible']));
      }
    }
  });
  return errs;
}

function validateVolumeDevices(c: Container, volumes: VolumeMap, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const mounts = new Map<string, string>();
  for (const m of c.volumeMounts ?? []) mounts.set(m.name, m.mountPath);
  const mountPaths = new Set(mounts.values());
  const paths = new Set<string>();
  const names = new Set<string>();
  (c.volumeDevices ?? []).forEach((d, i) => {
    const ip = p.index(i);
    const vol = volumes.get(d.name);
    if (!d.name) errs.push(required(ip.child('name'), ''));
    if (names.has(d.name)) errs.push(invalid(ip.child('name'), d.name, 'must be unique'));
    if (vol && !vol.persistentVolumeClaim && !vol.ephemeral) {
      errs.push(invalid(ip.child('name'), d.name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    }
    if (!vol) errs.push(notFound(ip.child('name'), d.name));
    if (!d.devicePath) errs.push(required(ip.child('devicePath'), ''));
    if (paths.has(d.devicePath)) errs.push(invalid(ip.child('devicePath'), d.devicePath, 'must be unique'));
    if (d.devicePath && validatePathNoBacksteps(d.devicePath, p).length) errs.push(invalid(ip.child('devicePath'), d.devicePath, "can not contain backsteps ('..')"));
    else paths.add(d.devicePath);
    if (mounts.has(d.name)) errs.push(invalid(ip.child('name'), d.name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(d.devicePath)) errs.push(invalid(ip.child('devicePath'), d.devicePath, 'must not already exist as a path in volumeMounts'));
    if (d.name) names.add(d.name);
  });
  return errs;
}

function validatePortNumOrName(port: number | string | undefined, p: Path): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => invalid(p, port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => invalid(p, port, m));
  return [internalError(p, new Error(`unknown type: ${port === undefined ? 0 : typeof port}`))];
}

interface Handler {
  exec?: { command?: string[] };
  httpGet?: { path?: string; port: number | string; scheme?: string; httpHeaders?: { name: string }[] };
  tcpSocket?: { port: number | string };
  grpc?: { port: number };
  sleep?: { seconds: number };
}

function validateHandler(h: Handler, gracePeriod: number | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  const one = (key: keyof Handler, check: () => FieldError[]): void => {
    if (h[key] === undefined || h[key] === null) return;
    if (n > 0) errs.push(forbidden(p.child(key), 'may not specify more than 1 handler type'));
    else {
      n++;
      errs.push(...check());
    }
  };
  one('exec', () => (h.exec!.command?.length ? [] : [required(p.child('exec').child('command'), '')]));
  one('httpGet', () => {
    const e: FieldError[] = [];
    const hp = p.child('httpGet');
    if (!h.httpGet!.path) e.push(required(hp.child('path'), ''));
    e.push(...validatePortNumOrName(h.httpGet!.port, hp.child('port')));
    const scheme = h.httpGet!.scheme ?? '';
    if (scheme !== 'HTTP' && scheme !== 'HTTPS') e.push(notSupported(hp.child('scheme'), scheme, ['HTTP', 'HTTPS']));
    for (const hd of h.httpGet!.httpHeaders ?? []) e.push(...eachInvalid(hp.child('httpHeaders'), hd.name, isHTTPHeaderName(hd.name)));
    return e;
  });
  one('tcpSocket', () => validatePortNumOrName(h.tcpSocket!.port, p.child('tcpSocket').child('port')));
  one('grpc', () => validatePortNumOrName(h.grpc!.port ?? 0, p.child('grpc').child('port')));
  one('sleep', () => {
    const s = h.sleep!.seconds ?? 0;
    if (gracePeriod !== undefined && (s <= 0 || s > gracePeriod)) {
      return [
        invalid(
          p.child('sleep'),
          s,
          `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`,
        ),
      ];
    }
    return [];
  });
  if (n === 0) errs.push(required(p, 'must specify a handler type'));
  return errs;
}

function validateProbe(probe: Probe, gracePeriod: number | undefined, p: Path): FieldError[] {
  const h: Handler = { exec: probe.exec, httpGet: probe.httpGet, tcpSocket: probe.tcpSocket, grpc: probe.grpc };
  const errs = validateHandler(h, gracePeriod, p);
  errs.push(...validateNonnegativeField(probe.initialDelaySeconds ?? 0, p.child('initialDelaySeconds')));
  errs.push(...validateNonnegativeField(probe.timeoutSeconds ?? 0, p.child('timeoutSeconds')));
  errs.push(...validateNonnegativeField(probe.periodSeconds ?? 0, p.child('periodSeconds')));
  errs.push(...validateNonnegativeField(probe.successThreshold ?? 0, p.child('successThreshold')));
  errs.push(...validateNonnegativeField(probe.failureThreshold ?? 0, p.child('failureThreshold')));
  const t = probe.terminationGracePeriodSeconds;
  if (t !== undefined && t !== null && t <= 0) errs.push(invalid(p.child('terminationGracePeriodSeconds'), t, 'must be greater than 0'));
  return errs;
}

function validateProbes(c: Container, gracePeriod: number | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (c.lifecycle) {
    if (c.lifecycle.postStart) errs.push(...validateHandler(c.lifecycle.postStart as LifecycleHandler & Handler, gracePeriod, p.child('lifecycle').child('postStart')));
    if (c.lifecycle.preStop) errs.push(...validateHandler(c.lifecycle.preStop as LifecycleHandler & Handler, gracePeriod, p.child('lifecycle').child('preStop')));
  }
  if (c.livenessProbe) {
    errs.push(...validateProbe(c.livenessProbe, gracePeriod, p.child('livenessProbe')));
    if (c.livenessProbe.successThreshold !== 1) errs.push(invalid(p.child('livenessProbe').child('successThreshold'), c.livenessProbe.successThreshold ?? 0, 'must be 1'));
  }
  if (c.readinessProbe) {
    errs.push(...validateProbe(c.readinessProbe, gracePeriod, p.child('readinessProbe')));
    const t = c.readinessProbe.terminationGracePeriodSeconds;
    if (t !== undefined && t !== null) errs.push(invalid(p.child('readinessProbe').child('terminationGracePeriodSeconds'), t, 'must not be set for readinessProbes'));
  }
  if (c.startupProbe) {
    errs.push(...validateProbe(c.startupProbe, gracePeriod, p.child('startupProbe')));
    if (c.startupProbe.successThreshold !== 1) errs.push(invalid(p.child('startupProbe').child('successThreshold'), c.startupProbe.successThreshold ?? 0, 'must be 1'));
  }
  return errs;
}

function validateResizePolicy(c: Container, restartPolicy: string, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (c.resizePolicy ?? []).forEach((rp, i) => {
    if (seen.has(rp.resourceName)) errs.push(duplicate(p.index(i), rp.resourceName));
    seen.add(rp.resourceName);
    if (!rp.resourceName) errs.push(required(p, ''));
    else if (rp.resourceName !== 'cpu' && rp.resourceName !== 'memory') errs.push(notSupported(p, rp.resourceName, ['cpu', 'memory']));
    if (!rp.restartPolicy) errs.push(required(p, ''));
    else if (rp.restartPolicy !== 'NotRequired' && rp.restartPolicy !== 'RestartContainer') {
      errs.push(notSupported(p, rp.restartPolicy, ['NotRequired', 'RestartContainer']));
    }
    if (restartPolicy === 'Never' && rp.restartPolicy !== 'NotRequired') errs.push(invalid(p, rp.restartPolicy ?? '', "must be 'NotRequired' when `restartPolicy` is 'Never'"));
  });
  return errs;
}

/** Checks every container kind shares (upstream validateContainerCommon). */
function validateContainerCommon(c: Container, ctx: ContainerContext, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(required(p.child('name'), ''));
  else errs.push(...validateDNS1123Label(c.name, p.child('name')));
  if (!c.image) errs.push(required(p.child('image'), ''));
  const tmp = c.terminationMessagePolicy ?? '';
  if (!tmp) errs.push(required(p.child('terminationMessagePolicy'), ''));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') errs.push(notSupported(p.child('terminationMessagePolicy'), tmp, ['File', 'FallbackToLogsOnError']));
  errs.push(...validateContainerPorts(c.ports, p.child('ports')));
  errs.push(...validateEnv(c.env, p.child('env'), ctx.opts));
  errs.push(...validateEnvFrom(c.envFrom, p.child('envFrom'), ctx.opts));
  errs.push(...validateVolumeMounts(c, ctx.volumes, p.child('volumeMounts')));
  errs.push(...validateVolumeDevices(c, ctx.volumes, p.child('volumeDevices')));
  const pp = c.imagePullPolicy ?? '';
  if (!pp) errs.push(required(p.child('imagePullPolicy'), ''));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pp)) errs.push(notSupported(p.child('imagePullPolicy'), pp, ['Always', 'IfNotPresent', 'Never']));
  errs.push(...validateResourceRequirements(c.resources, ctx.podClaimNames, p.child('resources'), ctx.opts));
  errs.push(...validateResizePolicy(c, ctx.restartPolicy, p.child('resizePolicy')));
  errs.push(...validateSecurityContext(c.securityContext, p.child('securityContext'), ctx.hostUsers, ctx.opts));
  return errs;
}

/** Colliding `protocol/hostIP/hostPort` triples across `containers` (upstream checkHostPortConflicts). */
function checkHostPortConflicts(containers: Container[], p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    (c.ports ?? []).forEach((port, pi) => {
      if (!port.hostPort) return;
      const key = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${port.hostPort}`;
      if (seen.has(key)) errs.push(duplicate(p.index(ci).child('ports').index(pi).child('hostPort'), key));
      else seen.add(key);
    });
  });
  return errs;
}

/** spec.containers (upstream validateContainers). */
export function validateContainers(containers: Container[] | undefined, ctx: ContainerContext, p: Path): FieldError[] {
  if (!containers || containers.length === 0) return [required(p, '')];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const cp = p.index(i);
    errs.push(...validateContainerCommon(c, ctx, cp));
    if (names.has(c.name)) errs.push(duplicate(cp.child('name'), c.name));
    else names.add(c.name);
    errs.push(...validateProbes(c, ctx.gracePeriod, cp));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(forbidden(cp.child('restartPolicy'), 'may not be set for non-init containers'));
  });
  errs.push(...checkHostPortConflicts(containers, p));
  return errs;
}

/** spec.initContainers, incl. restartable sidecars (upstream validateInitContainers). */
export function validateInitContainers(inits: Container[] | undefined, regular: Container[] | undefined, ctx: ContainerContext, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>((regular ?? []).map((c) => c.name));
  (inits ?? []).forEach((c, i) => {
    const cp = p.index(i);
    errs.push(...validateContainerCommon(c, ctx, cp));
    let restartAlways = false;
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      if (c.restartPolicy !== 'Always') errs.push(notSupported(cp.child('restartPolicy'), c.restartPolicy, ['Always']));
      restartAlways = c.restartPolicy === 'Always';
    }
    if (names.has(c.name)) errs.push(duplicate(cp.child('name'), c.name));
    else if (c.name) names.add(c.name);
    errs.push(...checkHostPortConflicts([c], p));
    if (restartAlways) errs.push(...validateProbes(c, ctx.gracePeriod, cp));
    else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
        if (c[f]) errs.push(forbidden(cp.child(f), 'may not be set for init containers without restartPolicy=Always'));
      }
    }
    if (c.resizePolicy?.length) errs.push(invalid(cp.child('resizePolicy'), c.resizePolicy, 'must not be set for init containers'));
  });
  return errs;
}

// fields of EphemeralContainerCommon that ephemeral containers may not set, in struct order
const EPHEMERAL_FORBIDDEN = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'] as const;

function isSet(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.values(v as object).some(isSet);
  return v !== '' && v !== 0 && v !== false;
}

/** spec.ephemeralContainers (upstream validateEphemeralContainers). */
export function validateEphemeralContainers(
  eph: EphemeralContainer[] | undefined,
  containers: Container[] | undefined,
  inits: Container[] | undefined,
  ctx: ContainerContext,
  p: Path,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!eph || eph.length === 0) return errs;
  const others = new Set<string>([...(containers ?? []), ...(inits ?? [])].map((c) => c.name));
  const all = new Set(others);
  eph.forEach((ec, i) => {
    const ip = p.index(i);
    const c = ec as unknown as Container;
    errs.push(...validateContainerCommon(c, ctx, ip));
    errs.push(...validateContainerOnlyForPod(c, ip));
    if (all.has(ec.name)) errs.push(duplicate(ip.child('name'), ec.name));
    else all.add(ec.name);
    if (ec.targetContainerName && !others.has(ec.targetContainerName)) errs.push(notFound(ip.child('targetContainerName'), ec.targetContainerName));
    for (const f of EPHEMERAL_FORBIDDEN) {
      if (isSet((ec as unknown as Record<string, unknown>)[f])) errs.push(forbidden(ip.child(f), 'cannot be set for an Ephemeral Container'));
    }
    (ec.volumeMounts ?? []).forEach((vm, j) => {
      if (vm.subPath) errs.push(forbidden(ip.child('volumeMounts').index(j).child('subPath'), 'cannot be set for an Ephemeral Container'));
      if (vm.subPathExpr) errs.push(forbidden(ip.child('volumeMounts').index(j).child('subPathExpr'), 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}

/** Pod-only (not template) container check: no surrounding whitespace in image. */
export function validateContainerOnlyForPod(c: Container, p: Path): FieldError[] {
  const img = c.image ?? '';
  return img.length !== img.trim().length ? [invalid(p.child('image'), img, 'must not have leading or trailing whitespace')] : [];
}
