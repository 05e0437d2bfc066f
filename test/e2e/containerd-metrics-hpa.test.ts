/**
 * `kubectl top` and the HorizontalPodAutoscaler on real containers: the real `k8ts
 * server --runtime remote` (its built-in metrics.k8s.io, scraping every 2 s) with a
 * kubelet on a private containerd (test/support/containerd.ts, stand-in images from a
 * local registry), driven with the real kubectl.
 *
 * Upstream's HPA walkthrough, with a busybox shell loop in place of php-apache's load:
 * each replica of Deployment `burn` spins while the file `stop` is absent from a hostPath
 * directory the test owns (request 100m, limit 200m, so a replica burns up to 200m of
 * CFS quota). The kubelet's figures come from the containers' cgroups, so `kubectl top`
 * shows the burner at hundreds of millicores and the idle pod at a few. `kubectl autoscale
 * deployment burn --cpu-percent=50 --min=1 --max=4` then scales 1 → 4 with upstream's
 * event and conditions; once the test creates `stop` the usage falls to ~0 and the
 * controller scales back to 1 — not before the downscale stabilization window
 * (`--horizontal-pod-autoscaler-downscale-stabilization 10s`) has passed since the load stopped.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publishTestImages } from '../support/images.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestContainerd, type TestContainerd } from '../support/containerd.js';
import { eventually, startCluster, type Cluster } from './harness.js';

const NS = 'hpa-e2e';
const STABILIZATION_S = 10;

const manifests = (ctl: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: burn
  namespace: ${NS}
spec:
  replicas: 1
  selector:
    matchLabels: {app: burn}
  template:
    metadata:
      labels: {app: burn}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: burn
        image: busybox:1.36
        command: [sh, -c, 'while [ ! -e /ctl/stop ]; do :; done; exec sleep 3600']
        resources:
          requests: {cpu: 100m}
          limits: {cpu: 200m}
        volumeMounts: [{name: ctl, mountPath: /ctl}]
      volumes:
      - name: ctl
        hostPath: {path: ${ctl}, type: Directory}
---
apiVersion: v1
kind: Pod
metadata:
  name: idle
  namespace: ${NS}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: idle, image: busybox:1.36, command: [sleep, '3600']}
`;

/** `1234m` / `2` → millicores; `12Mi` → MiB */
const milli = (q: string): number => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
const mib = (q: string): number => (q.endsWith('Mi') ? Number(q.slice(0, -2)) : q.endsWith('Ki') ? Number(q.slice(0, -2)) / 1024 : Number.NaN);

interface HPACondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

describe('e2e: kubectl top and the HorizontalPodAutoscaler on containerd', () => {
  let registry: TestRegistry | undefined;
  let ctrd: TestContainerd | undefined;
  let c: Cluster | undefined;
  let ctl = '';

  const kubectl = (...args: string[]): string => {
    const r = c!.kubectl(args, { timeoutMs: 150_000 });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const rows = (out: string): string[][] =>
    out
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
  const hpa = (): {
    spec: { replicas?: number };
    status: {
      currentReplicas?: number;
      desiredReplicas?: number;
      conditions?: HPACondition[];
      currentMetrics?: { resource?: { current: { averageUtilization?: number } } }[];
    };
  } => JSON.parse(kubectl('get', 'hpa', 'burn', '-n', NS, '-o', 'json'));
  const replicas = (): number => Number(kubectl('get', 'deploy', 'burn', '-n', NS, '-o', 'jsonpath={.spec.replicas}'));

  before(async () => {
    registry = await startRegistry();
    await publishTestImages(registry.host);
    ctrd = await startTestContainerd({ mirror: registry.host });
    // --disable-kube-proxy: this cluster's node is the host itself; its iptables and routes are not the test's to change
    c = await startCluster({
      args: [
        '--runtime',
        'remote',
        '--container-runtime-endpoint',
        ctrd.endpoint,
        '--cgroup-root',
        ctrd.cgroupParent,
        '--disable-kube-proxy',
        '--metric-resolution',
        '2s',
        '--horizontal-pod-autoscaler-sync-period',
        '2s',
        '--horizontal-pod-autoscaler-downscale-stabilization',
        `${STABILIZATION_S}s`,
      ],
    });
    ctl = join(c.dir, 'ctl');
    mkdirSync(ctl);
    kubectl('create', 'namespace', NS);
    c.kubectl(['apply', '-f', '-'], { input: manifests(ctl) });
    const w = c.kubectl(['wait', '-n', NS, '--for=condition=Ready', 'pod', '--all', '--timeout=150s'], { timeoutMs: 160_000 });
    assert.equal(w.code, 0, `pods never Ready: ${w.stderr}\n${c.kubectl(['describe', 'pods', '-n', NS]).stdout}\n${c.log().slice(-4000)}`);
  });

  after(async () => {
    try {
      if (ctl) writeFileSync(join(ctl, 'stop'), '');
      c?.kubectl(['delete', 'namespace', NS, '--wait=false']);
      await c?.stop();
    } finally {
      await ctrd?.stop();
      await registry?.stop();
    }
  });

  it('kubectl top pod: the burner uses hundreds of millicores (its 200m quota), the idle pod a few; memory in MiB', async () => {
    // two scrapes after the pods run are needed for a rate
    const top = await eventually(() => {
      const r = c!.kubectl(['top', 'pod', '-n', NS, '--no-headers']);
      if (r.code !== 0) return undefined;
      const t = rows(r.stdout);
      const burn = t.find((x) => x[0]!.startsWith('burn-'));
      const idle = t.find((x) => x[0] === 'idle');
      return burn && idle && milli(burn[1]!) >= 100 ? { burn, idle } : undefined;
    }, 90_000);
    const burnCPU = milli(top.burn[1]!);
    assert.ok(burnCPU >= 100 && burnCPU <= 260, `burner CPU ${top.burn[1]} within its 200m CFS quota`);
    assert.ok(milli(top.idle[1]!) < 20, `idle pod CPU ${top.idle[1]}`);
    for (const r of [top.burn, top.idle]) {
      const m = mib(r[2]!);
      assert.ok(m >= 0 && m < 64, `working set ${r[2]} of ${r[0]}`);
    }
    const containers = rows(kubectl('top', 'pod', top.burn[0]!, '-n', NS, '--containers'));
    assert.deepEqual(containers[0], ['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    assert.equal(containers[1]![0], top.burn[0]);
    assert.equal(containers[1]![1], 'burn');
    assert.ok(milli(containers[1]![2]!) >= 100, `container CPU ${containers[1]![2]}`);
  });

  it('kubectl top node: the node from its cgroups, at least the burner’s usage, memory and percentages', () => {
    const t = rows(kubectl('top', 'node'));
    assert.deepEqual(t[0], ['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    assert.equal(t[1]![0], 'e2e-node');
    assert.ok(milli(t[1]![1]!) >= 100, `node CPU ${t[1]![1]}`);
    assert.match(t[1]![2]!, /^\d+%$/);
    assert.match(t[1]![3]!, /^\d+Mi$/);
    assert.ok(Number(t[1]![3]!.slice(0, -2)) > 16, `node memory ${t[1]![3]}`);
    // the PodMetrics behind it: the rate over the last two scrapes, 2 s apart (--metric-resolution)
    const name = rows(kubectl('get', 'pods', '-n', NS, '-l', 'app=burn', '--no-headers'))[0]![0]!;
    const pm = JSON.parse(kubectl('get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods/${name}`)) as {
      kind: string;
      window: string;
      containers: { name: string; usage: { cpu: string; memory: string } }[];
    };
    assert.equal(pm.kind, 'PodMetrics');
    assert.match(pm.window, /^[0-9.]+m?s$/);
    assert.equal(pm.containers[0]!.name, 'burn');
    const cpu = /^(\d+)n$/.exec(pm.containers[0]!.usage.cpu);
    assert.ok(cpu && Number(cpu[1]) >= 20e6, `usage.cpu ${pm.containers[0]!.usage.cpu} (nanocores)`);
    const mem = /^(\d+)Ki$/.exec(pm.containers[0]!.usage.memory);
    assert.ok(mem && Number(mem[1]) > 0, `usage.memory ${pm.containers[0]!.usage.memory} (the working set, KiB)`);
  });

  it('kubectl autoscale --cpu-percent=50 --min=1 --max=4: scales up to 4 with upstream’s event and conditions', async () => {
    assert.equal(kubectl('autoscale', 'deployment', 'burn', '-n', NS, '--cpu-percent=50', '--min=1', '--max=4').trim(), 'horizontalpodautoscaler.autoscaling/burn autoscaled');
    await eventually(() => replicas() === 4 || undefined, 90_000);
    const events = kubectl(
      'get',
      'events',
      '-n',
      NS,
      '--field-selector',
      'involvedObject.kind=HorizontalPodAutoscaler',
      '-o',
      'jsonpath={range .items[*]}{.reason}|{.message}{"\\n"}{end}',
    );
    assert.match(events, /^SuccessfulRescale\|New size: 4; reason: cpu resource utilization \(percentage of request\) above target$/m);
    // at 4 replicas the burners still ask for more: the maximum limits it
    const st = await eventually(() => {
      const h = hpa();
      const limited = h.status.conditions?.find((x) => x.type === 'ScalingLimited');
      return h.status.currentReplicas === 4 && limited?.status === 'True' ? h.status : undefined;
    }, 90_000);
    const cond = (type: string): Omit<HPACondition, 'message'> & { message: string } => {
      const x = st.conditions!.find((y) => y.type === type);
      assert.ok(x, `condition ${type}`);
      return { type: x.type, status: x.status, reason: x.reason, message: x.message };
    };
    // the proposal moves with the burners' CPU share: the current one, or a higher recent one (scale-down stabilization)
    const able = cond('AbleToScale');
    const ableTexts: Record<string, string> = {
      ReadyForNewScale: 'recommended size matches current size',
      ScaleDownStabilized: 'recent recommendations were higher than current one, applying the highest recent recommendation',
    };
    assert.equal(able.status, 'True');
    assert.equal(able.message, ableTexts[able.reason], `AbleToScale ${able.reason}: ${able.message}`);
    assert.deepEqual(cond('ScalingActive'), {
      type: 'ScalingActive',
      status: 'True',
      reason: 'ValidMetricFound',
      message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
    });
    assert.deepEqual(cond('ScalingLimited'), {
      type: 'ScalingLimited',
      status: 'True',
      reason: 'TooManyReplicas',
      message: 'the desired replica count is more than the maximum replica count',
    });
    const get = rows(kubectl('get', 'hpa', 'burn', '-n', NS));
    assert.deepEqual(get[0], ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    assert.equal(get[1]![1], 'Deployment/burn');
    // the figure of the last reconcile, which moves with the machine's load (<unknown> when a
    // reconcile found no usable sample, e.g. only new pods sampled before their readiness)
    assert.match(`${get[1]![2]} ${get[1]![3]}`, /^cpu: (\d+%|<unknown>)\/50%$/);
    assert.deepEqual(get[1]!.slice(4, 7), ['1', '4', '4']);
    // when the maximum held it, the ready pods' mean was above the target (+ the 0.1 tolerance)
    const cpu = st.currentMetrics?.[0]?.resource?.current;
    assert.ok(cpu && cpu.averageUtilization! > 55, `currentMetrics ${JSON.stringify(st.currentMetrics)}`);
  });

  it(`once the load stops, scales down to 1 — after the ${STABILIZATION_S} s downscale stabilization window`, async () => {
    const stopped = Date.now();
    writeFileSync(join(ctl, 'stop'), '');
    // while the recent (higher) recommendations hold it, upstream's ScaleDownStabilized
    const stabilized = await eventually(() => hpa().status.conditions?.find((x) => x.type === 'AbleToScale' && x.reason === 'ScaleDownStabilized'), 60_000);
    assert.equal(stabilized.message, 'recent recommendations were higher than current one, applying the highest recent recommendation');
    assert.equal(replicas(), 4);
    await eventually(() => replicas() === 1 || undefined, 90_000);
    const elapsed = (Date.now() - stopped) / 1000;
    assert.ok(elapsed >= STABILIZATION_S, `scaled down ${elapsed.toFixed(1)} s after the load stopped`);
    const events = kubectl(
      'get',
      'events',
      '-n',
      NS,
      '--field-selector',
      'involvedObject.kind=HorizontalPodAutoscaler',
      '-o',
      'jsonpath={range .items[*]}{.reason}|{.message}{"\\n"}{end}',
    );
    assert.match(events, /^SuccessfulRescale\|New size: 1; reason: All metrics below target$/m);
  });
});
