/**
 * Priority admission: resolves `spec.priorityClassName` to `spec.priority` and
 * `spec.preemptionPolicy` from the PriorityClass (or the globalDefault class when no
 * name is given); an unknown class is refused with
 * `no PriorityClass with name high was found`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/priority/admission.go
 */
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import type { AdmissionPlugin } from '../types.js';

const PC = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' };

export const priority: AdmissionPlugin = {
  name: 'Priority',
  async admit(a, lookup) {
    if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource || !a.object) return;
    const spec = (a.object.spec ??= {}) as PodSpec & { priority?: number; preemptionPolicy?: string };
    const gr = { group: '', resource: 'pods' };
    const name = a.object.metadata.name ?? '';
    let value = 0;
    let policy: string | undefined;
    if (!spec.priorityClassName) {
      let def: PriorityClass | undefined;
      for (const pc of (await lookup.list(PC, '')) as unknown as PriorityClass[]) {
        if (!pc.globalDefault) continue;
        // the lowest-valued default wins, as upstream
        if (!def || pc.value < def.value) def = pc;
      }
      if (def) {
        spec.priorityClassName = def.metadata!.name!;
        value = def.value;
        policy = def.preemptionPolicy;
      }
    } else {
      const pc = (await lookup.get(PC, '', spec.priorityClassName)) as unknown as PriorityClass | undefined;
      if (!pc) throw newForbidden(gr, name, `no PriorityClass with name ${spec.priorityClassName} was found`);
      value = pc.value;
      policy = pc.preemptionPolicy;
    }
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== value) {
      throw newForbidden(
        gr,
        name,
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`,
      );
    }
    spec.priority = value;
    const want = policy ?? 'PreemptLowerPriority';
    if (spec.preemptionPolicy && spec.preemptionPolicy !== want) {
      throw newForbidden(
        gr,
        name,
        `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${want} from the given PriorityClass name`,
      );
    }
    spec.preemptionPolicy = want;
  },
};
