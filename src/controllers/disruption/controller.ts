/**
 * Disruption controller: keeps every PodDisruptionBudget's status current so that the
 * eviction API (pods/eviction) can grant disruptions. For each budget: the pods its
 * selector matches in its namespace, the expected and desired healthy counts from
 * minAvailable / maxUnavailable (percentages of the pods' controllers' scale), the
 * healthy pods (Ready, not being deleted, not recently evicted), disruptionsAllowed,
 * status.disruptedPods trimmed after the 2 min DeletionTimeout, observedGeneration and
 * the DisruptionAllowed condition, written through pdb/status. A failed sync sets
 * disruptionsAllowed 0 and DisruptionAllowed=False/SyncFailed (upstream failSafe).
 * A second queue resets DisruptionTarget=True conditions left on pods that were not
 * deleted within 2 min.
 *
 * Deviation: a pod matching several budgets re-queues all of them (upstream picks one,
 * with the same MultiplePodDisruptionBudgets event).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/disruption/disruption.go
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { KObject } from '../../api/resource.js';
import { isConflict, isNotFound } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector, type Selector } from '../../apimachinery/labels.js';
import { rfc3339 } from '../../client/events.js';
import { R } from '../../client/types.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { byNamespace, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import type { Pod } from '../util/pods.js';
import { W } from '../util/resources.js';
import { realClock } from '../../util/clock.js';
import { controllerFinders, DiscoveryMapper, expectedScale } from './finders.js';
import { buildDisruptedPodMap, countHealthyPods, expectedPodCount, failSafeStatus, nextStatus, type PDB, staleDisruptionCondition } from './status.js';

/** Field manager of the DisruptionTarget reset (upstream fieldManager). */
const FIELD_MANAGER = 'DisruptionController';

const withKind = <T extends KObject>(o: T, apiVersion: string, kind: string): T => (o.kind ? o : { ...o, apiVersion, kind });
const asPDB = (p: PDB): PDB => withKind(p, 'policy/v1', 'PodDisruptionBudget');
const asPod = (p: Pod): Pod => withKind(p, 'v1', 'Pod');

/** A label selector as Go's `%v` of *metav1.LabelSelector prints it (gogo String()). */
function formatSelectorGo(ls: LabelSelector | undefined): string {
  if (!ls) return '<nil>';
  const labels = Object.keys(ls.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${ls.matchLabels![k]},`)
    .join('');
  const exprs = (ls.matchExpressions ?? []).map((r) => `LabelSelectorRequirement{Key:${r.key},Operator:${r.operator},Values:[${(r.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/**
 * Starts the disruption controller on the shared informers (pods, poddisruptionbudgets,
 * replicasets, deployments, statefulsets). Writes with `ctx.client` (ServiceAccount
 * kube-system/disruption-controller).
 */
export async function startDisruptionController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const podInformer = informers.get<Pod>(R.pods);
  const pdbInformer = informers.get<PDB>(W.poddisruptionbudgets);
  const rsInformer = informers.get<ReplicaSet & KObject>(W.replicasets);
  const depInformer = informers.get<Deployment & KObject>(W.deployments);
  const stsInformer = informers.get<StatefulSet & KObject>(W.statefulsets);
  const podsByNs = new Index(podInformer, byNamespace);
  const pdbsByNs = new Index(pdbInformer, byNamespace);
  const finders = controllerFinders(client, new DiscoveryMapper(client), rsInformer, depInformer, stsInformer);

  // parsed selectors per budget, reused while the budget's resourceVersion is unchanged
  const selectors = new Map<string, { rv: string | undefined; sel?: Selector; err?: Error }>();
  const selectorOf = (pdb: PDB): { sel?: Selector; err?: Error } => {
    const k = `${pdb.metadata?.namespace}/${pdb.metadata?.name}`;
    let s = selectors.get(k);
    if (s && s.rv === pdb.metadata?.resourceVersion) return s;
    try {
      s = { rv: pdb.metadata?.resourceVersion, sel: labelSelectorAsSelector(pdb.spec?.selector) };
    } catch (e) {
      s = { rv: pdb.metadata?.resourceVersion, err: e instanceof Error ? e : new Error(String(e)) };
    }
    selectors.set(k, s);
    return s;
  };

  const loop = new ControllerLoop({ name: 'disruption-controller', clock, workers: ctx.workers, sync: (k) => sync(k) });
  const staleLoop = new ControllerLoop({ name: 'disruption-controller', clock, workers: ctx.workers, sync: (k) => syncStalePodDisruption(k) });

  /** The budgets selecting `pod` (upstream GetPodPodDisruptionBudgets: an empty selector matches every pod). */
  const pdbsForPod = (pod: Pod): PDB[] => {
    const out: PDB[] = [];
    const labels = pod.metadata?.labels ?? {};
    for (const pdb of pdbsByNs.get(pod.metadata?.namespace ?? '')) {
      const { sel } = selectorOf(pdb);
      if (sel && sel.matches(labels)) out.push(pdb);
    }
    return out;
  };
  const enqueueForPod = (pod: Pod): void => {
    const pdbs = pdbsForPod(pod);
    if (pdbs.length > 1) {
      const msg = `Pod "${pod.metadata?.namespace}"/"${pod.metadata?.name}" matches multiple PodDisruptionBudgets.  Chose "${pdbs[0]!.metadata?.name}" arbitrarily.`;
      recorder.event(asPod(pod), 'Warning', 'MultiplePodDisruptionBudgets', msg);
    }
    for (const p of pdbs) loop.enqueueObj(p);
  };
  const checkStale = (pod: Pod): void => {
    const { has, waitMs } = staleDisruptionCondition(pod, clock.now());
    if (has) staleLoop.enqueueAfter(`${pod.metadata?.namespace}/${pod.metadata?.name}`, waitMs);
  };

  pdbInformer.addEventHandler({
    add: (p) => loop.enqueueObj(p),
    update: (_o, p) => loop.enqueueObj(p),
    delete: (p) => {
      selectors.delete(`${p.metadata?.namespace}/${p.metadata?.name}`);
      loop.enqueueObj(p);
    },
  });
  podInformer.addEventHandler({
    add: (p) => {
      enqueueForPod(p);
      checkStale(p);
    },
    update: (o, p) => {
      if (o.metadata?.resourceVersion === p.metadata?.resourceVersion) return;
      enqueueForPod(p);
      const ol = o.metadata?.labels ?? {};
      const nl = p.metadata?.labels ?? {};
      const changed = Object.keys(ol).length !== Object.keys(nl).length || Object.keys(ol).some((k) => ol[k] !== nl[k]);
      if (changed) enqueueForPod(o);
      checkStale(p);
    },
    delete: enqueueForPod,
  });

  async function writeStatus(pdb: PDB): Promise<void> {
    await client.update<PDB>(W.poddisruptionbudgets, pdb.metadata?.namespace ?? '', pdb, { subresource: 'status' });
  }

  /** Upstream trySync. @throws on failure (the caller turns it into failSafe) */
  async function trySync(pdb: PDB): Promise<void> {
    const ns = pdb.metadata?.namespace ?? '';
    const { sel, err } = selectorOf(pdb);
    if (!sel) {
      recorder.event(asPDB(pdb), 'Warning', 'NoPods', `Failed to get pods: ${err?.message ?? 'invalid selector'}`);
      throw err ?? new Error('invalid selector');
    }
    const pods: Pod[] = [];
    for (const p of podsByNs.get(ns)) if (sel.matches(p.metadata?.labels ?? {})) pods.push(p);
    if (pods.length === 0) recorder.event(asPDB(pdb), 'Normal', 'NoPods', 'No matching pods found');

    let unmanaged: string[] = [];
    let counts: { expectedCount: number; desiredHealthy: number };
    try {
      counts = await expectedPodCount(pdb, pods.length, async () => {
        const r = await expectedScale(pods, finders);
        unmanaged = r.unmanaged;
        return r.expectedCount;
      });
    } catch (e) {
      recorder.event(asPDB(pdb), 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
    if (unmanaged.length > 0) {
      recorder.event(
        asPDB(pdb),
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${formatSelectorGo(pdb.spec?.selector)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      );
    }

    const now = clock.now();
    const { disrupted, expired, recheckAt } = buildDisruptedPodMap(pods, pdb, now);
    // upstream prints the budget's namespace twice in this message
    for (const pod of expired) recorder.event(asPod(pod), 'Warning', 'NotDeleted', `Pod was expected by PDB ${ns}/${ns} to be deleted but it wasn't`);
    const currentHealthy = countHealthyPods(pods, disrupted, now);
    const next = nextStatus(pdb, { currentHealthy, desiredHealthy: counts.desiredHealthy, expectedCount: counts.expectedCount, disrupted }, now);
    if (next) await writeStatus(next);
    if (recheckAt !== undefined) loop.enqueueAfter(`${ns}/${pdb.metadata?.name}`, recheckAt - now);
  }

  async function sync(key: string): Promise<void> {
    const pdb = pdbInformer.get(key);
    if (!pdb) {
      selectors.delete(key);
      return;
    }
    try {
      await trySync(pdb);
    } catch (e) {
      if (isConflict(e)) throw e;
      await writeStatus(failSafeStatus(pdb, e, clock.now()));
    }
  }

  /** Upstream syncStalePodDisruption: DisruptionTarget=False on a pod evicted > 2 min ago but still alive. */
  async function syncStalePodDisruption(key: string): Promise<void> {
    const pod = podInformer.get(key);
    if (!pod) return;
    const { has, waitMs } = staleDisruptionCondition(pod, clock.now());
    if (!has) return;
    if (waitMs > 0) {
      staleLoop.enqueueAfter(key, waitMs);
      return;
    }
    const [ns, name] = splitKey(key);
    const patch = {
      metadata: { resourceVersion: pod.metadata?.resourceVersion },
      status: { conditions: [{ type: 'DisruptionTarget', status: 'False', lastTransitionTime: rfc3339(new Date(clock.now())) }] },
    };
    try {
      await client.patch(R.pods, ns, name, 'strategic', patch, { subresource: 'status', fieldManager: FIELD_MANAGER });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  const all = [podInformer, pdbInformer, rsInformer, depInformer, stsInformer];
  for (const inf of all) inf.start();
  await Promise.all(all.map((i) => i.waitForSync()));
  loop.run();
  staleLoop.run();
  return {
    async stop() {
      await loop.stop();
      await staleLoop.stop();
    },
  };
}
