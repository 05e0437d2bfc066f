/**
 * The kubelet's volume stats: the cache's single timer (armed only while volumes are
 * published, one calculation per aggregation period, disabled by 0) on a fake clock,
 * NodeGetVolumeStats over a real unix socket (usages, the volume condition, the --v=4
 * line), the VolumeConditionAbnormal event, and the `kubelet_volume_stats_*` exposition.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CSIClient } from '../../csi/client.js';
import { csiServices, serveUnix, stopServer, type grpc } from '../../csi/grpc.js';
import { FakeClock } from '../../util/fake-clock.js';
import { csiVolumeMetrics, MetricsNotSupportedError, type VolumeMetrics } from '../volumes/csi/metrics.js';
import { PublishedVolumes, type PublishedVolume } from '../volumes/csi/published.js';
import { kubeletMetricsText, volumeStatsMetricsText } from './volume-metrics.js';
import { VolumeStatsCache } from './volume-stats.js';
import type { Summary } from './types.js';

const POD = { name: 'web-0', namespace: 'shop', uid: 'u1' };
const vol = (name: string, claim?: string, pod = POD): PublishedVolume => ({
  pod,
  name,
  driver: 'd.example.com',
  handle: `h-${name}`,
  targetPath: `/k/pods/${pod.uid}/volumes/kubernetes.io~csi/${name}/mount`,
  pvcRef: claim ? { name: claim, namespace: pod.namespace } : undefined,
});
const metrics = (used: number, capacity = 1000): VolumeMetrics => ({
  time: '2025-01-01T00:00:00Z',
  capacityBytes: capacity,
  availableBytes: capacity - used,
  usedBytes: used,
  inodes: 50,
  inodesFree: 40,
  inodesUsed: 10,
});

describe('volume stats cache', () => {
  it('arms one timer only while volumes are published and measures them once per period', async () => {
    const clock = new FakeClock();
    const registry = new PublishedVolumes();
    const calls: string[] = [];
    const cache = new VolumeStatsCache({ registry, clock, periodMs: 10_000, measure: async (v) => (calls.push(v.name), metrics(7)) });
    assert.equal(clock.pending, 0, 'nothing published: no timer, no work');
    registry.add('u1', vol('data', 'data-web-0'));
    registry.add('u1', vol('scratch'));
    assert.equal(clock.pending, 1, 'one timer for the node, not one per volume');
    assert.equal(cache.get('u1'), undefined);
    await clock.advance(9_999);
    assert.deepEqual(calls, []);
    await clock.advance(1);
    assert.deepEqual(calls, ['data', 'scratch']);
    assert.deepEqual(cache.get('u1'), [
      {
        time: '2025-01-01T00:00:00Z',
        availableBytes: 993,
        capacityBytes: 1000,
        usedBytes: 7,
        inodesFree: 40,
        inodes: 50,
        inodesUsed: 10,
        name: 'data',
        pvcRef: { name: 'data-web-0', namespace: 'shop' },
      },
      { time: '2025-01-01T00:00:00Z', availableBytes: 993, capacityBytes: 1000, usedBytes: 7, inodesFree: 40, inodes: 50, inodesUsed: 10, name: 'scratch' },
    ]);
    assert.equal(clock.pending, 1, 'rearmed while volumes remain');
    await clock.advance(10_000);
    assert.equal(calls.length, 4);
    // the pod's volumes are unpublished: dropped at the next calculation, then the timer stops
    registry.deletePod('u1');
    await clock.advance(10_000);
    assert.equal(calls.length, 4);
    assert.equal(cache.get('u1'), undefined);
    assert.equal(clock.pending, 0);
    cache.stop();
  });

  it('a period of 0 disables volume stats', () => {
    const clock = new FakeClock();
    const registry = new PublishedVolumes();
    const lines: string[] = [];
    const cache = new VolumeStatsCache({ registry, clock, periodMs: 0, measure: async () => metrics(1), log: (l) => lines.push(l) });
    registry.add('u1', vol('data', 'c'));
    assert.equal(clock.pending, 0);
    assert.equal(cache.armed, false);
    assert.deepEqual(lines, ['Volume stats collection disabled']);
  });

  it('skips drivers without GET_VOLUME_STATS silently, logs other failures, and reports abnormal volumes as events', async () => {
    const clock = new FakeClock();
    const registry = new PublishedVolumes();
    const lines: string[] = [];
    const events: string[] = [];
    const cache = new VolumeStatsCache({
      registry,
      clock,
      periodMs: 1000,
      log: (l) => lines.push(l),
      podEvent: (pod, reason, msg) => events.push(`${pod.namespace}/${pod.name} ${reason} ${msg}`),
      measure: async (v) => {
        if (v.name === 'nostats') throw new MetricsNotSupportedError(v.driver);
        if (v.name === 'broken') throw new Error('rpc error: code = NotFound desc = gone');
        return { ...metrics(3), abnormal: true, message: 'disk is failing' };
      },
    });
    registry.add('u1', vol('nostats', 'a'));
    registry.add('u1', vol('broken', 'b'));
    registry.add('u1', vol('sick', 'c'));
    await clock.advance(1000);
    assert.deepEqual(
      cache.get('u1')!.map((s) => [s.name, s.volumeHealthStats]),
      [['sick', { abnormal: true }]],
    );
    assert.deepEqual(lines, ['Failed to calculate volume metrics pod="shop/web-0" podUID="u1" volumeName="broken" err="rpc error: code = NotFound desc = gone"']);
    assert.deepEqual(events, ['shop/web-0 VolumeConditionAbnormal Volume sick: disk is failing']);
    cache.stop();
  });
});

describe('NodeGetVolumeStats over the driver socket', () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'k8ts-volstats-'));
  let server: grpc.Server | undefined;
  after(async () => {
    if (server) await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('maps BYTES and INODES usages, reads the condition with VOLUME_CONDITION, logs the call', async () => {
    const sock = join(dir, 'csi.sock');
    const reqs: unknown[] = [];
    server = await serveUnix(sock, [
      [
        csiServices().Node!,
        {
          NodeGetVolumeStats: async (req: { volumeId: string; volumePath: string }) => {
            reqs.push({ volumeId: req.volumeId, volumePath: req.volumePath });
            return {
              usage: [
                { unit: 'BYTES', total: 1 << 30, used: 4096, available: (1 << 30) - 4096 },
                { unit: 'INODES', total: 65536, used: 3, available: 65533 },
              ],
              volumeCondition: { abnormal: false, message: 'volume is healthy' },
            };
          },
        },
      ],
    ]);
    const client = new CSIClient(sock);
    const lines: string[] = [];
    const entry = { name: 'd.example.com', endpoint: sock, client, nodeId: 'n', nodeCapabilities: ['STAGE_UNSTAGE_VOLUME', 'GET_VOLUME_STATS'] };
    const now = Date.parse('2025-06-01T12:00:00.500Z');
    const m = await csiVolumeMetrics(entry, 'vol-9', '/k/pods/u/volumes/kubernetes.io~csi/pv/mount', now, (l) => lines.push(l));
    assert.deepEqual(reqs, [{ volumeId: 'vol-9', volumePath: '/k/pods/u/volumes/kubernetes.io~csi/pv/mount' }]);
    assert.deepEqual(m, {
      time: '2025-06-01T12:00:00Z',
      capacityBytes: 1 << 30,
      availableBytes: (1 << 30) - 4096,
      usedBytes: 4096,
      inodes: 65536,
      inodesFree: 65533,
      inodesUsed: 3,
    });
    assert.deepEqual(lines, ['kubernetes.io/csi: calling NodeGetVolumeStats rpc [volid=vol-9,target_path=/k/pods/u/volumes/kubernetes.io~csi/pv/mount]']);
    const withCondition = await csiVolumeMetrics({ ...entry, nodeCapabilities: ['GET_VOLUME_STATS', 'VOLUME_CONDITION'] }, 'vol-9', '/t', now, () => undefined);
    assert.equal(withCondition.abnormal, false);
    assert.equal(withCondition.message, 'volume is healthy');
    await assert.rejects(
      csiVolumeMetrics({ ...entry, nodeCapabilities: [] }, 'vol-9', '/t', now, () => undefined),
      MetricsNotSupportedError,
    );
    assert.equal(reqs.length, 2, 'no call without GET_VOLUME_STATS');
    client.close();
  });
});

describe('kubelet_volume_stats_* exposition', () => {
  it('one series set per claim, ALPHA help texts, health only where reported', () => {
    const v = (name: string, claim: string | undefined, ns: string, used: number, abnormal?: boolean) => ({
      ...metrics(used, 10_000_000),
      name,
      ...(claim ? { pvcRef: { name: claim, namespace: ns } } : {}),
      ...(abnormal === undefined ? {} : { volumeHealthStats: { abnormal } }),
    });
    const s: Summary = {
      node: { nodeName: 'n', startTime: '2025-01-01T00:00:00Z' },
      pods: [
        { podRef: { name: 'a', namespace: 'ns1', uid: '1' }, startTime: '', containers: [], volume: [v('data', 'shared', 'ns1', 2_000_000), v('tmp', undefined, 'ns1', 1)] },
        { podRef: { name: 'b', namespace: 'ns1', uid: '2' }, startTime: '', containers: [], volume: [v('data', 'shared', 'ns1', 5)] },
        { podRef: { name: 'c', namespace: 'db', uid: '3' }, startTime: '', containers: [], volume: [v('pg', 'pg-data', 'db', 12, true)] },
      ],
    };
    const text = volumeStatsMetricsText(s);
    assert.equal(
      text,
      [
        '# HELP kubelet_volume_stats_available_bytes [ALPHA] Number of available bytes in the volume',
        '# TYPE kubelet_volume_stats_available_bytes gauge',
        'kubelet_volume_stats_available_bytes{namespace="db",persistentvolumeclaim="pg-data"} 9.999988e+06',
        'kubelet_volume_stats_available_bytes{namespace="ns1",persistentvolumeclaim="shared"} 8e+06',
        '# HELP kubelet_volume_stats_capacity_bytes [ALPHA] Capacity in bytes of the volume',
        '# TYPE kubelet_volume_stats_capacity_bytes gauge',
        'kubelet_volume_stats_capacity_bytes{namespace="db",persistentvolumeclaim="pg-data"} 1e+07',
        'kubelet_volume_stats_capacity_bytes{namespace="ns1",persistentvolumeclaim="shared"} 1e+07',
        '# HELP kubelet_volume_stats_health_status_abnormal [ALPHA] Abnormal volume health status. The count is either 1 or 0. 1 indicates the volume is unhealthy, 0 indicates volume is healthy',
        '# TYPE kubelet_volume_stats_health_status_abnormal gauge',
        'kubelet_volume_stats_health_status_abnormal{namespace="db",persistentvolumeclaim="pg-data"} 1',
        '# HELP kubelet_volume_stats_inodes [ALPHA] Maximum number of inodes in the volume',
        '# TYPE kubelet_volume_stats_inodes gauge',
        'kubelet_volume_stats_inodes{namespace="db",persistentvolumeclaim="pg-data"} 50',
        'kubelet_volume_stats_inodes{namespace="ns1",persistentvolumeclaim="shared"} 50',
        '# HELP kubelet_volume_stats_inodes_free [ALPHA] Number of free inodes in the volume',
        '# TYPE kubelet_volume_stats_inodes_free gauge',
        'kubelet_volume_stats_inodes_free{namespace="db",persistentvolumeclaim="pg-data"} 40',
        'kubelet_volume_stats_inodes_free{namespace="ns1",persistentvolumeclaim="shared"} 40',
        '# HELP kubelet_volume_stats_inodes_used [ALPHA] Number of used inodes in the volume',
        '# TYPE kubelet_volume_stats_inodes_used gauge',
        'kubelet_volume_stats_inodes_used{namespace="db",persistentvolumeclaim="pg-data"} 10',
        'kubelet_volume_stats_inodes_used{namespace="ns1",persistentvolumeclaim="shared"} 10',
        '# HELP kubelet_volume_stats_used_bytes [ALPHA] Number of used bytes in the volume',
        '# TYPE kubelet_volume_stats_used_bytes gauge',
        'kubelet_volume_stats_used_bytes{namespace="db",persistentvolumeclaim="pg-data"} 12',
        'kubelet_volume_stats_used_bytes{namespace="ns1",persistentvolumeclaim="shared"} 2e+06',
        '',
      ].join('\n'),
    );
    assert.equal(volumeStatsMetricsText({ node: s.node, pods: [] }), '');
    // the kubelet's /metrics always has kubelet_node_name, volumes or not
    assert.equal(
      kubeletMetricsText({ node: s.node, pods: [] }),
      `# HELP kubelet_node_name [ALPHA] The node's name. The count is always 1.\n# TYPE kubelet_node_name gauge\nkubelet_node_name{node="${s.node.nodeName}"} 1\n`,
    );
    assert.ok(kubeletMetricsText(s).endsWith(volumeStatsMetricsText(s)));
  });
});

describe('published volumes', () => {
  it('volumesInUse: sorted unique names; read back from vol_data.json records with an attachment', () => {
    const r = new PublishedVolumes();
    r.markInUse('u1', 'kubernetes.io/csi/b^2');
    r.markInUse('u2', 'kubernetes.io/csi/a^1');
    r.markInUse('u2', 'kubernetes.io/csi/b^2');
    assert.deepEqual(r.volumesInUse(), ['kubernetes.io/csi/a^1', 'kubernetes.io/csi/b^2']);
    r.deletePod('u2');
    assert.deepEqual(r.volumesInUse(), ['kubernetes.io/csi/b^2']);

    const k = fs.mkdtempSync(join(tmpdir(), 'k8ts-published-'));
    const rec = (uid: string, name: string, data: object): void => {
      const d = join(k, 'pods', uid, 'volumes', 'kubernetes.io~csi', name);
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(join(d, 'vol_data.json'), JSON.stringify(data));
    };
    rec('p1', 'pv-a', { driverName: 'att.example.com', volumeHandle: 'h1', attachmentID: 'csi-x' });
    rec('p1', 'pv-b', { driverName: 'hostpath.csi.k8ts.io', volumeHandle: 'h2' });
    fs.mkdirSync(join(k, 'pods', 'p2'), { recursive: true });
    const back = new PublishedVolumes();
    back.reconstruct(k, 'kubernetes.io~csi');
    assert.deepEqual(back.volumesInUse(), ['kubernetes.io/csi/att.example.com^h1']);
    fs.rmSync(k, { recursive: true, force: true });
  });
});
