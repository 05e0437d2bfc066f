/**
 * Serves trace.k8ts.io/v1alpha1 podtraces (get, list, watch; read-only, computed from the
 * pod trace recorder) and feeds the recorder what only storage sees: a store consumer
 * that listens to the pods' watch cache records the binding's commit (spec.nodeName
 * set), each status commit of a bound pod, Ready=True and phase Running as they are
 * stored, and drops a pod's trace when the pod is deleted.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { VirtualResource } from '../../api/authorization/virtual.js';
import type { KObject } from '../../api/resource.js';
import { podTraceDefinition, TRACE_GROUP, TRACE_VERSION } from '../../api/trace/v1alpha1/podtrace/definition.js';
import { toPodTrace } from '../../trace/podtrace.js';
import type { PodKey, PodTraceRecorder } from '../../trace/recorder.js';
import type { StoreConsumer } from '../apiserver.js';
import type { CacheEvent } from '../registry/watch-cache.js';

const keyOf = (p: Pod): PodKey => ({ uid: p.metadata?.uid ?? '', namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' });
const isReady = (p: Pod | undefined): boolean => !!p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** Records what a stored pod change means for its trace. */
function onPodEvent(recorder: PodTraceRecorder, ev: CacheEvent): void {
  const pod = ev.object.obj as Pod;
  const uid = pod.metadata?.uid;
  if (!uid) return;
  if (ev.type === 'DELETED') {
    recorder.drop(uid);
    return;
  }
  if (ev.type === 'ADDED') {
    // the create request's steps are in (RequestMarks.committing); storage committed now
    if (recorder.has(uid)) recorder.step(keyOf(pod), 'StorageCommit');
    return;
  }
  if (!recorder.has(uid)) return;
  const prev = ev.prev?.obj as Pod | undefined;
  const key = keyOf(pod);
  if (pod.spec?.nodeName && !prev?.spec?.nodeName) {
    recorder.step(key, 'BindingCommit', { detail: pod.spec.nodeName });
    return;
  }
  if (!pod.spec?.nodeName || isDeepStrictEqual(prev?.status, pod.status)) return;
  const phase = pod.status?.phase ?? '';
  if (phase === 'Running' && prev?.status?.phase !== 'Running') recorder.step(key, 'Running');
  else recorder.step(key, 'StatusCommit', { detail: phase });
  if (isReady(pod) && !isReady(prev)) recorder.step(key, 'Ready');
}

/** The podtraces resource over `recorder`, and the pods listener that completes its traces. */
export function podTraceResource(recorder: PodTraceRecorder): VirtualResource & StoreConsumer {
  const asObject = (t: NonNullable<ReturnType<PodTraceRecorder['get']>>): KObject => toPodTrace(t, recorder.now());
  return {
    group: TRACE_GROUP,
    version: TRACE_VERSION,
    resource: 'podtraces',
    kind: 'PodTrace',
    namespaced: true,
    attach(api) {
      const pods = api.store('', 'pods');
      pods?.cache.addListener({ onEvent: (ev) => onPodEvent(recorder, ev) });
    },
    read: {
      def: podTraceDefinition,
      async get(name, namespace) {
        const t = recorder.get(namespace, name);
        return t && asObject(t);
      },
      async list(namespace) {
        return recorder.list(namespace).map(asObject);
      },
      watch(namespace, send) {
        return recorder.subscribe((c) => {
          if (namespace && c.pod.namespace !== namespace) return;
          const t = c.read();
          if (t) send(t.steps.length === 1 ? 'ADDED' : 'MODIFIED', asObject(t));
          else
            send('DELETED', {
              apiVersion: `${TRACE_GROUP}/${TRACE_VERSION}`,
              kind: 'PodTrace',
              metadata: { name: c.pod.name, namespace: c.pod.namespace, uid: c.pod.uid, resourceVersion: String(recorder.resourceVersion) },
            });
        });
      },
    },
  };
}
