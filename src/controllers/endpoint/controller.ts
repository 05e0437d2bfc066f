/**
 * Endpoints controller: for every Service with a selector, an Endpoints object of the
 * same name listing the selected pods' addresses (ready in `addresses`, others in
 * `notReadyAddresses`) per port set, labelled with the Service's labels (plus
 * `service.kubernetes.io/headless` for headless Services), annotated with
 * `endpoints.kubernetes.io/last-change-trigger-time` and, past 1000 addresses,
 * `endpoints.kubernetes.io/over-capacity: truncated`. Services without a selector keep
 * whatever Endpoints they have; the Endpoints of a deleted Service are deleted, and at
 * start-up Endpoints without a Service are too (except leader-election records).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/endpoint/endpoints_controller.go
 */
import type { Endpoints as KEndpoints } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { isNotFound, StatusError } from '../../apimachinery/errors.js';
import { keyOf } from '../../client/informer.js';
import { R } from '../../client/types.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { byNamespace, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import type { Pod } from '../util/pods.js';
import { realClock } from '../../util/clock.js';
import { OVER_CAPACITY_ANNOTATION, podSubsets, repackSubsets, subsetsEqual, truncateSubsets } from './subsets.js';
import { HEADLESS_LABEL, isServiceIPSet, LAST_CHANGE_TRIGGER_TIME, rfc3339Nano, type Service, ServiceSelectorCache, TriggerTimeTracker, watchServicesAndPods } from './util.js';

export type Endpoints = KEndpoints & KObject;

/** Annotation of a leader-election record kept in an Endpoints object (never deleted as leftover). */
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

function labelsEqual(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = a ? Object.keys(a) : [];
  const bk = b ? Object.keys(b) : [];
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (a![k] !== b?.[k]) return false;
  return true;
}

/**
 * The Endpoints `svc` should have given its pods (upstream syncService after the pod
 * list), or undefined when the existing object is already right.
 * @param current the existing Endpoints (undefined: none yet)
 * @param triggerTime ms of the earliest unreflected change, if any
 */
export function desiredEndpoints(svc: Service, pods: readonly Pod[], current: Endpoints | undefined, triggerTime: number | undefined): Endpoints | undefined {
  const subsets = repackSubsets(podSubsets(svc, pods).subsets);
  // truncated before comparing (upstream compares the untruncated subsets, which makes
  // it rewrite an over-capacity Endpoints on every sync)
  const truncated = truncateSubsets(subsets);
  const svcLabels = svc.metadata?.labels;
  if (current?.metadata?.resourceVersion) {
    let compare = current.metadata.labels;
    if (compare && HEADLESS_LABEL in compare) {
      compare = { ...compare };
      delete compare[HEADLESS_LABEL];
    }
    const capacityOK = (current.metadata.annotations?.[OVER_CAPACITY_ANNOTATION] !== undefined) === truncated;
    if (capacityOK && subsetsEqual(current.subsets, subsets) && labelsEqual(compare, svcLabels)) return undefined;
  }
  const next: Endpoints = current ? structuredClone(current) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: svc.metadata?.name, namespace: svc.metadata?.namespace } };
  next.apiVersion = 'v1';
  next.kind = 'Endpoints';
  const meta = next.metadata!;
  const annotations = (meta.annotations ??= {});
  if (triggerTime !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME] = rfc3339Nano(triggerTime);
  else delete annotations[LAST_CHANGE_TRIGGER_TIME];
  if (truncated) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
  else delete annotations[OVER_CAPACITY_ANNOTATION];
  if (Object.keys(annotations).length === 0) delete meta.annotations;
  const labels: Record<string, string> = { ...svcLabels };
  if (!isServiceIPSet(svc)) labels[HEADLESS_LABEL] = '';
  if (Object.keys(labels).length) meta.labels = labels;
  else delete meta.labels;
  next.subsets = subsets;
  return next;
}

/**
 * Starts the Endpoints controller on the shared informers (services, pods, endpoints).
 * Writes with `ctx.client` (ServiceAccount kube-system/endpoint-controller).
 */
export async function startEndpointsController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const svcInformer = informers.get<Service>(R.services);
  const podInformer = informers.get<Pod>(R.pods);
  const epInformer = informers.get<Endpoints>(R.endpoints);
  const svcByNs = new Index(svcInformer, byNamespace);
  const podsByNs = new Index(podInformer, byNamespace);
  const selectors = new ServiceSelectorCache();
  const triggers = new TriggerTimeTracker();
  // our last write per Service: used while the informer has not caught up with it, so
  // that a sync right after a write does not conflict with ourselves
  const written = new Map<string, Endpoints>();
  const newer = (a: Endpoints, b: Endpoints): boolean => Number(a.metadata?.resourceVersion ?? 0) > Number(b.metadata?.resourceVersion ?? 0);

  const loop = new ControllerLoop({ name: 'endpoint-controller', clock, workers: ctx.workers, sync: (k) => sync(k) });

  watchServicesAndPods(svcInformer, podInformer, (ns) => svcByNs.get(ns), selectors, loop);
  // an Endpoints object deleted behind our back is recreated when its Service still wants one
  epInformer.addEventHandler({
    delete: (ep) => {
      written.delete(keyOf(ep));
      loop.enqueueObj(ep);
    },
  });

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const svc = svcInformer.get(key);
    if (!svc) {
      triggers.delete(key);
      written.delete(key);
      try {
        await client.delete(R.endpoints, ns, name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      return;
    }
    // services of type ExternalName and services without a selector get nothing from us
    if (svc.spec?.type === 'ExternalName') return;
    const sel = selectors.get(svc);
    if (!sel) return;
    const pods: Pod[] = [];
    for (const p of podsByNs.get(ns)) if (sel.matches(p.metadata?.labels ?? {})) pods.push(p);
    pods.sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    const trigger = triggers.compute(key, svc, pods);
    let current = epInformer.get(key);
    const mine = written.get(key);
    if (mine && (!current || newer(mine, current))) current = mine;
    else if (mine) written.delete(key);
    const next = desiredEndpoints(svc, pods, current, trigger);
    if (!next) return;
    const create = !current?.metadata?.resourceVersion;
    try {
      written.set(key, create ? await client.create<Endpoints>(R.endpoints, ns, next) : await client.update<Endpoints>(R.endpoints, ns, next));
    } catch (e) {
      if (create && e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
      written.delete(key);
      const msg = e instanceof Error ? e.message : String(e);
      if (create) recorder.event(next, 'Warning', 'FailedToCreateEndpoint', `Failed to create endpoint for service ${ns}/${name}: ${msg}`);
      else recorder.event(next, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${ns}/${name}: ${msg}`);
      throw e;
    }
  }

  for (const inf of [svcInformer, podInformer, epInformer]) inf.start();
  await Promise.all([svcInformer.waitForSync(), podInformer.waitForSync(), epInformer.waitForSync()]);
  // upstream checkLeftoverEndpoints: Endpoints without a Service are queued (and deleted)
  for (const ep of epInformer.list()) {
    if (ep.metadata?.annotations?.[LEADER_ANNOTATION] !== undefined) continue;
    if (!svcInformer.get(keyOf(ep))) loop.enqueueObj(ep);
  }
  loop.run();
  return { stop: () => loop.stop() };
}
