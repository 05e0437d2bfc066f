/**
 * Test harness: a kubelet on a SimRuntime and a FakeClient, all on one FakeClock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import { SimRuntime } from '../../cri/sim/runtime.js';
import { startKubelet, type KubeletHandle } from '../index.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { FakeClock } from '../../util/fake-clock.js';

export const NODE = 'node-1';

export interface Harness {
  clock: FakeClock;
  client: FakeClient;
  runtime: SimRuntime;
  dataDir: string;
  kubelet: KubeletHandle;
  start(): Promise<KubeletHandle>;
  /** creates a pod bound to the node, defaulted like the API server would */
  createPod(p: Pod): Promise<Pod>;
  pod(name: string, ns?: string): Pod | undefined;
  events(name?: string): { reason: string; message: string; type: string; fieldPath?: string; count: number }[];
  until(cond: () => boolean, maxMs?: number, step?: number): Promise<void>;
  close(): Promise<void>;
}

export async function newHarness(opts: { start?: boolean; staticPodPath?: string } = {}): Promise<Harness> {
  const clock = new FakeClock();
  const client = new FakeClient({ now: () => clock.now(), gracefulPodDeletion: true });
  const runtime = new SimRuntime({ clock });
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-kubelet-'));
  const h: Harness = {
    clock,
    client,
    runtime,
    dataDir,
    kubelet: undefined as unknown as KubeletHandle,
    async start() {
      h.kubelet = await startKubelet({
        client,
        runtime,
        nodeName: NODE,
        dataDir,
        podCIDR: '10.244.1.0/24',
        clock,
        cpu: 4,
        memory: '8Gi',
        nodeIP: '192.0.2.10',
        staticPodPath: opts.staticPodPath,
        log: process.env.K8TS_TEST_DEBUG ? (m, e) => console.error(m, e) : undefined,
      });
      return h.kubelet;
    },
    async createPod(p) {
      const spec = p.spec!;
      const pod: Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        ...p,
        metadata: { namespace: 'default', ...p.metadata },
        spec: {
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          enableServiceLinks: true,
          serviceAccountName: 'default',
          nodeName: NODE,
          ...spec,
          containers: spec.containers.map((c) => ({ terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', ...c })),
        },
        status: {
          phase: 'Pending',
          qosClass: 'BestEffort',
          conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null as unknown as string, lastTransitionTime: '2025-01-01T00:00:00Z' }],
        },
      };
      return (await client.create(R.pods, pod.metadata!.namespace!, pod as KObject)) as Pod;
    },
    pod(name, ns = 'default') {
      return client.peek<Pod & KObject>(R.pods, ns, name);
    },
    events(name) {
      return client
        .all<KObject>(R.events)
        .filter((e) => !name || (e.involvedObject as { name?: string }).name === name)
        .map((e) => ({
          reason: e.reason as string,
          message: e.message as string,
          type: e.type as string,
          fieldPath: (e.involvedObject as { fieldPath?: string }).fieldPath,
          count: e.count as number,
        }));
    },
    async until(cond, maxMs = 10_000, step = 100) {
      const ok = await clock.advanceUntil(cond, maxMs, step);
      if (!ok) throw new Error(`condition not reached within ${maxMs} ms of fake time`);
    },
    async close() {
      await h.kubelet?.stop();
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (opts.start !== false) await h.start();
  return h;
}
