/**
 * Pod update validation, as upstream ValidatePodUpdate, ValidatePodStatusUpdate and
 * ValidatePodEphemeralContainersUpdate (pkg/apis/core/validation).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 */
import { duplicate, type FieldError, forbidden, internalError, invalid, Path, required } from '../../../../apimachinery/field-errors.js';
import {
  inclusiveRangeError,
  isValidGroupID,
  isValidIP,
  isValidUserID,
  jsonEqual,
  nameIsDNSSubdomain,
  parseIPSloppy,
  validateImmutableField,
} from '../../../../apimachinery/validation.js';
import { goSpecDiff } from './spec-diff.js';
import { eachInvalid, type PodValidationOptions, validateCoreObjectMetaUpdate, validateQualifiedName } from './validation-common.js';
import { validateTolerations } from './validation-scheduling.js';
import { APPARMOR_PREFIX, validatePodMetadataAndSpec, validatePodSpecificAnnotations } from './validation.js';
import { MIRROR_POD_ANNOTATION, type ContainerStatus, type Pod, type PodSpec, type Toleration } from './types.js';

const META = Path.root('metadata');
const SPEC = Path.root('spec');
const STATUS = Path.root('status');
const MAX_INT32 = 2147483647;

/** The fields a pod update may change, as upstream's message lists them. */
const UPDATABLE_POD_SPEC_FIELDS = [
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

function validateContainerStateTransition(
  n: ContainerStatus[] | undefined,
  o: ContainerStatus[] | undefined,
  p: Path,
  restartPolicy: string,
  restartable?: Set<string>,
): FieldError[] {
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

/**
 * pods/ephemeralcontainers update (upstream ValidatePodEphemeralContainersUpdate, used by
 * `kubectl debug`): the new pod must be valid, static pods are refused, and existing
 * ephemeral containers may be neither removed nor changed.
 */
export function validatePodEphemeralContainersUpdate(pod: Pod, old: Pod, opts: PodValidationOptions = { resourceIsPod: true }): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(pod.metadata, old.metadata, META);
  errs.push(...validatePodMetadataAndSpec(pod, opts));
  errs.push(...validatePodSpecificAnnotationUpdates(pod, old, META.child('annotations')));
  if (old.metadata?.annotations && MIRROR_POD_ANNOTATION in old.metadata.annotations) {
    return [forbidden('', 'static pods do not support ephemeral containers')];
  }
  const p = SPEC.child('ephemeralContainers');
  const byName = new Map((pod.spec?.ephemeralContainers ?? []).map((c) => [c.name, c]));
  for (const oc of old.spec?.ephemeralContainers ?? []) {
    const nc = byName.get(oc.name);
    if (!nc) errs.push(forbidden(p, `existing ephemeral containers ${JSON.stringify(oc.name)} may not be removed\n`));
    else if (!jsonEqual(oc, nc)) {
      errs.push(forbidden(p, `existing ephemeral containers ${JSON.stringify(oc.name)} may not be changed\n${goSpecDiff(oc, nc, 'core.EphemeralContainer')}`));
    }
  }
  return errs;
}
