/**
 * Node lifecycle controller (kube-controller-manager's node-lifecycle-controller, with
 * taint-based eviction): every node monitor period (5 s) it checks each node's health
 * ({@link tryUpdateNodeHealth}): a node not heard from — no new Ready heartbeat, no Lease
 * renewal — for the grace period gets Unknown conditions through nodes/status; when a node
 * stops being Ready it records `NodeNotReady` on the node and marks its pods not ready.
 * A node whose Ready condition is False or Unknown gets the `not-ready` / `unreachable`
 * NoExecute taint, unless every node of every zone is unready (upstream's full disruption
 * mode, which removes those taints instead). On every node change it keeps the NoSchedule
 * taints matching the node's conditions and spec.unschedulable.
 *
 * Not done here: the eviction rate limits (0.1 node/s) and the pod eviction itself (the
 * taint eviction controller).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/nodelifecycle/node_lifecycle_controller.go
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { NodeCondition, Pod as PodT } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { isConflict, isNotFound } from '../../apimachinery/errors.js';
import { R } from '../../client/types.js';
import { realClock, type TimerHandle } from '../../util/clock.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { DEFAULT_HEALTH_OPTIONS, type HealthOptions, type Node, type NodeHealth, tryUpdateNodeHealth } from './health.js';
import { applyTaintChange, noExecuteTaintChange, noScheduleTaintChange, type TaintChange } from './taints.js';

type Pod = PodT & KObject;

interface NodeLifecycleOptions extends WorkloadControllerContext {
  /** how often node health is checked (upstream --node-monitor-period, 5 s) */
  monitorPeriodMs?: number;
  /** grace periods (upstream --node-monitor-grace-period 50 s, --node-startup-grace-period 60 s) */
  health?: Partial<HealthOptions>;
}

const NODE_LEASE_NAMESPACE = 'kube-node-lease';

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Upstream GetZoneKey: region and zone labels, '' for neither. */
function zoneKey(n: Node): string {
  const l = n.metadata?.labels ?? {};
  const region = l['topology.kubernetes.io/region'] ?? '';
  const zone = l['topology.kubernetes.io/zone'] ?? '';
  return region || zone ? `${region}:\u0000:${zone}` : '';
}

/** Starts the controller on the shared informers (nodes, leases, pods). */
export async function startNodeLifecycleController(ctx: NodeLifecycleOptions): Promise<RunningController> {
  const { client, informers, recorder } = ctx;
  const clock = ctx.clock ?? realClock;
  const period = ctx.monitorPeriodMs ?? 5000;
  const opts: HealthOptions = { ...DEFAULT_HEALTH_OPTIONS, ...ctx.health };
  const nodes = informers.get<Node>(R.nodes);
  const leases = informers.get<Lease & KObject>(R.leases);
  const pods = informers.get<Pod>(R.pods);
  const healthOf = new Map<string, NodeHealth>();

  /** Writes the node's taints with `change` applied (resourceVersion as precondition). */
  async function swapTaints(node: Node, change: TaintChange): Promise<void> {
    const taints = applyTaintChange(node, change, rfc3339(clock.now()));
    if (!taints) return;
    await client.patch(R.nodes, '', node.metadata!.name!, 'merge', {
      metadata: { resourceVersion: node.metadata?.resourceVersion },
      spec: { taints: taints.length ? taints : null },
    });
  }

  // NoSchedule taints follow every node change (upstream nodeUpdateQueue / doNoScheduleTaintingPass)
  const loop = new ControllerLoop({
    name: 'node-lifecycle-controller',
    clock,
    workers: ctx.workers,
    sync: async (key) => {
      const node = nodes.getByName('', splitKey(key)[1]);
      if (node) await swapTaints(node, noScheduleTaintChange(node));
    },
  });
  nodes.addEventHandler({
    add: (n) => loop.enqueueObj(n),
    update: (_o, n) => loop.enqueueObj(n),
    delete: (n) => healthOf.delete(n.metadata?.name ?? ''),
  });

  /** Upstream MarkPodsNotReady: the node's pods get Ready=False and a `NodeNotReady` event. */
  async function markPodsNotReady(nodeName: string): Promise<void> {
    for (const p of pods.list()) {
      if (p.spec?.nodeName !== nodeName) continue;
      const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      const next = structuredClone(p);
      const c = next.status!.conditions!.find((x) => x.type === 'Ready')!;
      c.status = 'False';
      c.lastTransitionTime = rfc3339(clock.now());
      try {
        await client.update(R.pods, p.metadata!.namespace!, next, { subresource: 'status' });
        recorder.event(p, 'Warning', 'NodeNotReady', 'Node is not ready');
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
    }
  }

  /** One pass over every node (upstream monitorNodeHealth). */
  async function monitorNodeHealth(): Promise<void> {
    const now = clock.now();
    const zones = new Map<string, (NodeCondition | undefined)[]>();
    const tainting: { node: Node; observed: string; current: string }[] = [];
    for (const node of nodes.list()) {
      const name = node.metadata!.name!;
      const r = tryUpdateNodeHealth(node, healthOf.get(name), leases.getByName(NODE_LEASE_NAMESPACE, name), now, opts);
      let latest = node;
      if (r.update) {
        try {
          latest = await client.update<Node>(R.nodes, '', r.update, { subresource: 'status' });
        } catch (e) {
          if (isConflict(e) || isNotFound(e)) continue; // retried on the next pass
          throw e;
        }
      }
      healthOf.set(name, r.health);
      const zone = zoneKey(node);
      if (!zones.has(zone)) zones.set(zone, []);
      zones.get(zone)!.push(r.currentReady);
      if (!r.currentReady) continue;
      tainting.push({ node: latest, observed: r.observedReady.status, current: r.currentReady.status });
      if (r.currentReady.status !== 'True' && r.observedReady.status === 'True') {
        recorder.event(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        await markPodsNotReady(name);
      }
    }
    // upstream ComputeZoneState: a zone without a Ready node is fully disrupted
    const disrupted = new Set<string>();
    for (const [zone, conds] of zones) if (conds.length && conds.every((c) => c?.status !== 'True')) disrupted.add(zone);
    const allDisrupted = zones.size > 0 && disrupted.size === zones.size;
    for (const t of tainting) {
      let change: TaintChange;
      if (allDisrupted || t.observed === 'True')
        change = noExecuteTaintChange(t.node, 'True'); // reachable: no NoExecute taint
      else if (disrupted.has(zoneKey(t.node)))
        continue; // the zone's evictions stop
      else change = noExecuteTaintChange(t.node, t.current);
      try {
        await swapTaints(t.node, change);
      } catch (e) {
        if (!isConflict(e) && !isNotFound(e)) throw e;
      }
    }
  }

  let stopped = false;
  let timer: TimerHandle | undefined;
  let pass: Promise<void> = Promise.resolve();
  const tick = (): void => {
    pass = monitorNodeHealth()
      .catch((e: unknown) => console.warn(`node-lifecycle-controller: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        if (!stopped) timer = clock.setTimeout(tick, period);
      });
  };

  informers.start();
  await informers.waitForSync();
  loop.run();
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      await pass;
      await loop.stop();
    },
  };
}
