import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { makeTempDir } from '../../../test/support/tmp.js';
import { PodCgroups, podResourceConfig, sharesToWeight } from './pod-cgroups.js';

const MI = 2 ** 20;
const pod = (uid: string, containers: NonNullable<Pod['spec']>['containers'], initContainers?: NonNullable<Pod['spec']>['initContainers']): Pod => ({
  metadata: { uid, name: uid, namespace: 'default' },
  spec: { containers, initContainers },
});
const guaranteed = pod('g', [
  { name: 'a', resources: { requests: { cpu: '500m', memory: '100Mi' }, limits: { cpu: '500m', memory: '100Mi' } } },
  { name: 'b', resources: { requests: { cpu: '250m', memory: '50Mi' }, limits: { cpu: '250m', memory: '50Mi' } } },
]);
const burstable = pod('b', [{ name: 'a', resources: { requests: { cpu: '100m' }, limits: { memory: '64Mi' } } }, { name: 'b' }]);
const besteffort = pod('e', [{ name: 'a' }]);

test('pod resource config: summed requests → shares; quota and memory only when every container has that limit', () => {
  assert.deepEqual(podResourceConfig(guaranteed), { cpuShares: 768, cpuPeriod: 100000, cpuQuota: 75000, memoryLimit: 150 * MI });
  assert.deepEqual(podResourceConfig(burstable), { cpuShares: 102 }, 'b has no limits: no pod-level limit');
  assert.deepEqual(podResourceConfig(besteffort), { cpuShares: 2 });
  const withInit = pod(
    'i',
    [{ name: 'a', resources: { limits: { memory: '10Mi' }, requests: { memory: '10Mi' } } }],
    [{ name: 'init', resources: { limits: { memory: '30Mi' }, requests: { memory: '30Mi' } } }],
  );
  assert.equal(podResourceConfig(withInit).memoryLimit, 30 * MI, 'an init container’s larger limit counts');
  assert.deepEqual([2, 1024, 262144].map(sharesToWeight), [1, 39, 10000]);
});

function fakeV1(): { root: string; remove(): void } {
  const d = makeTempDir();
  for (const c of ['cpu', 'cpuacct', 'memory', 'pids', 'cpuset', 'freezer']) fs.mkdirSync(join(d.path, c));
  fs.symlinkSync('cpu', join(d.path, 'cpu,cpuacct'));
  return { root: d.path, remove: () => d.remove() };
}

test('cgroup v1: pod cgroups per QoS class under <root>/kubepods with limits; removed in every hierarchy', async () => {
  const fsr = fakeV1();
  try {
    const cg = new PodCgroups('/k8ts-test', { fsRoot: fsr.root, rmdir: (d) => fs.rmSync(d, { recursive: true }) });
    assert.equal(cg.podCgroup(guaranteed), '/k8ts-test/kubepods/podg');
    assert.equal(cg.podCgroup(burstable), '/k8ts-test/kubepods/burstable/podb');
    assert.equal(cg.podCgroup(besteffort), '/k8ts-test/kubepods/besteffort/pode');
    assert.equal(await cg.ensure(guaranteed), '/k8ts-test/kubepods/podg');
    const cpu = join(fsr.root, 'cpu', 'k8ts-test', 'kubepods', 'podg');
    assert.equal(fs.readFileSync(join(cpu, 'cpu.shares'), 'utf8'), '768');
    assert.equal(fs.readFileSync(join(cpu, 'cpu.cfs_quota_us'), 'utf8'), '75000');
    assert.equal(fs.readFileSync(join(cpu, 'cpu.cfs_period_us'), 'utf8'), '100000');
    assert.equal(fs.readFileSync(join(fsr.root, 'memory', 'k8ts-test', 'kubepods', 'podg', 'memory.limit_in_bytes'), 'utf8'), String(150 * MI));
    await cg.ensure(besteffort);
    assert.equal(fs.readFileSync(join(fsr.root, 'cpu', 'k8ts-test', 'kubepods', 'besteffort', 'pode', 'cpu.shares'), 'utf8'), '2');
    assert.ok(!fs.existsSync(join(fsr.root, 'memory', 'k8ts-test', 'kubepods', 'besteffort', 'pode', 'memory.limit_in_bytes')));
    // runc made a container cgroup in a hierarchy the kubelet does not write to
    fs.mkdirSync(join(fsr.root, 'freezer', 'k8ts-test', 'kubepods', 'podg', 'ctr1'), { recursive: true });
    assert.deepEqual(cg.podsOnDisk().sort(), ['e', 'g']);
    assert.ok(cg.exists('g'));
    assert.equal(cg.remove('g'), true);
    assert.ok(!cg.exists('g'));
    assert.ok(!fs.existsSync(join(fsr.root, 'freezer', 'k8ts-test', 'kubepods', 'podg')));
    assert.deepEqual(cg.podsOnDisk(), ['e']);
  } finally {
    fsr.remove();
  }
});

test('cgroup v2: one hierarchy, cpu.weight / cpu.max / memory.max', async () => {
  const d = makeTempDir();
  try {
    fs.writeFileSync(join(d.path, 'cgroup.controllers'), 'cpu memory pids');
    fs.writeFileSync(join(d.path, 'cgroup.subtree_control'), '');
    const cg = new PodCgroups('/', { fsRoot: d.path, rmdir: (x) => fs.rmSync(x, { recursive: true }) });
    assert.equal(await cg.ensure(guaranteed), '/kubepods/podg');
    const dir = join(d.path, 'kubepods', 'podg');
    assert.equal(fs.readFileSync(join(dir, 'cpu.max'), 'utf8'), '75000 100000');
    assert.equal(fs.readFileSync(join(dir, 'memory.max'), 'utf8'), String(150 * MI));
    assert.equal(fs.readFileSync(join(dir, 'cpu.weight'), 'utf8'), String(sharesToWeight(768)));
    assert.equal(cg.remove('g'), true);
    assert.ok(!fs.existsSync(dir));
  } finally {
    d.remove();
  }
});

test('cgroup v1: an existing pod cgroup is left as it is; one missing in some hierarchy gets the limits everywhere', async () => {
  const fsr = fakeV1();
  try {
    const cg = new PodCgroups('/', { fsRoot: fsr.root, rmdir: (d) => fs.rmSync(d, { recursive: true }) });
    await cg.ensure(guaranteed);
    const shares = join(fsr.root, 'cpu', 'kubepods', 'podg', 'cpu.shares');
    fs.writeFileSync(shares, '999'); // changed by someone else since
    await cg.ensure(guaranteed);
    assert.equal(fs.readFileSync(shares, 'utf8'), '999', 'not rewritten on every sync');
    fs.rmSync(join(fsr.root, 'memory', 'kubepods', 'podg'), { recursive: true });
    await cg.ensure(guaranteed);
    assert.equal(fs.readFileSync(join(fsr.root, 'memory', 'kubepods', 'podg', 'memory.limit_in_bytes'), 'utf8'), String(150 * MI));
    assert.equal(fs.readFileSync(shares, 'utf8'), '768', 'a re-created cgroup gets all its limits');
  } finally {
    fsr.remove();
  }
});
