/**
 * Priority admission: resolves a pod's priorityClassName into spec.priority and
 * spec.preemptionPolicy on create (the globalDefault class — the lowest-valued one if
 * several — when no name is given, else priority 0 with PreemptLowerPriority), keeps
 * them on update, rejects unknown classes and values that contradict the class, and
 * allows only one globalDefault PriorityClass.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#priority
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/priority/admission.go
 */
import type { KObject } from '../../../api/resource.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';

const PC = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' };

interface PriorityClassLike extends KObject {
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

interface PodSpecLike {
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
}

function forbidden(a: AdmissionAttributes, msg: string) {
  return newForbidden({ group: a.resource.group, resource: a.resource.resource }, a.name || (a.object?.metadata?.name ?? ''), msg);
}

/** The globalDefault class with the lowest value, if any (upstream getDefaultPriorityClass). */
function defaultClass(classes: KObject[]): PriorityClassLike | undefined {
  let best: PriorityClassLike | undefined;
  for (const c of classes as PriorityClassLike[]) {
    if (!c.globalDefault) continue;
    if (!best || (best.value ?? 0) > (c.value ?? 0)) best = c;
  }
  return best;
}

export const priorityAdmission: AdmissionPlugin = {
  name: 'Priority',

  async admit(a, lookup) {
    if (a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource) return;
    const spec = a.object?.spec as PodSpecLike | undefined;
    if (!spec) return;
    if (a.operation === 'UPDATE') {
      const old = a.oldObject?.spec as PodSpecLike | undefined;
      if (spec.priority === undefined && old?.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old?.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    if (a.operation !== 'CREATE') return;
    let priority: number;
    let policy: string | undefined;
    if (!spec.priorityClassName) {
      const dpc = defaultClass(await lookup.list(PC, ''));
      if (dpc) {
        spec.priorityClassName = dpc.metadata?.name;
        priority = dpc.value ?? 0;
        policy = dpc.preemptionPolicy;
      } else {
        priority = 0;
        policy = 'PreemptLowerPriority';
      }
    } else {
      const pc = (await lookup.get(PC, '', spec.priorityClassName)) as PriorityClassLike | undefined;
      if (!pc) throw forbidden(a, `no PriorityClass with name ${spec.priorityClassName} was found`);
      priority = pc.value ?? 0;
      policy = pc.preemptionPolicy;
    }
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
      throw forbidden(
        a,
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
      );
    }
    spec.priority = priority;
    if (policy !== undefined) {
      if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== policy) {
        throw forbidden(
          a,
          `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
        );
      }
      spec.preemptionPolicy = policy;
    }
  },

  async validate(a, lookup) {
    if (a.resource.group !== PC.group || a.resource.resource !== PC.resource || a.subresource) return;
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    const pc = a.object as PriorityClassLike | undefined;
    if (!pc?.globalDefault) return;
    const dpc = defaultClass(await lookup.list(PC, ''));
    if (!dpc) return;
    if (a.operation === 'CREATE' || dpc.metadata?.name !== pc.metadata?.name) {
      throw forbidden(a, `PriorityClass ${dpc.metadata?.name ?? ''} is marked as default. Only one default can exist`);
    }
  },
};

/** The same plugin under the name the admission chain (src/apiserver/admission/plugins/index.ts) imports. */
export const priority = priorityAdmission;
