/**
 * EndpointSlice controller: for every Service with a selector, EndpointSlices
 * (`<svc>-<random>`, labels `kubernetes.io/service-name` and
 * `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`, owned by the
 * Service) holding its pods' endpoints with ready/serving/terminating conditions,
 * targetRef, nodeName and zone, at most 100 per slice, updated in place. Slices of a
 * deleted Service go with it through the garbage collector (owner reference).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/endpointslice/endpointslice_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/endpointslice/reconciler.go
 */
import { StatusError } from '../../apimachinery/errors.js';
import { R } from '../../client/types.js';
import { LAST_CHANGE_TRIGGER_TIME, rfc3339Nano, type Service, ServiceSelectorCache, TriggerTimeTracker, watchServicesAndPods } from '../endpoint/util.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { byNamespace, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import type { Pod } from '../util/pods.js';
import { realClock } from '../../util/clock.js';
import { CONTROLLER_NAME, type EndpointSlice, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, MAX_ENDPOINTS_PER_SLICE, type Node, planSlices, type SlicePlan } from './reconciler.js';
import { EndpointSliceTracker } from './tracker.js';

/** The informer cache lags our own writes; the sync is retried. */
class StaleInformerCache extends Error {}

/** A failed slice write (the API error as `cause`). */
class SliceWriteError extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

const errMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const isManaged = (s: EndpointSlice): boolean => s.metadata?.labels?.[LABEL_MANAGED_BY] === CONTROLLER_NAME;
const serviceKeyOfSlice = (s: EndpointSlice): string | undefined => {
  const name = s.metadata?.labels?.[LABEL_SERVICE_NAME];
  return name ? `${s.metadata?.namespace}/${name}` : undefined;
};

function setTriggerTime(s: EndpointSlice, t: number | undefined): EndpointSlice {
  const annotations = { ...s.metadata?.annotations };
  if (t !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME] = rfc3339Nano(t);
  else delete annotations[LAST_CHANGE_TRIGGER_TIME];
  const metadata = { ...s.metadata };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...s, metadata };
}

/** Options beyond the shared context (tests). */
interface EndpointSliceControllerOptions {
  /** endpoints per slice (upstream --max-endpoints-per-slice, default 100) */
  maxEndpointsPerSlice?: number;
}

/**
 * Starts the EndpointSlice controller on the shared informers (services, pods, nodes,
 * endpointslices). Writes with `ctx.client` (ServiceAccount kube-system/endpointslice-controller).
 */
export async function startEndpointSliceController(ctx: WorkloadControllerContext & EndpointSliceControllerOptions): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const max = ctx.maxEndpointsPerSlice ?? MAX_ENDPOINTS_PER_SLICE;
  const svcInformer = informers.get<Service>(R.services);
  const podInformer = informers.get<Pod>(R.pods);
  const nodeInformer = informers.get<Node>(R.nodes);
  const sliceInformer = informers.get<EndpointSlice>(R.endpointslices);
  const svcByNs = new Index(svcInformer, byNamespace);
  const podsByNs = new Index(podInformer, byNamespace);
  const slicesByService = new Index(sliceInformer, (s) => {
    const k = isManaged(s) ? serviceKeyOfSlice(s) : undefined;
    return k ? [k] : [];
  });
  const selectors = new ServiceSelectorCache();
  const triggers = new TriggerTimeTracker();
  const tracker = new EndpointSliceTracker();

  const loop = new ControllerLoop({
    name: 'endpointslice-controller',
    clock,
    workers: ctx.workers,
    sync: (k) => sync(k),
    onError: (key, err, retries) => {
      if (err instanceof StaleInformerCache) return;
      if (err instanceof StatusError && (err.reason === 'Conflict' || err.reason === 'NotFound' || err.reason === 'AlreadyExists')) return;
      if (retries % 10 === 0) console.warn(`endpointslice-controller: error syncing ${JSON.stringify(key)}: ${err instanceof Error ? err.message : String(err)}`);
    },
  });

  const enqueueForSlice = (s: EndpointSlice): void => {
    const k = serviceKeyOfSlice(s);
    if (k) loop.enqueue(k);
  };

  watchServicesAndPods(svcInformer, podInformer, (ns) => svcByNs.get(ns), selectors, loop);
  // services that left out pods of a node not yet known: resynced when it appears
  const waitingForNode = new Map<string, Set<string>>();
  nodeInformer.addEventHandler({
    add: (n) => {
      const keys = waitingForNode.get(n.metadata?.name ?? '');
      if (!keys) return;
      waitingForNode.delete(n.metadata?.name ?? '');
      for (const k of keys) loop.enqueue(k);
    },
  });
  sliceInformer.addEventHandler({
    add: (s) => {
      if (isManaged(s) && tracker.shouldSync(s)) enqueueForSlice(s);
    },
    update: (o, s) => {
      // the service-name label is not part of the generation: follow changes to it
      if (serviceKeyOfSlice(o) !== serviceKeyOfSlice(s) || isManaged(o) !== isManaged(s)) {
        enqueueForSlice(o);
        enqueueForSlice(s);
      } else if (isManaged(s) && tracker.shouldSync(s)) enqueueForSlice(s);
    },
    delete: (s) => {
      if (isManaged(s) && tracker.has(s) && !tracker.handleDeletion(s)) enqueueForSlice(s);
    },
  });

  async function sync(key: string): Promise<void> {
    const [ns] = splitKey(key);
    const svc = svcInformer.get(key);
    if (!svc) {
      triggers.delete(key);
      tracker.deleteService(key);
      return;
    }
    if (svc.spec?.type === 'ExternalName') return;
    const sel = selectors.get(svc);
    if (!sel) return;
    const pods: Pod[] = [];
    for (const p of podsByNs.get(ns)) if (sel.matches(p.metadata?.labels ?? {})) pods.push(p);
    pods.sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    const all = slicesByService.get(key);
    if (tracker.staleSlices(key, all)) throw new StaleInformerCache(`EndpointSlice informer cache is out of date for ${key}`);
    const slices = all.filter((s) => !s.metadata?.deletionTimestamp);
    const trigger = triggers.compute(key, svc, pods);
    const plan = planSlices(svc, pods, slices, (n) => nodeInformer.get(n), max);
    const errs: string[] = [];
    let cause: unknown;
    for (const m of plan.missingNodes) {
      errs.push(`skipping Pod ${m.pod} for Service ${key}: Node ${m.node} Not Found`);
      let keys = waitingForNode.get(m.node);
      if (!keys) waitingForNode.set(m.node, (keys = new Set()));
      keys.add(key);
    }
    try {
      await writePlan(ns, key, svc, plan, trigger);
    } catch (e) {
      cause = e instanceof SliceWriteError ? e.cause : e;
      errs.push(e instanceof Error ? e.message : String(e));
    }
    if (errs.length === 0) return;
    // upstream: an aggregate error, "[a, b]" when several
    const msg = errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
    recorder.event(svc, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${key}: ${msg}`);
    throw cause instanceof StatusError && cause.reason === 'Conflict' ? cause : new Error(msg);
  }

  /** Upstream finalize: creates (unless the Service is being deleted), updates, deletes; stops at the first failure. */
  async function writePlan(ns: string, key: string, svc: Service, plan: SlicePlan, trigger: number | undefined): Promise<void> {
    if (!svc.metadata?.deletionTimestamp) {
      for (const s of plan.create) {
        try {
          tracker.update(await client.create<EndpointSlice>(R.endpointslices, ns, setTriggerTime(s, trigger)));
        } catch (e) {
          if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
          throw new SliceWriteError(`failed to create EndpointSlice for Service ${key}: ${errMessage(e)}`, e);
        }
      }
    }
    for (const s of plan.update) {
      try {
        tracker.update(await client.update<EndpointSlice>(R.endpointslices, ns, setTriggerTime(s, trigger)));
      } catch (e) {
        throw new SliceWriteError(`failed to update ${s.metadata?.name} EndpointSlice for Service ${key}: ${errMessage(e)}`, e);
      }
    }
    for (const s of plan.delete) {
      try {
        await client.delete(R.endpointslices, ns, s.metadata!.name!);
      } catch (e) {
        if (!(e instanceof StatusError && e.reason === 'NotFound'))
          throw new SliceWriteError(`failed to delete ${s.metadata?.name} EndpointSlice for Service ${key}: ${errMessage(e)}`, e);
      }
      tracker.expectDeletion(s);
    }
  }

  for (const inf of [svcInformer, podInformer, nodeInformer, sliceInformer]) inf.start();
  await Promise.all([svcInformer.waitForSync(), podInformer.waitForSync(), nodeInformer.waitForSync(), sliceInformer.waitForSync()]);
  loop.run();
  return { stop: () => loop.stop() };
}
