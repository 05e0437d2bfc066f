import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { CycleState } from '../framework/cycle-state.js';
import { staticListers, type StaticObjects } from '../framework/listers.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Snapshot } from '../framework/snapshot.js';
import { Code } from '../framework/status.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { nodeInfoOf, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import * as VB from './VolumeBinding.js';
import * as VR from './VolumeRestrictions.js';
import { R } from '../../client/types.js';

const claimVol = (claimName: string) => ({ name: 'v', persistentVolumeClaim: { claimName } });
const pvc = (name: string, spec: PersistentVolumeClaim['spec'] = {}, extra: Partial<PersistentVolumeClaim> = {}): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'default' },
  spec,
  ...extra,
});

/** The resourceVersion of claim default/c once PreBind has written its selected-node annotation. */
async function waitPatched(client: FakeClient): Promise<string> {
  for (;;) {
    const c = client.peek(R.persistentvolumeclaims, 'default', 'c');
    if (c?.metadata?.annotations?.[VB.ANN_SELECTED_NODE]) return c.metadata.resourceVersion ?? '0';
    await new Promise((r) => setImmediate(r));
  }
}

function run(plugin: 'VR' | 'VB', pod: Pod, infos: NodeInfo[], objs: StaticObjects, client = new FakeClient()) {
  const h = testHandle(Snapshot.from(infos), { listers: staticListers(objs), client });
  const pl = plugin === 'VR' ? VR.New(undefined, h) : VB.New(undefined, h);
  const state = new CycleState();
  const [, ps] = pl.preFilter(state, pod, infos);
  if (ps) return { pre: `${Code[ps.code]}: ${ps.message()}`, nodes: {} as Record<string, string>, state, pl };
  const nodes: Record<string, string> = {};
  for (const ni of infos) {
    const s = pl.filter(state, pod, ni);
    nodes[ni.name] = s ? `${Code[s.code]}: ${s.message()}` : 'ok';
  }
  return { pre: 'ok', nodes, state, pl };
}

describe('VolumeRestrictions', () => {
  const n = () => [nodeInfoOf(makeNode().name('n1').obj())];

  it('PreFilter: a missing PVC is unschedulable and unresolvable with the lister message (pvc-pod.yaml)', () => {
    const pod = makePod()
      .name('task-pv-pod')
      .volume({ name: 'task-pv-storage', persistentVolumeClaim: { claimName: 'task-pv-claim' } })
      .obj();
    assert.equal(run('VR', pod, n(), {}).pre, 'UnschedulableAndUnresolvable: persistentvolumeclaim "task-pv-claim" not found');
  });

  it('skips pods without volumes needing checks', () => {
    assert.equal(run('VR', makePod().obj(), n(), {}).pre, 'Skip: ');
    assert.equal(run('VR', makePod().volume(claimVol('c')).obj(), n(), { pvcs: [pvc('c', { accessModes: ['ReadWriteOnce'] })] }).pre, 'Skip: ');
  });

  it('ReadWriteOncePod: a claim used by another pod blocks every node', () => {
    const user = makePod().name('user').volume(claimVol('c')).obj();
    const infos = [nodeInfoOf(makeNode().name('n1').obj(), user), nodeInfoOf(makeNode().name('n2').obj())];
    const r = run('VR', makePod().name('p').volume(claimVol('c')).obj(), infos, { pvcs: [pvc('c', { accessModes: ['ReadWriteOncePod'] })] });
    assert.deepEqual(r.nodes, { n1: `Unschedulable: ${VR.ErrReasonReadWriteOncePodConflict}`, n2: `Unschedulable: ${VR.ErrReasonReadWriteOncePodConflict}` });
    // preemption removing the user frees the claim
    const copy = r.state.clone();
    (r.pl as VR.VolumeRestrictions).removePod(copy, makePod().obj(), infos[0]!.pods[0]!);
    assert.equal((r.pl as VR.VolumeRestrictions).filter(copy, makePod().name('p').volume(claimVol('c')).obj(), infos[1]!), null);
  });

  it('GCE PD: the same disk read-write on one node conflicts', () => {
    const gce = (readOnly: boolean) => ({ name: 'd', gcePersistentDisk: { pdName: 'disk-1', readOnly } });
    const infos = [nodeInfoOf(makeNode().name('n1').obj(), makePod().name('e').volume(gce(false)).obj()), nodeInfoOf(makeNode().name('n2').obj())];
    assert.deepEqual(run('VR', makePod().name('p').volume(gce(false)).obj(), infos, {}).nodes, { n1: `Unschedulable: ${VR.ErrReasonDiskConflict}`, n2: 'ok' });
    const ro = [nodeInfoOf(makeNode().name('n1').obj(), makePod().name('e').volume(gce(true)).obj())];
    assert.deepEqual(run('VR', makePod().name('p').volume(gce(true)).obj(), ro, {}).nodes, { n1: 'ok' }, 'both read-only');
  });
});

describe('VolumeBinding', () => {
  const sc = (name: string, mode: string, provisioner = 'example.com/csi'): StorageClass => ({ metadata: { name }, provisioner, volumeBindingMode: mode });
  const pv = (name: string, zone?: string, extra: PersistentVolume['spec'] = {}): PersistentVolume => ({
    metadata: { name },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      ...(zone ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: [zone] }] }] } } } : {}),
      ...extra,
    },
  });
  const nodes = () => [nodeInfoOf(makeNode().name('a').label('zone', 'A').obj()), nodeInfoOf(makeNode().name('b').label('zone', 'B').obj())];

  it('PreFilter messages as upstream', () => {
    const pod = makePod().name('p').volume(claimVol('c')).obj();
    assert.equal(run('VB', pod, nodes(), {}).pre, 'UnschedulableAndUnresolvable: persistentvolumeclaim "c" not found');
    assert.equal(run('VB', pod, nodes(), { pvcs: [pvc('c', {})] }).pre, `UnschedulableAndUnresolvable: ${VB.ErrUnboundImmediate}`);
    assert.equal(
      run('VB', pod, nodes(), { pvcs: [pvc('c', { volumeName: 'pv1' }, { status: { phase: 'Lost' } })] }).pre,
      'UnschedulableAndUnresolvable: persistentvolumeclaim "c" bound to non-existent persistentvolume "pv1"',
    );
    const eph = makePod()
      .name('p')
      .volume({ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } })
      .obj();
    assert.equal(run('VB', eph, nodes(), {}).pre, 'UnschedulableAndUnresolvable: waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"');
    assert.equal(run('VB', makePod().obj(), nodes(), {}).pre, 'Skip: ');
  });

  it('bound claims: the PV must exist and its node affinity admit the node', () => {
    const pod = makePod().name('p').volume(claimVol('c')).obj();
    const objs = { pvcs: [pvc('c', { volumeName: 'pv1' })], pvs: [pv('pv1', 'A')] };
    assert.deepEqual(run('VB', pod, nodes(), objs).nodes, { a: 'ok', b: `UnschedulableAndUnresolvable: ${VB.ErrReasonNodeConflict}` });
    assert.deepEqual(run('VB', pod, nodes(), { pvcs: objs.pvcs }).nodes.a, `UnschedulableAndUnresolvable: ${VB.ErrReasonPVNotExist}`);
  });

  it('WaitForFirstConsumer: a matching PV or a provisioner; PreBind marks the selected node', async () => {
    const pod = makePod().name('p').volume(claimVol('c')).obj();
    const claim = pvc('c', { storageClassName: 'wait', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
    const noProv = { pvcs: [claim], storageClasses: [sc('wait', 'WaitForFirstConsumer', 'kubernetes.io/no-provisioner')], pvs: [pv('local-a', 'A', { storageClassName: 'wait' })] };
    assert.deepEqual(run('VB', pod, nodes(), noProv).nodes, { a: 'ok', b: `UnschedulableAndUnresolvable: ${VB.ErrReasonBindConflict}` });
    const client = new FakeClient();
    await client.create(R.persistentvolumeclaims, 'default', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...claim } as never);
    const prov = run('VB', pod, nodes(), { pvcs: [claim], storageClasses: [sc('wait', 'WaitForFirstConsumer')], pods: [pod] }, client);
    assert.deepEqual(prov.nodes, { a: 'ok', b: 'ok' });
    const preBind = (prov.pl as VB.VolumeBinding).preBind(prov.state, pod, 'b');
    // PreBind waits until the provisioner and the PV controller have bound the claim
    claim.metadata!.annotations = { [VB.ANN_SELECTED_NODE]: 'b', 'pv.kubernetes.io/bind-completed': 'yes' };
    claim.spec!.volumeName = 'pvc-c';
    assert.equal(await preBind, null);
    const got = client.peek(R.persistentvolumeclaims, 'default', 'c');
    assert.equal(got?.metadata?.annotations?.[VB.ANN_SELECTED_NODE], 'b');
  });

  it('WaitForFirstConsumer with static PVs: PreBind binds the smallest fitting volume on the chosen node to the claim', async () => {
    const pod = makePod().name('p').volume(claimVol('c')).obj();
    const claim = pvc('c', { storageClassName: 'wait', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, {
      metadata: { name: 'c', namespace: 'default', uid: 'uid-c' },
    } as never);
    const big = pv('big-a', 'A', { storageClassName: 'wait', capacity: { storage: '50Gi' } });
    const small = pv('small-a', 'A', { storageClassName: 'wait', capacity: { storage: '2Gi' } });
    const client = new FakeClient();
    for (const v of [big, small]) await client.create(R.persistentvolumes, '', { apiVersion: 'v1', kind: 'PersistentVolume', ...v } as never);
    const objs = { pvcs: [claim], storageClasses: [sc('wait', 'WaitForFirstConsumer', 'kubernetes.io/no-provisioner')], pvs: [big, small], pods: [pod] };
    const r = run('VB', pod, nodes(), objs, client);
    assert.deepEqual(r.nodes, { a: 'ok', b: `UnschedulableAndUnresolvable: ${VB.ErrReasonBindConflict}` });
    const preBind = (r.pl as VB.VolumeBinding).preBind(r.state, pod, 'a');
    // PreBind waits until the PV controller has completed the binding on the claim's side
    small.spec!.claimRef = { namespace: 'default', name: 'c', uid: 'uid-c' };
    claim.metadata!.annotations = { 'pv.kubernetes.io/bind-completed': 'yes' };
    claim.spec!.volumeName = 'small-a';
    assert.equal(await preBind, null);
    const got = client.peek(R.persistentvolumes, '', 'small-a') as PersistentVolume | undefined;
    assert.equal(got?.spec?.claimRef?.name, 'c');
    assert.equal(got?.spec?.claimRef?.namespace, 'default');
    assert.equal(got?.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
    assert.equal((client.peek(R.persistentvolumes, '', 'big-a') as PersistentVolume | undefined)?.spec?.claimRef, undefined);
  });

  it('PreBind: a provisioner that gave up (selected-node removed) or a deleted pod fails the binding cycle', async () => {
    const pod = makePod().name('p').volume(claimVol('c')).obj();
    const claim = pvc('c', { storageClassName: 'wait', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
    const client = new FakeClient();
    await client.create(R.persistentvolumeclaims, 'default', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...claim } as never);
    const objs = { pvcs: [claim], storageClasses: [sc('wait', 'WaitForFirstConsumer')], pods: [pod] };
    const r = run('VB', pod, nodes(), objs, client);
    // a cache older than PreBind's write is waited for; then it shows the claim without the annotation
    (claim.metadata as { resourceVersion?: string }).resourceVersion = '0';
    const preBind = (r.pl as VB.VolumeBinding).preBind(r.state, pod, 'b');
    const written = await waitPatched(client);
    (claim.metadata as { resourceVersion?: string }).resourceVersion = String(Number(written) + 1);
    const s = await preBind;
    assert.equal(s?.code, Code.Error);
    assert.equal(s?.message(), 'binding volumes: provisioning failed for PVC "c"');

    const r2 = run('VB', pod, nodes(), { ...objs, pods: [] }, client);
    claim.metadata!.annotations = { [VB.ANN_SELECTED_NODE]: 'b' };
    const s2 = await (r2.pl as VB.VolumeBinding).preBind(r2.state, pod, 'b');
    assert.equal(s2?.message(), 'binding volumes: pod does not exist any more: pods "p" not found');
  });

  it('storage capacity: a CSI driver with storageCapacity provisions only where a CSIStorageCapacity of the class has room', () => {
    const pod = makePod().name('p').volume(claimVol('c')).obj();
    const claim = pvc('c', { storageClassName: 'local', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
    const cap = (name: string, zone: string, capacity: string) => ({
      metadata: { name, namespace: 'kube-system' },
      storageClassName: 'local',
      nodeTopology: { matchLabels: { zone } },
      capacity,
    });
    const objs = {
      pvcs: [claim],
      storageClasses: [sc('local', 'WaitForFirstConsumer', 'local.csi.example.com')],
      csiDrivers: [{ metadata: { name: 'local.csi.example.com' }, spec: { storageCapacity: true } }],
      csiStorageCapacities: [cap('a', 'A', '10Gi'), cap('b', 'B', '100Mi')],
    };
    assert.deepEqual(run('VB', pod, nodes(), objs).nodes, { a: 'ok', b: `UnschedulableAndUnresolvable: ${VB.ErrReasonNotEnoughSpace}` });
    // without storageCapacity in its CSIDriver, capacity is not consulted
    assert.deepEqual(run('VB', pod, nodes(), { ...objs, csiDrivers: [] }).nodes, { a: 'ok', b: 'ok' });
  });
});
