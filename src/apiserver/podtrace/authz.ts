/**
 * Who may read a PodTrace: whoever may read its pod. Reads (get, list, watch) of
 * trace.k8ts.io podtraces are decided by the other authorization modes as the same read
 * of core pods in the same namespace, so no role needs to name podtraces; other verbs
 * are left to the modes (and the resource serves none).
 */
import type { AuthorizationAttributes } from '../apiserver.js';
import type { Decision, DecisionAuthorizer } from '../authz/types.js';
import { TRACE_GROUP } from '../../api/trace/v1alpha1/podtrace/definition.js';

const READS = new Set(['get', 'list', 'watch']);

/** A mode that answers podtrace reads as `modes` answer the same read of pods; NoOpinion otherwise. */
export function podTraceReadAuthorizer(modes: readonly DecisionAuthorizer[]): DecisionAuthorizer {
  return {
    name: 'PodTrace',
    decide(a: AuthorizationAttributes): Decision {
      if (!a.isResourceRequest || a.apiGroup !== TRACE_GROUP || a.resource !== 'podtraces' || a.subresource !== '' || !READS.has(a.verb)) {
        return { decision: 'NoOpinion', reason: '' };
      }
      const asPod: AuthorizationAttributes = { ...a, apiGroup: '', apiVersion: 'v1', resource: 'pods' };
      for (const m of modes) {
        const d = m.decide(asPod);
        if (d.decision !== 'NoOpinion') return d;
      }
      return { decision: 'NoOpinion', reason: '' };
    },
  };
}
