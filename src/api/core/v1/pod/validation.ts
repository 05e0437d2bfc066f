/**
 * Pod validation entry points, as upstream ValidatePodCreate / ValidatePodUpdate /
 * ValidatePodStatusUpdate (pkg/apis/core/validation). Field paths and messages are
 * upstream's; errors come in upstream's order so the aggregated message reads the same.
 *
 * Paths follow upstream's internal types where they differ from v1 JSON: e.g.
 * `spec.securityContext.shareProcessNamespace`, because upstream keeps host namespace
 * flags in the internal PodSecurityContext.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 */
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { inclusiveRangeError, nameIsDNSSubdomain, validateLabels } from '../../../../apimachinery/validation.js';
import { podHasContainer, visitContainers } from '../helpers/containers.js';
import {
  eachInvalid,
  type PodValidationOptions,
  validateCoreObjectMeta,
  validateDNS1123Label,
  validateLocalDescendingPath,
  validateResourceRequirements,
} from './validation-common.js';
import { type ContainerContext, validateContainerOnlyForPod, validateContainers, validateEphemeralContainers, validateInitContainers } from './validation-containers.js';
import {
  validateAffinity,
  validateHostAliases,
  validateImagePullSecrets,
  validatePodDNSConfig,
  validatePodResourceClaims,
  validateReadinessGates,
  validateSchedulingGates,
  validateTolerations,
  validateTopologySpreadConstraints,
} from './validation-scheduling.js';
import { validateHostUsers, validateOS, validatePodSecurityContext, validateWindowsHostProcessPod } from './validation-security.js';
import { validateVolumes } from './validation-volumes.js';
import { MIRROR_POD_ANNOTATION, type Pod, type PodSpec, type Toleration } from './types.js';

export type { PodValidationOptions } from './validation-common.js';

const META = Path.root('metadata');
const SPEC = Path.root('spec');
const MAX_INT32 = 2147483647;

const TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';
const DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
/** Prefix of the deprecated per-container AppArmor annotations. */
export const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

function validateSeccompAnnotationValue(v: string, p: Path): FieldError[] {
  if (v === 'runtime/default' || v === 'docker/default' || v === 'unconfined') return [];
  if (v.startsWith('localhost/')) return validateLocalDescendingPath(v.slice('localhost/'.length), p);
  return [invalid(p, v, 'must be a valid seccomp profile')];
}

/** Pod-specific annotations (upstream ValidatePodSpecificAnnotations). */
export function validatePodSpecificAnnotations(annotations: Record<string, string> | undefined, spec: PodSpec, p: Path, allowInvalidDeletionCost = false): FieldError[] {
  const errs: FieldError[] = [];
  const a = annotations ?? {};
  if (MIRROR_POD_ANNOTATION in a && !spec.nodeName) {
    errs.push(invalid(p.key(MIRROR_POD_ANNOTATION), a[MIRROR_POD_ANNOTATION], 'must set spec.nodeName if mirror pod annotation is set'));
  }
  if (a[TOLERATIONS_ANNOTATION]) {
    let tol: unknown;
    try {
      tol = JSON.parse(a[TOLERATIONS_ANNOTATION]!);
    } catch (e) {
      errs.push(invalid(p, TOLERATIONS_ANNOTATION, e instanceof Error ? e.message : String(e)));
    }
    if (Array.isArray(tol) && tol.length) errs.push(...validateTolerations(tol as Toleration[], p.child(TOLERATIONS_ANNOTATION)));
  }
  if (!allowInvalidDeletionCost && DELETION_COST_ANNOTATION in a) {
    const v = a[DELETION_COST_ANNOTATION]!;
    const n = /^[+-]?[0-9]+$/.test(v) ? Number(v) : NaN;
    if (!(n >= -MAX_INT32 - 1 && n <= MAX_INT32)) errs.push(invalid(p.key(DELETION_COST_ANNOTATION), v, 'must be a 32bit integer'));
  }
  if (SECCOMP_POD_ANNOTATION in a) errs.push(...validateSeccompAnnotationValue(a[SECCOMP_POD_ANNOTATION]!, p.child(SECCOMP_POD_ANNOTATION)));
  for (const k in a) if (k.startsWith(SECCOMP_CONTAINER_PREFIX)) errs.push(...validateSeccompAnnotationValue(a[k]!, p.child(k)));
  for (const k in a) {
    if (!k.startsWith(APPARMOR_PREFIX)) continue;
    const name = k.slice(APPARMOR_PREFIX.length);
    if (!podHasContainer(spec, name)) errs.push(invalid(p.key(k), name, 'container not found'));
    const v = a[k]!;
    if (v !== '' && v !== 'runtime/default' && v !== 'unconfined' && !v.startsWith('localhost/')) {
      errs.push(invalid(p.key(k), v, `invalid AppArmor profile name: ${JSON.stringify(v)}`));
    }
  }
  return errs;
}

/**
 * A PodSpec (upstream ValidatePodSpec).
 *
 * @param podMeta the pod's metadata (for generic ephemeral volume PVC names), if a real pod
 */
export function validatePodSpec(spec: PodSpec | undefined, podMeta: Pod['metadata'], p: Path, opts: PodValidationOptions = {}): FieldError[] {
  const s: PodSpec = spec ?? ({ containers: [] } as unknown as PodSpec);
  const errs: FieldError[] = [];
  const grace = s.terminationGracePeriodSeconds ?? undefined;
  if (grace === undefined) errs.push(required(p.child('terminationGracePeriodSeconds'), ''));
  const hostUsers = s.hostUsers !== false;
  const [vols, vErrs] = validateVolumes(s.volumes, podMeta, p.child('volumes'));
  errs.push(...vErrs);
  const podClaimNames = new Set((s.resourceClaims ?? []).map((c) => c.name).filter((n) => !!n));
  errs.push(...validatePodResourceClaims(s.resourceClaims, p.child('resourceClaims')));
  const ctx: ContainerContext = { volumes: vols, podClaimNames, gracePeriod: grace, restartPolicy: s.restartPolicy ?? '', hostUsers, opts };
  errs.push(...validateContainers(s.containers, ctx, p.child('containers')));
  errs.push(...validateInitContainers(s.initContainers, s.containers, ctx, p.child('initContainers')));
  errs.push(...validateEphemeralContainers(s.ephemeralContainers, s.containers, s.initContainers, ctx, p.child('ephemeralContainers')));
  if (s.hostNetwork) {
    (s.containers ?? []).forEach((c, i) => {
      (c.ports ?? []).forEach((port, j) => {
        const hp = port.hostPort ?? 0;
        if ((opts.resourceIsPod || hp !== 0) && hp !== port.containerPort) {
          errs.push(invalid(p.child('containers').index(i).child('ports').index(j).child('hostPort'), hp, 'must match `containerPort` when `hostNetwork` is true'));
        }
      });
    });
  }
  const rp = s.restartPolicy ?? '';
  if (!rp) errs.push(required(p.child('restartPolicy'), ''));
  else if (!['Always', 'OnFailure', 'Never'].includes(rp)) errs.push(notSupported(p.child('restartPolicy'), rp, ['Always', 'OnFailure', 'Never']));
  const dp = s.dnsPolicy ?? '';
  if (!dp) errs.push(required(p.child('dnsPolicy'), ''));
  else if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dp)) {
    errs.push(notSupported(p.child('dnsPolicy'), dp, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  }
  errs.push(...validateLabels(s.nodeSelector, p.child('nodeSelector')));
  errs.push(...validatePodSecurityContext(s, p.child('securityContext')));
  errs.push(...validateImagePullSecrets(s.imagePullSecrets, p.child('imagePullSecrets')));
  errs.push(...validateAffinity(s.affinity, p.child('affinity')));
  errs.push(...validatePodDNSConfig(s.dnsConfig, s.dnsPolicy, p.child('dnsConfig')));
  errs.push(...validateReadinessGates(s.readinessGates, p.child('readinessGates')));
  errs.push(...validateSchedulingGates(s.schedulingGates, p.child('schedulingGates')));
  errs.push(...validateTopologySpreadConstraints(s.topologySpreadConstraints, p.child('topologySpreadConstraints'), opts));
  errs.push(...validateWindowsHostProcessPod(s, p, opts));
  errs.push(...validateHostUsers(s, p));
  if (s.serviceAccountName) errs.push(...eachInvalid(p.child('serviceAccountName'), s.serviceAccountName, nameIsDNSSubdomain(s.serviceAccountName, false)));
  if (s.nodeName) errs.push(...eachInvalid(p.child('nodeName'), s.nodeName, nameIsDNSSubdomain(s.nodeName, false)));
  if (s.activeDeadlineSeconds !== undefined && s.activeDeadlineSeconds !== null) {
    const v = s.activeDeadlineSeconds;
    if (v < 1 || v > MAX_INT32) errs.push(invalid(p.child('activeDeadlineSeconds'), v, inclusiveRangeError(1, MAX_INT32)));
  }
  if (s.hostname) errs.push(...validateDNS1123Label(s.hostname, p.child('hostname')));
  if (s.subdomain) errs.push(...validateDNS1123Label(s.subdomain, p.child('subdomain')));
  if (s.tolerations?.length) errs.push(...validateTolerations(s.tolerations, p.child('tolerations')));
  if (s.hostAliases?.length) errs.push(...validateHostAliases(s.hostAliases, p.child('hostAliases')));
  if (s.priorityClassName) errs.push(...eachInvalid(p.child('priorityClassName'), s.priorityClassName, nameIsDNSSubdomain(s.priorityClassName, false)));
  if (s.runtimeClassName !== undefined && s.runtimeClassName !== null) {
    errs.push(...eachInvalid(p.child('runtimeClassName'), s.runtimeClassName, nameIsDNSSubdomain(s.runtimeClassName, false)));
  }
  if (s.preemptionPolicy !== undefined && s.preemptionPolicy !== null) {
    if (!s.preemptionPolicy) errs.push(required(p.child('preemptionPolicy'), ''));
    else if (s.preemptionPolicy !== 'PreemptLowerPriority' && s.preemptionPolicy !== 'Never') {
      errs.push(notSupported(p.child('preemptionPolicy'), s.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
    }
  }
  if (s.overhead) errs.push(...validateResourceRequirements({ limits: s.overhead }, podClaimNames, p.child('overhead'), opts));
  errs.push(...validateOS(s, p));
  return errs;
}

/** Metadata + spec, as upstream validatePodMetadataAndSpec. */
export function validatePodMetadataAndSpec(pod: Pod, opts: PodValidationOptions): FieldError[] {
  const spec = pod.spec ?? ({ containers: [] } as unknown as PodSpec);
  const errs = validateCoreObjectMeta(pod.metadata, true, nameIsDNSSubdomain, META);
  errs.push(...validatePodSpecificAnnotations(pod.metadata?.annotations, spec, META.child('annotations')));
  errs.push(...validatePodSpec(spec, pod.metadata, SPEC, opts));
  if (!spec.serviceAccountName) {
    (spec.volumes ?? []).forEach((v, vi) => {
      (v.projected?.sources ?? []).forEach((src, si) => {
        if (src.serviceAccountToken) {
          errs.push(
            forbidden(
              SPEC.child('volumes').index(vi).child('projected').child('sources').index(si).child('serviceAccountToken'),
              'must not be specified when serviceAccountName is not set',
            ),
          );
        }
      });
    });
  }
  (spec.containers ?? []).forEach((c, i) => errs.push(...validateContainerOnlyForPod(c, SPEC.child('containers').index(i))));
  (spec.initContainers ?? []).forEach((c, i) => errs.push(...validateContainerOnlyForPod(c, SPEC.child('initContainers').index(i))));
  return errs;
}

function seccompAnnotationMatches(annotation: string, field: { type: string; localhostProfile?: string }, p: Path): FieldError | undefined {
  switch (field.type) {
    case 'Unconfined':
      if (annotation !== 'unconfined') return forbidden(p.child('type'), 'seccomp type in annotation and field must match');
      break;
    case 'RuntimeDefault':
      if (annotation !== 'runtime/default' && annotation !== 'docker/default') return forbidden(p.child('type'), 'seccomp type in annotation and field must match');
      break;
    case 'Localhost':
      if (!annotation.startsWith('localhost/')) return forbidden(p.child('type'), 'seccomp type in annotation and field must match');
      if (field.localhostProfile === undefined || annotation.slice('localhost/'.length) !== field.localhostProfile) {
        return forbidden(p.child('localhostProfile'), 'seccomp profile in annotation and field must match');
      }
  }
  return undefined;
}

function validateAnnotationsMatchFields(pod: Pod): FieldError[] {
  const errs: FieldError[] = [];
  const spec = pod.spec!;
  const a = pod.metadata?.annotations ?? {};
  const podSeccomp = spec.securityContext?.seccompProfile;
  if (podSeccomp && SECCOMP_POD_ANNOTATION in a) {
    const e = seccompAnnotationMatches(a[SECCOMP_POD_ANNOTATION]!, podSeccomp, SPEC.child('securityContext').child('seccompProfile'));
    if (e) errs.push(e);
  }
  visitContainers(spec, (c, type, i) => {
    const f = c.securityContext?.seccompProfile;
    const key = SECCOMP_CONTAINER_PREFIX + c.name;
    if (f && key in a) {
      const e = seccompAnnotationMatches(a[key]!, f, SPEC.child(type).index(i).child('securityContext').child('seccompProfile'));
      if (e) errs.push(e);
    }
  });
  if (spec.os?.name === 'windows') return errs;
  const podProfile = spec.securityContext?.appArmorProfile;
  visitContainers(spec, (c, type, i) => {
    const prof = c.securityContext?.appArmorProfile ?? podProfile;
    const key = APPARMOR_PREFIX + c.name;
    if (!prof || !(key in a)) return;
    const ann = a[key]!;
    const ap = SPEC.child(type).index(i).child('securityContext').child('appArmorProfile');
    const mismatch = forbidden(ap.child('type'), 'apparmor type in annotation and field must match');
    if (prof.type === 'Unconfined' && ann !== 'unconfined') errs.push(mismatch);
    else if (prof.type === 'RuntimeDefault' && ann !== 'runtime/default') errs.push(mismatch);
    else if (prof.type === 'Localhost') {
      if (!ann.startsWith('localhost/')) errs.push(mismatch);
      else if (prof.localhostProfile === undefined || ann.slice('localhost/'.length) !== prof.localhostProfile) {
        errs.push(forbidden(ap.child('localhostProfile'), 'apparmor profile in annotation and field must match'));
      }
    }
  });
  return errs;
}

/**
 * A pod on create (upstream ValidatePodCreate): metadata (incl. ObjectMeta), spec,
 * no ephemeral containers, no nodeName while scheduling gates remain, annotation/field
 * consistency.
 */
export function validatePodCreate(pod: Pod, opts: PodValidationOptions = { resourceIsPod: true }): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod, opts);
  const spec = pod.spec;
  if (spec?.ephemeralContainers?.length) errs.push(forbidden(SPEC.child('ephemeralContainers'), 'cannot be set on create'));
  if (spec?.nodeName && spec.schedulingGates?.length) errs.push(forbidden(SPEC.child('nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  if (spec) errs.push(...validateAnnotationsMatchFields(pod));
  return errs;
}
