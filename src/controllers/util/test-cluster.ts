/**
 * An in-process API server (SQLite in a temp dir, every built-in definition, no
 * authorization) for controller tests, with an admin client and helpers to wait for
 * conditions and to mark pods Running/Ready or finished as a kubelet would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allDefinitions } from '../../api/all.js';
import type { KObject } from '../../api/resource.js';
import { APIServer } from '../../apiserver/apiserver.js';
import { scaleSubresources } from '../../apiserver/subresources/scale.js';
import { podEviction } from '../../apiserver/subresources/pod-eviction.js';
import { podBinding } from '../../apiserver/subresources/pod-binding.js';
import type { EventRecorder } from '../../client/events.js';
import { RestClient } from '../../client/rest-client.js';
import { InProcessTransport } from '../../apiserver/loopback.js';
import { type Client, R } from '../../client/types.js';
import { openStorage } from '../../storage/index.js';
import type { Storage } from '../../storage/interface.js';
import { SharedInformers } from './informers.js';
import type { Pod } from './pods.js';

/** Recorded events: `Type Reason Message`. */
export class MemoryRecorder implements EventRecorder {
  readonly events: { obj: KObject; type: string; reason: string; message: string }[] = [];
  event(obj: KObject, type: string, reason: string, message: string): void {
    this.events.push({ obj, type, reason, message });
  }
  /** `Reason: message` lines */
  lines(): string[] {
    return this.events.map((e) => `${e.reason}: ${e.message}`);
  }
}

export interface TestCluster {
  api: APIServer;
  client: Client;
  informers: SharedInformers;
  recorder: MemoryRecorder;
  stop(): Promise<void>;
}

/** Starts the server with a `default` namespace. */
export async function startTestCluster(): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-ctrl-'));
  const storage: Storage = await openStorage({ kind: 'sqlite', dataDir: dir });
  const api = new APIServer({
    storage,
    definitions: allDefinitions({ serviceCIDR: '10.96.0.0/12' }),
    subresources: [...scaleSubresources, podEviction, podBinding],
    serverAddress: '127.0.0.1:6443',
  });
  await api.start();
  const client = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters', 'system:authenticated'] }));
  await client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const informers = new SharedInformers(client);
  return {
    api,
    client,
    informers,
    recorder: new MemoryRecorder(),
    async stop() {
      informers.stop();
      api.stop();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `fn` (every 10 ms) until it returns a truthy value; throws after `timeoutMs`. */
export async function waitFor<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const ts = (d = new Date()): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Binds the pod to `node` and reports it Running and Ready (what scheduler + kubelet would do). */
export async function makePodReady(client: Client, pod: Pod, node = 'node-1', readyAt = new Date()): Promise<Pod> {
  const ns = pod.metadata!.namespace!;
  const name = pod.metadata!.name!;
  if (!pod.spec?.nodeName) {
    await client.createSubresource(R.pods, ns, name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } });
  }
  const cur = await client.get<Pod>(R.pods, ns, name);
  const t = ts(readyAt);
  (cur as { status?: unknown }).status = {
    ...cur.status,
    phase: 'Running',
    podIP: '10.42.0.10',
    podIPs: [{ ip: '10.42.0.10' }],
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: t },
      { type: 'Initialized', status: 'True', lastTransitionTime: t },
      { type: 'ContainersReady', status: 'True', lastTransitionTime: t },
      { type: 'Ready', status: 'True', lastTransitionTime: t },
    ],
  };
  return client.update<Pod>(R.pods, ns, cur, { subresource: 'status' });
}

/** Reports the pod finished with `phase` (Succeeded or Failed) and container exit code. */
async function finishPod(client: Client, pod: Pod, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Succeeded' ? 0 : 1, node = 'node-1'): Promise<Pod> {
  const ns = pod.metadata!.namespace!;
  const name = pod.metadata!.name!;
  if (!pod.spec?.nodeName) {
    await client.createSubresource(R.pods, ns, name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } });
  }
  const cur = await client.get<Pod>(R.pods, ns, name);
  const c = cur.spec!.containers[0]!;
  (cur as { status?: unknown }).status = {
    ...cur.status,
    phase,
    conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: ts(), reason: 'PodCompleted' }],
    containerStatuses: [
      {
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: ts(), finishedAt: ts() } },
      },
    ],
  };
  return client.update<Pod>(R.pods, ns, cur, { subresource: 'status' });
}

/** The pods of namespace `ns` (optionally by label selector). */
export async function listPods(client: Client, ns = 'default', labelSelector?: string): Promise<Pod[]> {
  return (await client.list<Pod>(R.pods, ns, { labelSelector })).items;
}

/**
 * A stand-in kubelet for controller tests: binds and readies every new pod (unless
 * `behave` says otherwise) and removes pods once they are marked for deletion.
 * @param behave per pod: 'ready' (default), 'succeed', 'fail' or 'ignore'
 */
export function startFakeKubelet(client: Client, behave: (p: Pod) => 'ready' | 'succeed' | 'fail' | 'ignore' = () => 'ready'): { stop(): void } {
  const informer = new SharedInformers(client).get<Pod>(R.pods);
  const busy = new Set<string>();
  const handle = (p: Pod): void => {
    const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
    if (busy.has(key)) return;
    const ns = p.metadata!.namespace!;
    const name = p.metadata!.name!;
    let work: Promise<unknown> | undefined;
    if (p.metadata?.deletionTimestamp) {
      if (p.metadata.finalizers?.length) return;
      work = client.delete(R.pods, ns, name, { gracePeriodSeconds: 0 });
    } else if (p.status?.phase === 'Pending') {
      const b = behave(p);
      if (b === 'ready') work = makePodReady(client, p);
      else if (b === 'succeed') work = finishPod(client, p, 'Succeeded');
      else if (b === 'fail') work = finishPod(client, p, 'Failed');
    }
    if (!work) return;
    busy.add(key);
    void work.catch(() => undefined).finally(() => busy.delete(key));
  };
  informer.addEventHandler({ add: handle, update: (_o, p) => handle(p) });
  informer.start();
  return { stop: () => informer.stop() };
}
