/**
 * The horizontal-pod-autoscaler controller: every HorizontalPodAutoscaler (autoscaling/v2)
 * is reconciled once it appears or its spec changes, then every sync period (upstream
 * --horizontal-pod-autoscaler-sync-period, 15 s), through {@link reconcileAutoscaler};
 * the status is written through horizontalpodautoscalers/status when it changed
 * (upstream updateStatusIfNeeded). The target is reached through its scale subresource,
 * its resource found by discovery.
 *
 * Deviation: upstream queues every HPA event after the sync period (a fixed-interval
 * rate limiter), so its first reconcile comes up to 15 s after creation; k8ts reconciles
 * a new or changed HPA at once.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/horizontal.go
 */
import { jsonEqual } from '../../apimachinery/validation.js';
import { R, type ResourceRef } from '../../client/types.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { DiscoveryMapper } from '../disruption/finders.js';
import { ControllerLoop } from '../util/loop.js';
import { realClock } from '../../util/clock.js';
import { restCustomMetricsClient, restMetricsClient } from './metrics.js';
import { DEFAULT_HPA_CONFIG, type HPAConfig } from './config.js';
import { type HPA, type MetricsClient, reconcileAutoscaler, type ReconcileDeps, type Scale } from './reconcile.js';

/** autoscaling/v2 horizontalpodautoscalers. */
export const HPA_RESOURCE: ResourceRef = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true };

export interface HPAControllerOptions {
  /** kube-controller-manager's `--horizontal-pod-autoscaler-*` settings (default: upstream's) */
  config?: Partial<HPAConfig>;
  /** resource metrics source (default: the API server's metrics.k8s.io) */
  metrics?: MetricsClient;
}

/**
 * Starts the controller on the shared informers. Writes with `ctx.client` (ServiceAccount
 * kube-system/horizontal-pod-autoscaler) and records events as `horizontal-pod-autoscaler`.
 */
export async function startHorizontalPodAutoscalerController(ctx: WorkloadControllerContext, opts: HPAControllerOptions = {}): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const config: HPAConfig = { ...DEFAULT_HPA_CONFIG, ...opts.config };
  const period = config.syncPeriodMs;
  const hpaInformer = informers.get<HPA>(HPA_RESOURCE);
  const mapper = new DiscoveryMapper(client);
  const deps: ReconcileDeps = {
    async getScale(apiVersion, kind, ns, name) {
      const { ref } = await mapper.mapping(apiVersion, kind);
      const scale = await client.get<Scale>(ref, ns, name, { subresource: 'scale' });
      return { scale, resource: ref };
    },
    async updateScale(resource, ns, scale) {
      await client.update<Scale>(resource, ns, scale, { subresource: 'scale' });
    },
    metrics: opts.metrics ?? {
      ...restMetricsClient(client),
      ...restCustomMetricsClient(client, async (apiVersion, kind) => (await mapper.mapping(apiVersion, kind)).ref.resource),
    },
    async listPods(ns, selector) {
      return (await client.list<Pod & KObject>(R.pods, ns, { labelSelector: selector })).items;
    },
    history: new Map(),
    recorder,
    config,
    now: () => clock.now(),
  };

  const loop = new ControllerLoop({ name: 'horizontal-pod-autoscaler', clock, workers: ctx.workers, sync });
  hpaInformer.addEventHandler({
    add: (h) => loop.enqueueObj(h),
    update: (o, h) => {
      if (o.metadata?.generation !== h.metadata?.generation) loop.enqueueObj(h);
    },
    // upstream forgets a deleted HPA's recommendations and scale events
    delete: (h) => deps.history?.delete(`${h.metadata?.namespace ?? ''}/${h.metadata?.name ?? ''}`),
  });

  async function sync(key: string): Promise<void> {
    const hpa = hpaInformer.get(key);
    if (!hpa || hpa.metadata?.deletionTimestamp) return;
    // the next resync is queued first: a failed write is retried one period later, as upstream
    loop.enqueueAfter(key, period);
    const { status } = await reconcileAutoscaler(hpa, deps);
    if (jsonEqual(status, hpa.status ?? {})) return;
    await client.update<HPA>(HPA_RESOURCE, hpa.metadata?.namespace ?? '', { ...hpa, status }, { subresource: 'status' });
  }

  hpaInformer.start();
  await hpaInformer.waitForSync();
  loop.run();
  return {
    async stop() {
      await loop.stop();
    },
  };
}
