/**
 * The ClusterRole aggregation controller: a ClusterRole with an `aggregationRule` gets
 * the union of the rules of every ClusterRole its selectors match (admin, edit and
 * view are built this way from the system:aggregate-to-* roles and any role labelled
 * `rbac.authorization.k8s.io/aggregate-to-<name>: "true"`).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go
 */
import type { ClusterRole, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { KObject } from '../../api/resource.js';
import { isConflict, isNotFound } from '../../apimachinery/errors.js';
import { labelSelectorMatches } from './selector.js';
import { Informer } from '../../client/informer.js';
import type { Client, ResourceRef } from '../../client/types.js';

type CR = ClusterRole & KObject;
const CLUSTER_ROLE_REF: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false };

/** The aggregated rules of `role` over `all` (deduplicated, in name order of the sources). */
export function aggregateRules(role: ClusterRole, all: ClusterRole[]): PolicyRule[] {
  const sels = role.aggregationRule?.clusterRoleSelectors ?? [];
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  const sources = all.filter((r) => r.metadata?.name !== role.metadata?.name).sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const r of sources) {
    if (!sels.some((s) => labelSelectorMatches(s, r.metadata?.labels ?? {}))) continue;
    for (const rule of r.rules ?? []) {
      const k = JSON.stringify(rule);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(rule);
    }
  }
  return out;
}

export async function startClusterRoleAggregation(client: Client): Promise<{ stop(): Promise<void> }> {
  const roles = new Informer<CR>(client, CLUSTER_ROLE_REF);
  let scheduled = false;
  const run = async (): Promise<void> => {
    scheduled = false;
    const all = roles.list();
    for (const r of all) {
      if (!r.aggregationRule) continue;
      const rules = aggregateRules(r, all);
      if (JSON.stringify(rules) === JSON.stringify(r.rules ?? [])) continue;
      try {
        await client.update(CLUSTER_ROLE_REF, '', { ...r, rules });
      } catch (e) {
        if (!isNotFound(e)) {
          if (!isConflict(e)) setTimeout(kick, 1000).unref();
          else kick();
        }
      }
    }
  };
  const kick = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void run());
  };
  roles.addEventHandler({ add: kick, update: kick, delete: kick });
  roles.start();
  await roles.waitForSync();
  kick();
  return {
    async stop() {
      roles.stop();
    },
  };
}
