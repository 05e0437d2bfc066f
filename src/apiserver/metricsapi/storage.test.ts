import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceMetricsText } from '../../kubelet/stats/resource-metrics.js';
import { SimStatsProvider } from '../../kubelet/stats/sim.js';
import { decodeResourceMetrics, MetricsStorage } from './storage.js';

const T0 = Date.parse('2024-01-01T00:00:00Z');

function pod(name: string, annotations: Record<string, string>) {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations },
    status: { startTime: '2024-01-01T00:00:00Z', containerStatuses: [{ name: 'c', containerID: 'sim://1', state: { running: { startedAt: '2024-01-01T00:00:00Z' } } }] },
  } as never;
}

test('kubelet /metrics/resource → metrics-server points → usage over the window between two scrapes', async () => {
  let now = T0 + 5_000;
  const sim = new SimStatsProvider(
    'n1',
    () => [pod('p', { 'sim.k8ts.io/cpu-usage': '250m', 'sim.k8ts.io/memory-usage': '64Mi' })],
    () => now,
    T0,
  );
  const text1 = resourceMetricsText(await sim.summary(), 'synthetic');
  assert.match(
    text1,
    /^# synthetic\n# HELP container_cpu_usage_seconds_total \[STABLE\] Cumulative cpu time consumed by the container in core-seconds\n# TYPE container_cpu_usage_seconds_total counter\n/,
  );
  assert.match(text1, /\ncontainer_cpu_usage_seconds_total\{container="c",namespace="default",pod="p"\} 1\.25 1704067205000\n/);
  assert.match(text1, /\ncontainer_memory_working_set_bytes\{container="c",namespace="default",pod="p"\} 6\.7108864e\+07 1704067205000\n/);
  assert.match(text1, /\ncontainer_start_time_seconds\{container="c",namespace="default",pod="p"\} 1\.7040672e\+09\n/);
  assert.match(text1, /\nresource_scrape_error 0\n$/);

  const storage = new MetricsStorage(15_000);
  storage.store(new Map([['n1', decodeResourceMetrics(text1)]]));
  assert.equal(storage.pod('default', 'p'), undefined, 'one sample is not enough');
  now += 15_000;
  storage.store(new Map([['n1', decodeResourceMetrics(resourceMetricsText(await sim.summary()))]]));
  assert.deepEqual(storage.pod('default', 'p'), { containers: [{ name: 'c', usage: { cpu: '250m', memory: '64Mi' } }], timestamp: now, window: 15_000 });
  assert.deepEqual(storage.node('n1'), { cpu: '300m', memory: '320Mi', timestamp: now, window: 15_000 });
  // a node missing from a round loses its points
  storage.store(new Map());
  assert.equal(storage.node('n1'), undefined);
});

test('a container started between resolution and 10 s ago gets metrics after one scrape', () => {
  const storage = new MetricsStorage(60_000);
  const text = [
    'container_cpu_usage_seconds_total{container="c",namespace="ns",pod="p"} 2 1704067220000',
    'container_memory_working_set_bytes{container="c",namespace="ns",pod="p"} 1024 1704067220000',
    'container_start_time_seconds{container="c",namespace="ns",pod="p"} 1704067200',
  ].join('\n');
  storage.store(new Map([['n', decodeResourceMetrics(text)]]));
  assert.deepEqual(storage.pod('ns', 'p')?.containers, [{ name: 'c', usage: { cpu: '100m', memory: '1Ki' } }]);
});
