import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { CgroupStatsProvider } from './cgroups.js';

const NOW = Date.parse('2026-01-01T00:00:10.250Z');
const POD = {
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] },
  status: { startTime: '2026-01-01T00:00:00Z', containerStatuses: [{ name: 'c', containerID: 'containerd://abc', state: { running: { startedAt: '2026-01-01T00:00:01Z' } } }] },
} as unknown as Pod;

function write(root: string, rel: string, files: Record<string, string>): void {
  mkdirSync(join(root, rel), { recursive: true });
  for (const [f, v] of Object.entries(files)) writeFileSync(join(root, rel, f), v);
}

test('cgroup v1: cpuacct.usage and memory usage less total_inactive_file, per container and pod', async () => {
  const fs = mkdtempSync(join(tmpdir(), 'k8ts-cg1-'));
  try {
    // a Burstable pod's cgroup under --cgroup-root /
    write(fs, 'cpuacct/kubepods/burstable/podu1/abc', { 'cpuacct.usage': '1500000000\n' });
    write(fs, 'memory/kubepods/burstable/podu1/abc', { 'memory.usage_in_bytes': '10485760\n', 'memory.stat': 'cache 1\ntotal_inactive_file 2097152\n' });
    write(fs, 'cpuacct/kubepods/burstable/podu1', { 'cpuacct.usage': '1600000000\n' });
    write(fs, 'memory/kubepods/burstable/podu1', { 'memory.usage_in_bytes': '11534336\n', 'memory.stat': 'total_inactive_file 0\n' });
    write(fs, 'cpuacct', { 'cpuacct.usage': '99000000000\n' });
    write(fs, 'memory', { 'memory.usage_in_bytes': '2147483648\n', 'memory.stat': 'total_inactive_file 1073741824\n' });
    const p = new CgroupStatsProvider({ nodeName: 'n', pods: () => [POD], cgroupRoot: '/', fsRoot: fs, now: () => NOW });
    const s = await p.summary();
    assert.deepEqual(s.pods[0]!.containers, [
      {
        name: 'c',
        startTime: '2026-01-01T00:00:01Z',
        cpu: { time: '2026-01-01T00:00:10.250Z', usageCoreNanoSeconds: 1_500_000_000 },
        memory: { time: '2026-01-01T00:00:10.250Z', workingSetBytes: 8_388_608, usageBytes: 10_485_760 },
      },
    ]);
    assert.equal(s.pods[0]!.cpu?.usageCoreNanoSeconds, 1_600_000_000);
    assert.equal(s.node.cpu?.usageCoreNanoSeconds, 99_000_000_000);
    assert.equal(s.node.memory?.workingSetBytes, 1_073_741_824);
  } finally {
    rmSync(fs, { recursive: true, force: true });
  }
});

test('cgroup v2: cpu.stat usage_usec and memory.current less inactive_file; a gone container is left out', async () => {
  const fs = mkdtempSync(join(tmpdir(), 'k8ts-cg2-'));
  try {
    write(fs, '', { 'cgroup.controllers': 'cpu memory\n' });
    write(fs, 'kubepods/burstable/podu1/abc', { 'cpu.stat': 'usage_usec 2500000\nuser_usec 1\n', 'memory.current': '4194304\n', 'memory.stat': 'anon 1\ninactive_file 1048576\n' });
    write(fs, 'kubepods/burstable/podu1', { 'cpu.stat': 'usage_usec 2600000\n', 'memory.current': '5242880\n', 'memory.stat': 'inactive_file 0\n' });
    const proc = join(fs, 'proc');
    write(fs, 'proc', { stat: 'cpu  100 0 50 1000 0 0 0 0 0 0\n', meminfo: 'MemTotal:       2048 kB\nMemFree:         512 kB\nInactive(file):  256 kB\n' });
    const p = new CgroupStatsProvider({ nodeName: 'n', pods: () => [POD], cgroupRoot: '/', fsRoot: fs, procRoot: proc, now: () => NOW });
    const s = await p.summary();
    assert.equal(s.pods[0]!.containers[0]!.cpu?.usageCoreNanoSeconds, 2_500_000_000);
    assert.equal(s.pods[0]!.containers[0]!.memory?.workingSetBytes, 3_145_728);
    assert.equal(s.node.cpu?.usageCoreNanoSeconds, 1_500_000_000); // (100 + 50) ticks of 10 ms
    assert.equal(s.node.memory?.workingSetBytes, (2048 - 512 - 256) * 1024);
    rmSync(join(fs, 'kubepods/burstable/podu1/abc'), { recursive: true });
    assert.deepEqual((await p.summary()).pods, []);
  } finally {
    rmSync(fs, { recursive: true, force: true });
  }
});
