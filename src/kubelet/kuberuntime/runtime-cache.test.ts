import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CRILabels, type Container, type PodSandbox, type Runtime } from '../../cri/api.js';
import { RuntimeStatusCache } from './runtime-cache.js';

/** A runtime whose lists are whatever the test puts in `sbs` / `ctrs` (only the calls the cache makes). */
function fakeRuntime(): { rt: Runtime; sbs: PodSandbox[]; ctrs: Container[] } {
  const f = { sbs: [] as PodSandbox[], ctrs: [] as Container[], rt: undefined as unknown as Runtime };
  f.rt = {
    listPodSandbox: async () => [...f.sbs],
    listContainers: async () => [...f.ctrs],
  } as unknown as Runtime;
  return f;
}
const sb = (id: string, uid: string, state: PodSandbox['state'] = 'SANDBOX_READY'): PodSandbox =>
  ({ id, state, createdAt: 0, labels: { [CRILabels.podUID]: uid }, annotations: {}, metadata: { name: 'p', uid, namespace: 'ns', attempt: 0 } }) as PodSandbox;
const ctr = (id: string, uid: string, state: Container['state']): Container =>
  ({ id, podSandboxId: 's', state, createdAt: 0, labels: { [CRILabels.podUID]: uid }, annotations: {}, imageRef: '', image: { image: 'x' }, metadata: { name: 'c', attempt: 0 } }) as Container;

test('pleg(): names the pods whose sandboxes or containers appeared, changed state or vanished, whichever list saw it first', async () => {
  const f = fakeRuntime();
  const cache = new RuntimeStatusCache(f.rt, () => 'sim');
  f.sbs.push(sb('s1', 'a'), sb('s2', 'b'));
  f.ctrs.push(ctr('c1', 'a', 'CONTAINER_RUNNING'), ctr('c2', 'a', 'CONTAINER_EXITED'), ctr('c3', 'b', 'CONTAINER_RUNNING'));
  assert.deepEqual((await cache.pleg()).sort(), ['a', 'b'], 'first relist: every pod is new');
  assert.deepEqual(await cache.pleg(), [], 'nothing changed');
  // the runtime lists in another order (containerd's map order): not a change
  f.ctrs.reverse();
  f.sbs.reverse();
  assert.deepEqual(await cache.pleg(), []);
  // b's container dies; a pod worker's own relist sees it first, the PLEG still reports it
  f.ctrs[f.ctrs.findIndex((c) => c.id === 'c3')] = ctr('c3', 'b', 'CONTAINER_EXITED');
  await cache.podStatus('zzz', '', '').catch(() => undefined);
  assert.deepEqual(await cache.pleg(), ['b']);
  assert.deepEqual([...cache.podUIDs()].sort(), ['a', 'b']);
  // a's sandbox and containers are removed
  f.sbs.splice(f.sbs.findIndex((s) => s.id === 's1'), 1);
  f.ctrs.splice(0, f.ctrs.length, ...f.ctrs.filter((c) => c.labels[CRILabels.podUID] !== 'a'));
  assert.deepEqual(await cache.pleg(), ['a']);
  assert.deepEqual([...cache.podUIDs()], ['b']);
});
