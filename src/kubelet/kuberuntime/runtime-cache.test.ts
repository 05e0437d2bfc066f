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
  ({
    id,
    podSandboxId: 's',
    state,
    createdAt: 0,
    labels: { [CRILabels.podUID]: uid },
    annotations: {},
    imageRef: '',
    image: { image: 'x' },
    metadata: { name: 'c', attempt: 0 },
  }) as Container;

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
  f.sbs.splice(
    f.sbs.findIndex((s) => s.id === 's1'),
    1,
  );
  f.ctrs.splice(0, f.ctrs.length, ...f.ctrs.filter((c) => c.labels[CRILabels.podUID] !== 'a'));
  assert.deepEqual(await cache.pleg(), ['a']);
  assert.deepEqual([...cache.podUIDs()], ['b']);
});

test('newPodStatus(): empty status without a list only for a pod no list showed and nobody asked about, once', async () => {
  const f = fakeRuntime();
  let lists = 0;
  const list = f.rt.listPodSandbox;
  f.rt.listPodSandbox = async (...a) => (lists++, list(...a));
  const cache = new RuntimeStatusCache(f.rt, () => 'sim');
  assert.equal(cache.newPodStatus('new', 'p', 'ns'), undefined, 'before any list the runtime may hold anything');
  f.sbs.push(sb('s1', 'old'));
  await cache.pleg();
  assert.equal(cache.newPodStatus('old', 'p', 'ns'), undefined, 'a list showed it');
  const before = lists;
  assert.deepEqual(cache.newPodStatus('new', 'p', 'ns'), { uid: 'new', name: 'p', namespace: 'ns', sandboxes: [], containers: [], ips: [] });
  assert.equal(lists, before, 'answered without a list');
  assert.equal(cache.newPodStatus('new', 'p', 'ns'), undefined, 'the worker may have acted since: read');
  await cache.podStatus('asked', '', '');
  assert.equal(cache.newPodStatus('asked', 'p', 'ns'), undefined, 'someone read its status before');
  // the pod's sandbox goes away and the kubelet forgets it: a later list must not make it "known" again only by memory
  f.sbs.length = 0;
  await cache.pleg();
  cache.forget('old');
  assert.ok(cache.newPodStatus('old', 'p', 'ns'), 'forgotten and absent from the runtime');
});

test('noteSandboxIPs(): the next relist reuses the IPs instead of PodSandboxStatus, even when a list already in flight missed the sandbox', async () => {
  const f = fakeRuntime();
  let statusCalls = 0;
  (f.rt as { podSandboxStatus: Runtime['podSandboxStatus'] }).podSandboxStatus = async () => {
    statusCalls++;
    return { network: { ip: '10.0.0.9', additionalIps: [] } } as unknown as Awaited<ReturnType<Runtime['podSandboxStatus']>>;
  };
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const list = f.rt.listPodSandbox;
  f.rt.listPodSandbox = async (...a) => {
    const out = await list(...a);
    await gate;
    return out;
  };
  const cache = new RuntimeStatusCache(f.rt, () => 'sim');
  const inflight = cache.pleg(); // lists before the sandbox exists
  await new Promise((r) => setImmediate(r));
  f.sbs.push(sb('s1', 'u'));
  cache.noteSandboxIPs('s1', ['10.0.0.7']);
  release();
  await inflight;
  const ps = await cache.podStatus('u', 'p', 'ns');
  assert.deepEqual(ps.ips, ['10.0.0.7']);
  assert.equal(statusCalls, 0);
  // once the sandbox is not ready any more the IPs are read again
  f.sbs[0] = sb('s1', 'u', 'SANDBOX_NOTREADY');
  assert.deepEqual((await cache.podStatus('u', 'p', 'ns')).ips, ['10.0.0.9']);
  assert.equal(statusCalls, 1);
});

test('podStatusNow(): lists only the pod (label selector), without waiting for a shared relist in flight', async () => {
  const f = fakeRuntime();
  const filters: unknown[] = [];
  let hold: Promise<void> | undefined;
  f.rt.listPodSandbox = async (filter) => {
    filters.push(filter);
    if (!filter) await hold;
    return f.sbs.filter((s) => !filter?.labelSelector || s.labels[CRILabels.podUID] === filter.labelSelector[CRILabels.podUID]);
  };
  (f.rt as { podSandboxStatus: Runtime['podSandboxStatus'] }).podSandboxStatus = async () =>
    ({ network: { ip: '10.0.0.3', additionalIps: [] } }) as unknown as Awaited<ReturnType<Runtime['podSandboxStatus']>>;
  (f.rt as { containerStatus: Runtime['containerStatus'] }).containerStatus = async (id) =>
    ({
      id,
      metadata: { name: 'c', attempt: 0 },
      state: 'CONTAINER_RUNNING',
      createdAt: 1,
      startedAt: 2,
      finishedAt: 0,
      exitCode: 0,
      image: { image: 'x' },
      imageRef: 'x',
      reason: '',
      message: '',
      labels: { [CRILabels.podUID]: 'u' },
      annotations: {},
      mounts: [],
      logPath: '',
    }) as unknown as Awaited<ReturnType<Runtime['containerStatus']>>;
  const cache = new RuntimeStatusCache(f.rt, () => 'sim');
  f.sbs.push(sb('s1', 'u'), sb('s2', 'other'));
  f.ctrs.push(ctr('c1', 'u', 'CONTAINER_RUNNING'), ctr('c2', 'other', 'CONTAINER_RUNNING'));
  let release!: () => void;
  hold = new Promise((r) => (release = r));
  const shared = cache.pleg(); // a relist stuck in flight
  const ps = await cache.podStatusNow('u', 'p', 'ns');
  assert.deepEqual(
    ps.sandboxes.map((s) => s.id),
    ['s1'],
  );
  assert.deepEqual(
    ps.containers.map((c) => [c.id, c.state]),
    [['c1', 'running']],
    "the other pod's container is not in it (the runtime ignored the selector for containers)",
  );
  assert.deepEqual(ps.ips, ['10.0.0.3']);
  assert.deepEqual(filters.filter(Boolean), [{ labelSelector: { [CRILabels.podUID]: 'u' } }], 'one selective list; the shared one is still held');
  release();
  await shared;
});

test('podStatusNow(changedIds): ContainerStatus of the just-started containers goes out with the lists, not after them', { timeout: 5000 }, async () => {
  const f = fakeRuntime();
  let asked!: () => void;
  const statusAsked = new Promise<void>((r) => (asked = r));
  let statusCalls = 0;
  const listContainers = f.rt.listContainers;
  f.rt.listContainers = async (filter) => {
    await statusAsked; // resolves only if the status call is already out
    return listContainers(filter);
  };
  (f.rt as { containerStatus: Runtime['containerStatus'] }).containerStatus = async (id) => {
    statusCalls++;
    asked();
    return {
      id,
      metadata: { name: 'c', attempt: 0 },
      state: 'CONTAINER_RUNNING',
      createdAt: 1,
      startedAt: 2,
      finishedAt: 0,
      exitCode: 0,
      image: { image: 'x' },
      imageRef: 'x',
      reason: '',
      message: '',
      labels: { [CRILabels.podUID]: 'u' },
      annotations: {},
      mounts: [],
      logPath: '',
    } as unknown as Awaited<ReturnType<Runtime['containerStatus']>>;
  };
  (f.rt as { podSandboxStatus: Runtime['podSandboxStatus'] }).podSandboxStatus = async () =>
    ({ network: { ip: '10.0.0.3', additionalIps: [] } }) as unknown as Awaited<ReturnType<Runtime['podSandboxStatus']>>;
  const cache = new RuntimeStatusCache(f.rt, () => 'sim');
  f.sbs.push(sb('s1', 'u'));
  f.ctrs.push(ctr('c1', 'u', 'CONTAINER_RUNNING'));
  const ps = await cache.podStatusNow('u', 'p', 'ns', ['c1']);
  assert.deepEqual(
    ps.containers.map((c) => [c.id, c.state]),
    [['c1', 'running']],
  );
  assert.equal(statusCalls, 1, 'the early answer is used, not asked again');
});
