/**
 * Node health as the node lifecycle controller judges it (upstream tryUpdateNodeHealth):
 * a node is heard from when its Ready condition's heartbeat changes or its Lease in
 * kube-node-lease is renewed; after the grace period without either (the startup grace
 * period while the kubelet never posted a Ready condition) its Ready, MemoryPressure,
 * DiskPressure and PIDPressure conditions become Unknown.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/nodelifecycle/node_lifecycle_controller.go (tryUpdateNodeHealth)
 */
import type { Node as NodeT, NodeCondition } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { KObject } from '../../api/resource.js';

export type Node = NodeT & KObject;

/** What the controller remembers of a node between passes (upstream nodeHealthData). */
export interface NodeHealth {
  /** when the node was last heard from (ms since the epoch) */
  probeTimestamp: number;
  /** the Ready condition as last seen */
  readyHeartbeat?: string;
  readyTransition?: string;
  /** the Lease's spec.renewTime as last seen */
  leaseRenewTime?: string;
}

export interface HealthOptions {
  /** grace for a node whose kubelet posted status before (upstream --node-monitor-grace-period, 50 s in v1.32) */
  monitorGracePeriodMs: number;
  /** grace for a node whose kubelet never posted status (upstream --node-startup-grace-period, 60 s) */
  startupGracePeriodMs: number;
}

/** Upstream defaults of kube-controller-manager v1.32. */
export const DEFAULT_HEALTH_OPTIONS: HealthOptions = { monitorGracePeriodMs: 50_000, startupGracePeriodMs: 60_000 };

/** Conditions the controller sets to Unknown (NetworkUnavailable is managed elsewhere). */
const MONITORED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

interface HealthResult {
  health: NodeHealth;
  /** the Ready condition before this pass (synthesized Unknown when never posted) */
  observedReady: NodeCondition;
  /** the Ready condition after this pass; undefined while a node that never posted is in its startup grace */
  currentReady?: NodeCondition;
  /** the node with the Unknown conditions, to write through nodes/status; undefined when nothing changes */
  update?: Node;
}

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function condition(node: Node, type: string): NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === type);
}

/**
 * One health check of `node` at `now` (ms): updates the remembered health and, once the
 * grace period has passed, returns the node with Unknown conditions — reason
 * `NodeStatusNeverUpdated` / `Kubelet never posted node status.` for conditions the kubelet
 * never posted, `NodeStatusUnknown` / `Kubelet stopped posting node status.` for the others.
 */
export function tryUpdateNodeHealth(node: Node, saved: NodeHealth | undefined, lease: Lease | undefined, now: number, opts: HealthOptions): HealthResult {
  const created = node.metadata?.creationTimestamp ?? rfc3339(now);
  const ready = condition(node, 'Ready');
  const observedReady: NodeCondition = ready ? { ...ready } : { type: 'Ready', status: 'Unknown', lastHeartbeatTime: created, lastTransitionTime: created };
  const grace = ready ? opts.monitorGracePeriodMs : opts.startupGracePeriodMs;
  let health: NodeHealth;
  if (!saved) {
    // first sight: a node that never posted counts from its creation, any other from now
    health = { probeTimestamp: ready ? now : Date.parse(created), readyHeartbeat: ready?.lastHeartbeatTime, readyTransition: ready?.lastTransitionTime };
  } else if (ready && (saved.readyHeartbeat === undefined || saved.readyHeartbeat !== ready.lastHeartbeatTime)) {
    health = { ...saved, probeTimestamp: now, readyHeartbeat: ready.lastHeartbeatTime, readyTransition: ready.lastTransitionTime };
  } else if (!ready && saved.readyHeartbeat !== undefined) {
    // the Ready condition was removed: start over from now
    health = { ...saved, probeTimestamp: now, readyHeartbeat: undefined, readyTransition: undefined };
  } else {
    health = { ...saved };
  }
  const renew = lease?.spec?.renewTime;
  if (renew && (health.leaseRenewTime === undefined || Date.parse(health.leaseRenewTime) < Date.parse(renew))) {
    health.leaseRenewTime = renew;
    health.probeTimestamp = now;
  }
  if (now <= health.probeTimestamp + grace) return { health, observedReady, currentReady: ready };

  const stamp = rfc3339(now);
  const conds: NodeCondition[] = (node.status?.conditions ?? []).map((c) =>
    MONITORED_CONDITIONS.includes(c.type) && c.status !== 'Unknown'
      ? { ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: stamp }
      : c,
  );
  for (const type of MONITORED_CONDITIONS) {
    if (!conds.some((x) => x.type === type)) {
      conds.push({
        type,
        status: 'Unknown',
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
        lastHeartbeatTime: created,
        lastTransitionTime: stamp,
      });
    }
  }
  const next: Node = { ...node, status: { ...node.status, conditions: conds } };
  const currentReady = conds.find((x) => x.type === 'Ready');
  const changed = JSON.stringify(currentReady) !== JSON.stringify(ready ? observedReady : undefined);
  return { health, observedReady, currentReady, update: changed ? next : undefined };
}
