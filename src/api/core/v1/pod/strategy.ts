/**
 * The Pod resource: data plus strategy, as upstream pkg/registry/core/pod/strategy.go.
 *
 * Create: defaults → prepareForCreate (400 for malformed quantities as upstream's decoder, status reset to Pending + QoS class, default
 * toleration seconds, SchedulingGated condition, matchLabelKeys merged into pod
 * (anti-)affinity selectors, alpha fields of v1.32 dropped) → validate → canonicalize.
 * Update: status kept from the old object, spec immutability enforced by validateUpdate.
 * Status subresource: spec kept from the old object.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/strategy.go
 */
import type { FieldError } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Label, nameIsDNSSubdomain } from '../../../../apimachinery/validation.js';
import type { DeleteOptionsLike, Obj, ResourceDefinition, StatusStrategy, StrategyContext } from '../../../resource.js';
import { updatePodCondition } from '../helpers/conditions.js';
import { visitContainers } from '../helpers/containers.js';
import { computePodQOS } from '../helpers/qos.js';
import { findInvalidPodQuantity, roundResourceList, setPodDefaults } from './defaults.js';
import { decodeError } from '../shared/decode.js';
import { podTable } from './printer.js';
import type { Pod, PodAffinityTerm, PodSpec, Toleration } from './types.js';
import { validatePodCreate } from './validation.js';
import { validatePodEphemeralContainersUpdate, validatePodStatusUpdate, validatePodUpdate } from './validation-update.js';

/** Taint keys the DefaultTolerationSeconds admission plugin tolerates for 300 s. */
const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
/** Default tolerationSeconds for not-ready/unreachable (kube-apiserver --default-not-ready-toleration-seconds). */
export const DEFAULT_TOLERATION_SECONDS = 300;

/**
 * Upstream's DefaultTolerationSeconds admission plugin: adds
 * `{key: node.kubernetes.io/not-ready|unreachable, operator: Exists, effect: NoExecute,
 * tolerationSeconds: 300}` unless the pod already tolerates that taint with effect NoExecute
 * (or any effect / any key). Mutates the pod.
 *
 * @param seconds tolerationSeconds to use (default 300)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/defaulttolerationseconds/admission.go
 */
export function addDefaultTolerationSeconds(pod: Pod, seconds = DEFAULT_TOLERATION_SECONDS): void {
  const spec = pod.spec;
  if (!spec) return;
  let notReady = false;
  let unreachable = false;
  for (const t of spec.tolerations ?? []) {
    const effectOK = t.effect === 'NoExecute' || !t.effect;
    if ((t.key === TAINT_NODE_NOT_READY || !t.key) && effectOK) notReady = true;
    if ((t.key === TAINT_NODE_UNREACHABLE || !t.key) && effectOK) unreachable = true;
  }
  const add: Toleration[] = [];
  if (!notReady) add.push({ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
  if (!unreachable) add.push({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
  if (add.length) spec.tolerations = [...(spec.tolerations ?? []), ...add];
}

/** Adds PodScheduled=False/SchedulingGated to a gated pod without a PodScheduled condition. */
function applySchedulingGatedCondition(pod: Pod, now: Date): void {
  if (!pod.spec?.schedulingGates?.length) return;
  const status = (pod.status ??= {});
  if ((status.conditions ?? []).some((c) => c.type === 'PodScheduled')) return;
  updatePodCondition(
    status,
    {
      type: 'PodScheduled',
      status: 'False',
      reason: 'SchedulingGated',
      message: 'Scheduling is blocked due to non-empty scheduling gates',
      lastProbeTime: null as unknown as string,
    },
    now,
  );
}

/** matchLabelKeys/mismatchLabelKeys merged into the term's labelSelector (MatchLabelKeysInPodAffinity, beta on in v1.32). */
function applyMatchLabelKeys(term: PodAffinityTerm, labels: Record<string, string>): void {
  if ((!term.matchLabelKeys?.length && !term.mismatchLabelKeys?.length) || !term.labelSelector) return;
  const exprs = (term.labelSelector.matchExpressions ??= []);
  for (const k of term.matchLabelKeys ?? []) if (k in labels) exprs.push({ key: k, operator: 'In', values: [labels[k]!] });
  for (const k of term.mismatchLabelKeys ?? []) if (k in labels) exprs.push({ key: k, operator: 'NotIn', values: [labels[k]!] });
}

function mutatePodAffinity(pod: Pod): void {
  const a = pod.spec?.affinity;
  if (!a) return;
  const labels = pod.metadata?.labels ?? {};
  for (const pa of [a.podAffinity, a.podAntiAffinity]) {
    if (!pa) continue;
    for (const w of pa.preferredDuringSchedulingIgnoredDuringExecution ?? []) applyMatchLabelKeys(w.podAffinityTerm, labels);
    for (const t of pa.requiredDuringSchedulingIgnoredDuringExecution ?? []) applyMatchLabelKeys(t, labels);
  }
}

/**
 * Drop fields of features that are off by default in v1.32 (upstream DropDisabledPodFields):
 * pod-level resources, image volumes, seLinuxChangePolicy, supplementalGroupsPolicy,
 * container resizePolicy, hostUsers — unless the old pod already uses them.
 */
export function dropDisabledPodFields(spec: PodSpec | undefined, old: PodSpec | undefined): void {
  if (!spec) return;
  if (spec.resources && !old?.resources) delete spec.resources;
  if (!old?.volumes?.some((v) => v.image)) for (const v of spec.volumes ?? []) delete v.image;
  if (spec.securityContext) {
    if (old?.securityContext?.seLinuxChangePolicy === undefined) delete spec.securityContext.seLinuxChangePolicy;
    if (old?.securityContext?.supplementalGroupsPolicy === undefined) delete spec.securityContext.supplementalGroupsPolicy;
  }
  let oldResize = false;
  visitContainers(old, (c) => {
    if (c.resizePolicy?.length) oldResize = true;
  });
  if (!oldResize) visitContainers(spec, (c) => void delete c.resizePolicy);
  if (spec.hostUsers !== undefined && old?.hostUsers === undefined) delete spec.hostUsers;
}

/**
 * Upstream rejects malformed quantities while decoding: 400 BadRequest
 * `Pod in version "v1" cannot be handled as a Pod: <parse error>`.
 *
 * @throws StatusError
 */
function decodeChecks(pod: Pod): void {
  const bad = findInvalidPodQuantity(pod);
  if (bad) throw decodeError('Pod', 'v1', bad.message);
}

/** Every resource list of a pod re-serialised canonically ("0.1" → "100m"); condition times as upstream serialises them. */
function canonicalizePod(pod: Pod): void {
  visitContainers(pod.spec, (c) => {
    if (c.resources?.limits) roundResourceList(c.resources.limits);
    if (c.resources?.requests) roundResourceList(c.resources.requests);
  });
  if (pod.spec?.overhead) roundResourceList(pod.spec.overhead);
  // PodCondition's times are metav1.Time structs: upstream serialises an unset one as null
  // (a patch's null removes the key, the Go struct brings it back as null)
  for (const c of pod.status?.conditions ?? []) {
    if (c.lastProbeTime === undefined) c.lastProbeTime = null as unknown as string;
    if (c.lastTransitionTime === undefined) c.lastTransitionTime = null as unknown as string;
  }
}

/** pods/status: spec, deletionTimestamp and ownerReferences come from the old object. */
const podStatusStrategy: StatusStrategy<Pod> = {
  prepareForUpdate(obj: Obj<Pod>, old: Obj<Pod>): void {
    decodeChecks(obj);
    obj.spec = old.spec;
    const meta = obj.metadata as { deletionTimestamp?: string };
    if (old.metadata.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (old.metadata.ownerReferences) obj.metadata.ownerReferences = old.metadata.ownerReferences;
    else delete obj.metadata.ownerReferences;
    if (!obj.status?.qosClass && old.status?.qosClass) (obj.status ??= {}).qosClass = old.status.qosClass;
  },
  validateUpdate(obj: Obj<Pod>, old: Obj<Pod>): FieldError[] {
    return validatePodStatusUpdate(obj, old);
  },
};

/**
 * pods/ephemeralcontainers (kubectl debug): only spec.ephemeralContainers is taken from the
 * request; spec, status and the status-reset metadata (labels, annotations, finalizers,
 * ownerReferences, deletionTimestamp) come from the old object. Not part of the
 * ResourceDefinition contract; for the API server's subresource handler.
 */
export const podEphemeralContainersStrategy: StatusStrategy<Pod> = {
  prepareForUpdate(obj: Obj<Pod>, old: Obj<Pod>): void {
    decodeChecks(obj);
    const eph = obj.spec?.ephemeralContainers;
    obj.spec = structuredClone(old.spec);
    if (eph) obj.spec!.ephemeralContainers = eph;
    setPodDefaults(obj);
    obj.status = old.status;
    const m = obj.metadata as Record<string, unknown>;
    const om = old.metadata as Record<string, unknown>;
    // managedFields stay as the request left them: the field manager recorded the writer
    for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences', 'deletionTimestamp', 'generation']) {
      if (om[k] === undefined) delete m[k];
      else m[k] = om[k];
    }
  },
  validateUpdate(obj: Obj<Pod>, old: Obj<Pod>): FieldError[] {
    return validatePodEphemeralContainersUpdate(obj, old);
  },
};

/**
 * Grace period for a DELETE (upstream CheckGracefulDelete): the request's
 * gracePeriodSeconds, else spec.terminationGracePeriodSeconds, else 0; 0 when the pod is
 * not scheduled or already Succeeded/Failed; negative becomes 1. Seconds; 0 = delete now.
 */
function podGracePeriod(pod: Pod, opts: DeleteOptionsLike): number {
  let period = opts.gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 0;
  if (!pod.spec?.nodeName) period = 0;
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') period = 0;
  if (period < 0) period = 1;
  return period;
}

/** Field selector attributes beyond metadata.name/namespace (upstream ToSelectableFields). */
function podFieldSelectorAttrs(pod: Pod): Record<string, string> {
  return {
    'spec.nodeName': pod.spec?.nodeName ?? '',
    'spec.restartPolicy': pod.spec?.restartPolicy ?? '',
    'spec.schedulerName': pod.spec?.schedulerName ?? '',
    'spec.serviceAccountName': pod.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': pod.spec?.hostNetwork ? 'true' : 'false',
    'status.phase': pod.status?.phase ?? '',
    'status.podIP': pod.status?.podIPs?.[0]?.ip ?? '',
    'status.nominatedNodeName': pod.status?.nominatedNodeName ?? '',
  };
}

/**
 * core/v1 Pod. The DefaultTolerationSeconds tolerations ({@link addDefaultTolerationSeconds})
 * are added by that admission plugin, not here.
 */
export const podDefinition: ResourceDefinition<Pod> = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  listKind: 'PodList',
  resource: 'pods',
  singular: 'pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  schemaRef: 'core/v1#Pod',
  // the kubelets' watches (spec.nodeName=<node>) are served from an index, as upstream's pod storage
  watchIndexField: 'spec.nodeName',
  returnDeletedObject: true,

  defaults(obj: Obj<Pod>): void {
    setPodDefaults(obj);
  },

  prepareForCreate(obj: Obj<Pod>, ctx: StrategyContext): void {
    decodeChecks(obj);
    dropDisabledPodFields(obj.spec, undefined);
    obj.status = { phase: 'Pending', qosClass: computePodQOS(obj) };
    applySchedulingGatedCondition(obj, ctx.now());
    mutatePodAffinity(obj);
  },

  prepareForUpdate(obj: Obj<Pod>, old: Obj<Pod>): void {
    decodeChecks(obj);
    if (old.status === undefined) delete obj.status;
    else obj.status = old.status;
    dropDisabledPodFields(obj.spec, old.spec);
  },

  validate(obj: Obj<Pod>): FieldError[] {
    return validatePodCreate(obj, { resourceIsPod: true });
  },

  validateUpdate(obj: Obj<Pod>, old: Obj<Pod>): FieldError[] {
    return validatePodUpdate(obj, old, { resourceIsPod: true });
  },

  warningsOnCreate(obj: Obj<Pod>): string[] {
    const msgs = isDNS1123Label(obj.metadata.name ?? '');
    if (msgs.length === 0) return [];
    return [`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`];
  },

  warningsOnUpdate(): string[] {
    return [];
  },

  canonicalize(obj: Obj<Pod>): void {
    canonicalizePod(obj);
  },

  validateName: nameIsDNSSubdomain,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,

  checkGracefulDelete(obj: Obj<Pod>, opts: DeleteOptionsLike): number {
    return podGracePeriod(obj, opts);
  },

  fieldSelectorAttrs(obj: Obj<Pod>): Record<string, string> {
    return podFieldSelectorAttrs(obj);
  },

  table: podTable,
  status: podStatusStrategy,
};
