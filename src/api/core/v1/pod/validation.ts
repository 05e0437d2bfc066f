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
import { duplicate, type FieldError, forbidden, internalError, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import {
  inclusiveRangeError,
  isValidGroupID,
  isValidIP,
  isValidUserID,
  jsonEqual,
  nameIsDNSSubdomain,
  parseIPSloppy,
  validateImmutableField,
  validateLabels,
} from '../../../../apimachinery/validation.js';
import { podHasContainer, visitContainers } from '../helpers/containers.js';
import { goSpecDiff } from './spec-diff.js';
import {
  eachInvalid,
  type PodValidationOptions,
  validateCoreObjectMeta,
  validateCoreObjectMetaUpdate,
  validateDNS1123Label,
  validateLocalDescendingPath,
  validateQualifiedName,
  validateResourceRequirements,
} from './validation-common.js';
import {
  type ContainerContext,
  validateContainerOnlyForPod,
  validateContainers,
  validateEphemeralContainers,
  validateInitContainers,
} from './validation-containers.js';
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
import { MIRROR_POD_ANNOTATION, type ContainerStatus, type Pod, type PodSpec, type Toleration } from './types.js';

export type { PodValidationOptions } from './validation-common.js';

const META = Path.root('metadata');
const SPEC = Path.root('spec');
const STATUS = Path.root('status');
const MAX_INT32 = 2147483647;

const TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';
const DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

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
function validatePodMetadataAndSpec(pod: Pod, opts: PodValidationOptions): FieldError[] {
  const spec = pod.spec ?? ({ containers: [] } as unknown as PodSpec);
  const errs = validateCoreObjectMeta(pod.metadata, true, nameIsDNSSubdomain, META);
  errs.push(...validatePodSpecificAnnotations(pod.metadata?.annotations, spec, META.child('annotations')));
  errs.push(...validatePodSpec(spec, pod.metadata, SPEC, opts));
  if (!spec.serviceAccountName) {
    (spec.volumes ?? []).forEach((v, vi) => {
      (v.projected?.sources ?? []).forEach((src, si) => {
        if (src.serviceAccountToken) {
          errs.push(
            forbidden(SPEC.child('volumes').index(vi).child('projected').child('sources').index(si).child('serviceAccountToken'), 'must not be specified when serviceAccountName is not set'),
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

/** The fields a pod update may change, as upstream's message lists them. */
export const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

function validateContainerUpdates(n: { image?: string }[] | undefined, o: { image?: string }[] | undefined, p: Path): [FieldError[], boolean] {
  const nl = n ?? [];
  const ol = o ?? [];
  if (nl.length !== ol.length) return [[forbidden(p, 'pod updates may not add or remove containers')], true];
  const errs: FieldError[] = [];
  nl.forEach((c, i) => {
    if (!c.image) errs.push(required(p.index(i).child('image'), ''));
    const img = c.image ?? '';
    if (img.trim().length !== img.length) errs.push(invalid(p.index(i).child('image'), img, 'must not have leading or trailing whitespace'));
  });
  return [errs, false];
}

function validateOnlyAddedTolerations(n: Toleration[] | undefined, o: Toleration[] | undefined, p: Path): FieldError[] {
  for (const old of o ?? []) {
    const found = (n ?? []).some((t) => jsonEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [forbidden(p, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(n, p);
}

function validateNodeSelectorMutation(p: Path, n: Record<string, string> | undefined, o: Record<string, string> | undefined): FieldError[] {
  for (const k in o ?? {}) {
    if (!n || !(k in n) || n[k] !== o![k]) return [invalid(p, n ?? null, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)')];
  }
  return [];
}

/**
 * A pod update by an end user (upstream ValidatePodUpdate): only images, activeDeadlineSeconds
 * (decrease), tolerations (additions), scheduling gates (removals), and — while gated —
 * nodeSelector additions and nodeAffinity narrowing may change; anything else yields
 * `spec: Forbidden: pod updates may not change fields other than …` plus a spec diff.
 */
export function validatePodUpdate(pod: Pod, old: Pod, opts: PodValidationOptions = { resourceIsPod: true }): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(pod.metadata, old.metadata, META);
  errs.push(...validatePodMetadataAndSpec(pod, opts));
  errs.push(...validatePodSpecificAnnotationUpdates(pod, old, META.child('annotations')));
  const ns = pod.spec ?? ({ containers: [] } as unknown as PodSpec);
  const os = old.spec ?? ({ containers: [] } as unknown as PodSpec);
  let [cErrs, stop] = validateContainerUpdates(ns.containers, os.containers, SPEC.child('containers'));
  errs.push(...cErrs);
  if (stop) return errs;
  [cErrs, stop] = validateContainerUpdates(ns.initContainers, os.initContainers, SPEC.child('initContainers'));
  errs.push(...cErrs);
  if (stop) return errs;
  const ads = SPEC.child('activeDeadlineSeconds');
  if (ns.activeDeadlineSeconds !== undefined && ns.activeDeadlineSeconds !== null) {
    const v = ns.activeDeadlineSeconds;
    if (v < 0 || v > MAX_INT32) return [...errs, invalid(ads, v, inclusiveRangeError(0, MAX_INT32))];
    if (os.activeDeadlineSeconds !== undefined && os.activeDeadlineSeconds !== null && os.activeDeadlineSeconds < v) {
      return [...errs, invalid(ads, v, 'must be less than or equal to previous value')];
    }
  } else if (os.activeDeadlineSeconds !== undefined && os.activeDeadlineSeconds !== null) {
    errs.push(invalid(ads, null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(ns.tolerations, os.tolerations, SPEC.child('tolerations')));
  if (ns.schedulingGates?.length) {
    const oldGates = new Set((os.schedulingGates ?? []).map((g) => g.name));
    const added = new Map<string, number>();
    ns.schedulingGates.forEach((g, i) => added.set(g.name, i));
    for (const g of oldGates) added.delete(g);
    for (const [g, i] of added) errs.push(forbidden(SPEC.child('schedulingGates').index(i).child('name'), `only deletion is allowed, but found new scheduling gate '${g}'`));
  }
  if (jsonEqual(ns, os)) return errs;

  // munge the updatable fields to the old values and compare the rest
  const munged: PodSpec = structuredClone(ns);
  munged.containers = munged.containers.map((c, i) => ({ ...c, image: os.containers[i]!.image }));
  if (munged.initContainers) munged.initContainers = munged.initContainers.map((c, i) => ({ ...c, image: os.initContainers![i]!.image }));
  setOrDelete(munged, 'activeDeadlineSeconds', os.activeDeadlineSeconds);
  setOrDelete(munged, 'schedulingGates', os.schedulingGates);
  setOrDelete(munged, 'tolerations', os.tolerations);
  if ((os.terminationGracePeriodSeconds ?? 0) < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = os.terminationGracePeriodSeconds;
  if (os.schedulingGates?.length) {
    if (!jsonEqual(munged.nodeSelector, os.nodeSelector)) {
      errs.push(...validateNodeSelectorMutation(SPEC.child('nodeSelector'), munged.nodeSelector, os.nodeSelector));
      setOrDelete(munged, 'nodeSelector', os.nodeSelector);
    }
    const oldNA = os.affinity?.nodeAffinity;
    const newNA = munged.affinity?.nodeAffinity;
    if (!jsonEqual(oldNA, newNA)) {
      errs.push(...validateNodeAffinityMutation(SPEC.child('affinity').child('nodeAffinity'), newNA, oldNA));
      if (!munged.affinity && !oldNA) {
        // already nil
      } else if (!munged.affinity && oldNA) munged.affinity = { nodeAffinity: oldNA };
      else if (munged.affinity && !os.affinity && !munged.affinity.podAffinity && !munged.affinity.podAntiAffinity) delete munged.affinity;
      else setOrDelete(munged.affinity!, 'nodeAffinity', oldNA);
    }
  }
  if (!jsonEqual(munged, os)) {
    errs.push(forbidden(SPEC, `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${goSpecDiff(os, munged)}`));
  }
  return errs;
}

function setOrDelete<T extends object, K extends keyof T>(o: T, k: K, v: T[K] | undefined): void {
  if (v === undefined) delete o[k];
  else o[k] = v;
}

type NodeAffinity = NonNullable<NonNullable<PodSpec['affinity']>['nodeAffinity']>;
type NodeSelectorTerm = NonNullable<NodeAffinity['requiredDuringSchedulingIgnoredDuringExecution']>['nodeSelectorTerms'][number];

function termHasOnlyAdditions(n: NodeSelectorTerm, o: NodeSelectorTerm): boolean {
  const oe = o.matchExpressions ?? [];
  const of = o.matchFields ?? [];
  const ne = n.matchExpressions ?? [];
  const nf = n.matchFields ?? [];
  if (oe.length === 0 && of.length === 0 && (ne.length > 0 || nf.length > 0)) return false;
  if (oe.length > 0 && (ne.length < oe.length || !jsonEqual(ne.slice(0, oe.length), oe))) return false;
  if (of.length > 0 && (nf.length < of.length || !jsonEqual(nf.slice(0, of.length), of))) return false;
  return true;
}

/** While gated, required node affinity terms may only gain requirements (upstream validateNodeAffinityMutation). */
function validateNodeAffinityMutation(p: Path, n: NodeAffinity | undefined, o: NodeAffinity | undefined): FieldError[] {
  const oldTerms = o?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!oldTerms) return [];
  const newTerms = n?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const tp = p.child('requiredDuringSchedulingIgnoredDuringExecution').child('nodeSelectorTerms');
  if (oldTerms.length > 0 && oldTerms.length !== newTerms.length) {
    return [invalid(tp, newTerms, 'no additions/deletions to non-empty NodeSelectorTerms list are allowed')];
  }
  const errs: FieldError[] = [];
  oldTerms.forEach((ot, i) => {
    if (!termHasOnlyAdditions(newTerms[i]!, ot)) errs.push(invalid(tp.index(i), newTerms[i], 'only additions are allowed (no mutations or deletions)'));
  });
  return errs;
}

/** Mirror-pod and AppArmor annotations may not be added, changed or removed (upstream ValidatePodSpecificAnnotationUpdates). */
function validatePodSpecificAnnotationUpdates(pod: Pod, old: Pod, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const na = pod.metadata?.annotations ?? {};
  const oa = old.metadata?.annotations ?? {};
  for (const k in oa) {
    if (k in na && na[k] === oa[k]) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(forbidden(p.key(k), 'may not remove or update AppArmor annotations'));
    if (k === MIRROR_POD_ANNOTATION) errs.push(forbidden(p.key(k), 'may not remove or update mirror pod annotation'));
  }
  for (const k in na) {
    if (k in oa) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(forbidden(p.key(k), 'may not add AppArmor annotations'));
    if (k === MIRROR_POD_ANNOTATION) errs.push(forbidden(p.key(k), 'may not add mirror pod annotation'));
  }
  errs.push(...validatePodSpecificAnnotations(pod.metadata?.annotations, pod.spec ?? ({ containers: [] } as unknown as PodSpec), p));
  return errs;
}

function validateContainerStateTransition(n: ContainerStatus[] | undefined, o: ContainerStatus[] | undefined, p: Path, restartPolicy: string, restartable?: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  if (restartPolicy === 'Always') return errs;
  (o ?? []).forEach((os, i) => {
    const t = os.state?.terminated;
    if (!t) return;
    if (t.exitCode !== 0 && restartPolicy === 'OnFailure') return;
    if (restartable?.has(os.name)) return;
    for (const ns of n ?? []) {
      if (ns.name === os.name && !ns.state?.terminated) errs.push(forbidden(p.index(i).child('state'), 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

function validateIPs(list: { ip?: string }[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const ips = list ?? [];
  ips.forEach((x, i) => errs.push(...eachInvalid(p.index(i), x.ip ?? '', isValidIP(x.ip ?? ''))));
  if (ips.length > 1) {
    const fams = ips.map((x) => parseIPSloppy(x.ip ?? ''));
    const dual = ips.length === 2 && fams[0] !== undefined && fams[1] !== undefined && fams[0] !== fams[1];
    if (fams.some((f) => f === undefined)) errs.push(internalError(p, new Error('failed to check for dual stack with error:invalid IP')));
    else if (!dual) errs.push(invalid(p, list, 'may specify no more than one IP for each IP family'));
    const seen = new Set<string>();
    ips.forEach((x, i) => {
      if (seen.has(x.ip ?? '')) errs.push(duplicate(p.index(i), x));
      seen.add(x.ip ?? '');
    });
  }
  return errs;
}

function validateContainerStatusUsers(list: ContainerStatus[] | undefined, p: Path, osName: string | undefined): FieldError[] {
  const errs: FieldError[] = [];
  (list ?? []).forEach((cs, i) => {
    const linux = cs.user?.linux;
    if (!linux) return;
    const lp = p.index(i).child('linux');
    if (osName === 'windows') {
      errs.push(forbidden(lp, 'cannot be set for a windows pod'));
      return;
    }
    for (const m of isValidUserID(linux.uid)) errs.push(invalid(lp.child('uid'), linux.uid, m));
    for (const m of isValidGroupID(linux.gid)) errs.push(invalid(lp.child('gid'), linux.gid, m));
    (linux.supplementalGroups ?? []).forEach((g, j) => {
      for (const m of isValidGroupID(g)) errs.push(invalid(lp.child('supplementalGroups').index(j), g, m));
    });
  });
  return errs;
}

/**
 * A pods/status update (upstream ValidatePodStatusUpdate): metadata rules, condition types,
 * nodeName unchanged, nominatedNodeName valid, qosClass immutable, no terminated → running
 * transitions unless the restart policy allows it, valid pod/host IPs.
 */
export function validatePodStatusUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(pod.metadata, old.metadata, META);
  errs.push(...validatePodSpecificAnnotationUpdates(pod, old, META.child('annotations')));
  const st = pod.status ?? {};
  const ost = old.status ?? {};
  (st.conditions ?? []).forEach((c, i) => {
    if (c.type === 'PodScheduled' || c.type === 'Ready' || c.type === 'Initialized') return;
    // upstream builds this path from "metadata" (sic)
    errs.push(...validateQualifiedName(c.type, META.child('conditions').index(i).child('Type')));
  });
  if ((pod.spec?.nodeName ?? '') !== (old.spec?.nodeName ?? '')) errs.push(forbidden(STATUS.child('nodeName'), 'may not be changed directly'));
  if (st.nominatedNodeName && st.nominatedNodeName !== ost.nominatedNodeName) {
    errs.push(...eachInvalid(STATUS.child('nominatedNodeName'), st.nominatedNodeName, nameIsDNSSubdomain(st.nominatedNodeName, false)));
  }
  errs.push(...validateImmutableField(st.qosClass ?? '', ost.qosClass ?? '', STATUS.child('qosClass')));
  const rp = old.spec?.restartPolicy ?? '';
  errs.push(...validateContainerStateTransition(st.containerStatuses, ost.containerStatuses, STATUS.child('containerStatuses'), rp));
  const restartable = new Set((old.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  errs.push(...validateContainerStateTransition(st.initContainerStatuses, ost.initContainerStatuses, STATUS.child('initContainerStatuses'), rp, restartable));
  errs.push(...validateContainerStateTransition(st.ephemeralContainerStatuses, ost.ephemeralContainerStatuses, STATUS.child('ephemeralContainerStatuses'), 'Never'));
  const claimNames = new Set((pod.spec?.resourceClaims ?? []).map((c) => c.name));
  const seenClaims = new Set<string>();
  (st.resourceClaimStatuses ?? []).forEach((rc, i) => {
    const np = STATUS.child('resourceClaimStatuses').index(i).child('name');
    if (!claimNames.has(rc.name)) errs.push(invalid(np, rc.name, 'must match the name of an entry in `spec.resourceClaims`'));
    if (seenClaims.has(rc.name)) errs.push(duplicate(np, rc.name));
    else seenClaims.add(rc.name);
  });
  errs.push(...validateIPs(st.podIPs, STATUS.child('podIPs')));
  if (st.hostIPs?.length) {
    if ((st.hostIP ?? '') !== (st.hostIPs[0]!.ip ?? '')) errs.push(invalid(STATUS.child('hostIPs').index(0).child('ip'), st.hostIPs[0]!.ip ?? '', 'must be equal to `hostIP`'));
    errs.push(...validateIPs(st.hostIPs, STATUS.child('hostIPs')));
  }
  const osName = pod.spec?.os?.name;
  errs.push(...validateContainerStatusUsers(st.containerStatuses, STATUS.child('containerStatuses'), osName));
  errs.push(...validateContainerStatusUsers(st.initContainerStatuses, STATUS.child('initContainerStatuses'), osName));
  errs.push(...validateContainerStatusUsers(st.ephemeralContainerStatuses, STATUS.child('ephemeralContainerStatuses'), osName));
  return errs;
}
