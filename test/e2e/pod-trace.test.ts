/**
 * The pod creation trace through the real kubectl: after `kubectl apply` of the seed's
 * nginx pod, `kubectl get podtrace nginx -o json` lists the steps in order, contiguous,
 * whose durations add up to the create→Running time; `kubectl get podtraces` prints the
 * trace.k8ts.io printer columns; reading a PodTrace needs the right to read its pod;
 * `--pod-trace=false` serves none.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { startCluster, eventually, MANIFESTS, ROOT, type Cluster } from './harness.js';

/** `k8ts trace pod …` against the cluster. */
function k8tsTrace(c: Cluster, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'k8ts.mjs'), 'trace', 'pod', ...args, '--kubeconfig', c.kubeconfig], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface Step {
  seedStep: number;
  name: string;
  component: string;
  startTime: string;
  endTime: string;
  offsetMilliseconds: number;
  durationMilliseconds: number;
  detail?: boolean;
  target?: string;
  message?: string;
}

/** A pod in namespace `stuck` that mounts ConfigMap `cm` at /cfg. */
const podWithConfigMap = (name: string, cm: string): string => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: stuck}
spec:
  containers: [{name: c, image: busybox:1.36, command: [sleep, '3600'], volumeMounts: [{name: cfg, mountPath: /cfg}]}]
  volumes: [{name: cfg, configMap: {name: ${cm}}}]
`;

/** RFC 3339 with microseconds → ms since the epoch (sub-ms). */
const ms = (t: string): number => {
  const m = /^(.*T\d\d:\d\d:\d\d)\.(\d{6})Z$/.exec(t);
  assert.ok(m, `not a microsecond timestamp: ${t}`);
  return Date.parse(`${m[1]}Z`) + Number(m[2]) / 1000;
};

describe('e2e: pod creation trace (trace.k8ts.io PodTrace)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('lists the nginx pod’s steps in order; their durations add up to create→Running within 5 ms', async () => {
    const r = c.kubectl(['apply', '-f', join(MANIFESTS, 'simple-pod.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    const w = c.kubectl(['wait', '--for=condition=Ready', 'pod/nginx', '--timeout=30s']);
    assert.equal(w.code, 0, w.stderr);
    const trace = await eventually(() => {
      const g = c.kubectl(['get', 'podtrace', 'nginx', '-o', 'json']);
      if (g.code !== 0) return undefined;
      const t = JSON.parse(g.stdout);
      return t.status.steps.some((s: Step) => s.name === 'Ready') ? t : undefined;
    });
    assert.equal(trace.apiVersion, 'trace.k8ts.io/v1alpha1');
    assert.equal(trace.kind, 'PodTrace');
    const pod = JSON.parse(c.kubectl(['get', 'pod', 'nginx', '-o', 'json']).stdout);
    assert.equal(trace.metadata.name, 'nginx');
    assert.equal(trace.spec.podUID, pod.metadata.uid);
    assert.equal(trace.status.phase, 'Running');

    const path: Step[] = trace.status.steps.filter((s: Step) => !s.detail);
    const names = path.map((s) => s.name);
    // the seed's order: API server, storage, scheduler, binding, kubelet, CRI, CNI, status
    const order = [
      'RequestReceived',
      'Authentication',
      'Authorization',
      'MutatingAdmission',
      'Validation',
      'ValidatingAdmission',
      'StorageCommit',
      'WatchReceived',
      'QueueWait',
      'PreFilter',
      'Filter',
      'Reserve',
      'Permit',
      'BindingCommit',
      'KubeletWatchReceived',
      'VolumesMounted',
      'RunPodSandbox',
      'CNIAdd',
      'CreateContainer',
      'StartContainer',
      'Running',
    ];
    let at = -1;
    for (const n of order) {
      const i = names.indexOf(n, at + 1);
      assert.ok(i > at, `${n} after ${names[at]} in ${names.join(' ')}`);
      at = i;
    }
    assert.ok(names.includes('PullImage') || names.includes('ImageCheck'), names.join(' '));
    // each mutating plugin in the chain's order (other plugins may come between as the default set grows)
    const mutating = path.filter((s) => s.name === 'MutatingAdmission').map((s) => s.target ?? '');
    let k = -1;
    for (const p of ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'Priority', 'DefaultTolerationSeconds', 'RuntimeClass']) {
      const i = mutating.indexOf(p, k + 1);
      assert.ok(i > k, `${p} in order in ${mutating.join(' ')}`);
      k = i;
    }
    assert.equal(mutating[0], 'NamespaceLifecycle');
    assert.equal(path.find((s) => s.name === 'CreateContainer')?.target, 'nginx');
    assert.match(path.find((s) => s.name === 'CNIAdd')?.target ?? '', /^10\.42\.\d+\.\d+$/);
    assert.equal(path.find((s) => s.name === 'CNIAdd')?.target, pod.status.podIP);
    // the scheduler's plugins are details inside PreFilter and Filter
    const details: Step[] = trace.status.steps.filter((s: Step) => s.detail);
    assert.ok(details.some((s) => s.name === 'Filter' && s.target === 'NodeResourcesFit'));

    // timestamps in order, each path step starting where the previous ended
    for (let i = 1; i < path.length; i++) {
      assert.ok(ms(path[i]!.startTime) >= ms(path[i - 1]!.startTime), `${path[i]!.name} starts before ${path[i - 1]!.name}`);
      assert.ok(Math.abs(ms(path[i]!.startTime) - ms(path[i - 1]!.endTime)) < 0.002, `${path[i]!.name} does not start where ${path[i - 1]!.name} ended`);
    }
    const running = path.find((s) => s.name === 'Running')!;
    const createToRunning = ms(running.endTime) - ms(path[0]!.startTime);
    const sum = path.slice(0, path.indexOf(running) + 1).reduce((a, s) => a + s.durationMilliseconds, 0);
    assert.ok(Math.abs(sum - createToRunning) <= 5, `sum ${sum} ms vs create→Running ${createToRunning} ms`);
    assert.ok(Math.abs(trace.status.summary.runningMilliseconds - createToRunning) <= 0.01);
    // the pod's own timestamps bracket the trace (second resolution)
    assert.ok(ms(path[0]!.startTime) >= Date.parse(pod.metadata.creationTimestamp) - 1);
    assert.ok(ms(path[0]!.startTime) < Date.parse(pod.metadata.creationTimestamp) + 1000);
  });

  it('serves k8ts_pod_creation_step_duration_seconds{step} and kubelet_pod_start_sli_duration_seconds on /metrics', () => {
    const m = c.kubectl(['get', '--raw', '/metrics']);
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /^# TYPE k8ts_pod_creation_step_duration_seconds histogram$/m);
    for (const step of ['Authentication', 'StorageCommit', 'QueueWait', 'Filter', 'RunPodSandbox', 'StartContainer', 'Running']) {
      assert.match(m.stdout, new RegExp(`^k8ts_pod_creation_step_duration_seconds_count\\{step="${step}"\\} [1-9]\\d*$`, 'm'), step);
    }
    assert.match(m.stdout, /^# TYPE kubelet_pod_start_sli_duration_seconds histogram$/m);
    assert.match(m.stdout, /^kubelet_pod_start_sli_duration_seconds_bucket\{le="0.5"\} \d+$/m);
    assert.match(m.stdout, /^kubelet_pod_start_sli_duration_seconds_count [1-9]\d*$/m);
  });

  it('prints POD TOTAL SCHEDULED SANDBOX IMAGES STARTED READY SLOWEST STEP, and is in discovery as pt', () => {
    const g = c.kubectl(['get', 'podtraces']);
    assert.equal(g.code, 0, g.stderr);
    assert.match(g.stdout, /^POD\s+TOTAL\s+SCHEDULED\s+SANDBOX\s+IMAGES\s+STARTED\s+READY\s+SLOWEST STEP\n/);
    assert.match(g.stdout, /\nnginx\s+[\d.]+m?s\s+[\d.]+m?s\s+[\d.]+m?s\s+[\d.]+m?s\s+[\d.]+m?s\s+[\d.]+m?s\s+\S+/);
    const ar = c.kubectl(['api-resources', '--api-group=trace.k8ts.io']);
    assert.match(ar.stdout, /podtraces\s+pt\s+trace\.k8ts\.io\/v1alpha1\s+true\s+PodTrace/);
    const pt = c.kubectl(['get', 'pt', '-A']);
    assert.match(pt.stdout, /^NAMESPACE\s+POD\s+TOTAL/);
  });

  it('lets read a PodTrace whoever may read its pod, and nobody else (upstream’s Forbidden text)', () => {
    const role = c.kubectl(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods']);
    assert.equal(role.code, 0, role.stderr);
    const rb = c.kubectl(['create', 'rolebinding', 'alice-reads-pods', '--role=pod-reader', '--user=alice']);
    assert.equal(rb.code, 0, rb.stderr);
    const alice = c.kubectl(['get', 'podtrace', 'nginx', '--as=alice']);
    assert.equal(alice.code, 0, alice.stderr);
    assert.match(alice.stdout, /^POD\s+TOTAL/);
    const can = c.kubectl(['auth', 'can-i', 'watch', 'podtraces.trace.k8ts.io', '--as=alice']);
    assert.equal(can.stdout.trim(), 'yes');
    const bob = c.kubectl(['get', 'podtrace', 'nginx', '--as=bob']);
    assert.notEqual(bob.code, 0);
    assert.equal(
      bob.stderr.trim(),
      'Error from server (Forbidden): podtraces.trace.k8ts.io "nginx" is forbidden: User "bob" cannot get resource "podtraces" in API group "trace.k8ts.io" in the namespace "default"',
    );
    const write = c.kubectl(['delete', 'podtrace', 'nginx']);
    assert.notEqual(write.code, 0);
    assert.match(write.stderr, /MethodNotAllowed|not supported|method/i);
  });

  it('k8ts trace pod nginx: the waterfall with the seed’s step numbers, offsets, durations and bars', () => {
    const r = k8tsTrace(c, ['nginx']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0]!, /^Pod default\/nginx: Running [\d.]+m?s after the create request$/);
    assert.match(lines[1]!, /^ +# +STEP +COMPONENT +OFFSET +DURATION +WATERFALL$/);
    const row = (name: string): string => lines.find((l) => new RegExp(`^ *\\d+  ${name} `).test(l)) ?? '';
    assert.match(row('RequestReceived'), /^ +1 {2}RequestReceived +apiserver +0\.00ms +0\.00ms +\|█/);
    assert.match(row('Authentication'), /^ +2 {2}Authentication +apiserver /);
    assert.match(row('MutatingAdmission NamespaceLifecycle'), /^ +4 {2}MutatingAdmission NamespaceLifecycle +apiserver /);
    assert.match(row('BindingCommit'), /^ +12 {2}BindingCommit e2e-node +storage +[\d.]+m?s +[\d.]+m?s +\| *█+$/);
    assert.match(row('RunPodSandbox'), /^ +15 {2}RunPodSandbox +cri /);
    assert.match(row('CNIAdd'), /^ +16 {2}CNIAdd 10\.42\.\d+\.\d+ +cni /);
    assert.match(row('Running'), /^ +20 {2}Running +storage /);
    assert.match(r.stdout, /\nslowest step: \S+/);
    assert.doesNotMatch(r.stdout, /STUCK/);
  });

  it('explains a pod whose nodeSelector no node matches: stuck at filtering, with upstream’s FailedScheduling message and the event', async () => {
    assert.equal(c.kubectl(['create', 'namespace', 'stuck']).code, 0);
    const r = c.kubectl(['apply', '-n', 'stuck', '-f', join(MANIFESTS, 'nodeselector-disktype.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    const out = await eventually(() => {
      const t = k8tsTrace(c, ['nginx', '-n', 'stuck']);
      return /event: +Warning FailedScheduling/.test(t.stdout) ? t.stdout : undefined;
    }, 30_000);
    const msg = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
    assert.match(out, /^Pod stuck\/nginx: Stuck for /);
    assert.match(out, /\n +10 {2}FailedScheduling +scheduler /);
    assert.match(out, /\nSTUCK at step 10 \(filtering: which nodes can run the pod\): filtering: no node can run the pod\n/);
    assert.ok(out.includes(`  reason:  Unschedulable\n  message: ${msg}\n`), out);
    assert.match(out, /\n {2}filter NodeAffinity rejected: e2e-node\n/);
    assert.ok(out.includes(`FailedScheduling (x`) && out.includes(`): ${msg}\n`), out);
    const pt = JSON.parse(c.kubectl(['get', 'podtrace', 'nginx', '-n', 'stuck', '-o', 'json']).stdout);
    assert.equal(pt.status.phase, 'Stuck');
    assert.equal(pt.status.steps.find((s: Step) => s.name === 'FailedScheduling')?.message, msg);
  });

  it('explains a pod whose image cannot be pulled: stuck at the image step with ErrImagePull/ImagePullBackOff and the event', async () => {
    const r = c.kubectl(['run', 'nopull', '-n', 'stuck', '--image=nginx:no-such-tag']);
    assert.equal(r.code, 0, r.stderr);
    const out = await eventually(() => {
      const t = k8tsTrace(c, ['nopull', '-n', 'stuck']);
      return /event: +Warning Failed /.test(t.stdout) ? t.stdout : undefined;
    }, 30_000);
    assert.match(out, /\nSTUCK at step 17 \(images checked and pulled \(CRI ImageService\)\): image pull: container nopull cannot get image nginx:no-such-tag\n/);
    assert.match(out, /\n {2}reason: {2}(ErrImagePull|ImagePullBackOff)\n/);
    assert.match(out, /\n +17 {2}ErrImagePull nginx:no-such-tag +kubelet /);
    assert.match(out, /failed to pull and unpack image "docker\.io\/library\/nginx:no-such-tag"/);
    assert.match(out, /\n {2}event: +Warning Failed \(x\d+, last \S+\): Failed to pull image "nginx:no-such-tag": /);
  });

  it('explains a container that keeps exiting: stuck at the containers step with CrashLoopBackOff and the BackOff event', async () => {
    const r = c.kubectl(['run', 'crash', '-n', 'stuck', '--image=busybox:1.36', '--', 'sh', '-c', 'exit 1']);
    assert.equal(r.code, 0, r.stderr);
    const out = await eventually(
      () => {
        const t = k8tsTrace(c, ['crash', '-n', 'stuck']);
        return /event: +Warning BackOff /.test(t.stdout) && /reason: {2}CrashLoopBackOff/.test(t.stdout) ? t.stdout : undefined;
      },
      60_000,
      500,
    );
    const uid = c.kubectl(['get', 'pod', 'crash', '-n', 'stuck', '-o', 'jsonpath={.metadata.uid}']).stdout;
    assert.match(out, /\nSTUCK at step 18 \(.*\): containers: crash keeps exiting\n/);
    assert.match(out, new RegExp(`\\n {2}message: back-off \\d+s restarting failed container=crash pod=crash_stuck\\(${uid}\\)\\n`));
    assert.ok(out.includes(`): Back-off restarting failed container crash in pod crash_stuck(${uid})\n`), out);
    assert.ok(out.includes('kubectl logs crash -c crash --previous'), out);
  });

  it('explains a pod whose ConfigMap volume is missing: stuck at the volumes step with the FailedMount event', async () => {
    const r = c.kubectl(['apply', '-f', '-'], { input: podWithConfigMap('nomount', 'missing') });
    assert.equal(r.code, 0, r.stderr);
    const out = await eventually(
      () => {
        const t = k8tsTrace(c, ['nomount', '-n', 'stuck']);
        return /event: +Warning FailedMount /.test(t.stdout) ? t.stdout : undefined;
      },
      30_000,
      500,
    );
    assert.match(out, /\nSTUCK at step 14 \(.*\): volumes: a volume cannot be mounted\n/);
    assert.ok(out.includes('  reason:  FailedMount\n  message: MountVolume.SetUp failed for volume "cfg" : configmap "missing" not found\n'), out);
  });

  it('k8ts trace pod -w follows the trace until the pod is Running and Ready, then exits', async () => {
    // the pod waits for its ConfigMap: -w prints it stuck, then follows it to Ready once the ConfigMap exists
    const r = c.kubectl(['apply', '-f', '-'], { input: podWithConfigMap('follow', 'follow-cfg') });
    assert.equal(r.code, 0, r.stderr);
    const p = spawn(process.execPath, [join(ROOT, 'dist', 'k8ts.mjs'), 'trace', 'pod', 'follow', '-n', 'stuck', '-w', '--kubeconfig', c.kubeconfig], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => {
      const t = setTimeout(() => p.kill('SIGKILL'), 90_000);
      p.on('exit', (code) => (clearTimeout(t), resolve(code)));
    });
    await eventually(() => /STUCK at step 14 /.test(stdout) || undefined, 30_000);
    assert.equal(c.kubectl(['create', 'configmap', 'follow-cfg', '-n', 'stuck', '--from-literal=k=v']).code, 0);
    assert.equal(await exited, 0, stdout);
    // printed again at each change (not a terminal): first stuck at the volume, last Running and Ready
    const drawings = stdout.split(/^Pod stuck\/follow: /m).filter(Boolean);
    assert.match(drawings[0]!, /^Stuck for /);
    assert.match(drawings.at(-1)!, /^Running /);
    assert.match(drawings.at(-1)!, /\n +19 {2}Ready /);
    assert.doesNotMatch(drawings.at(-1)!, /STUCK/);
  });

  it('drops the trace with its pod', async () => {
    const d = c.kubectl(['delete', 'pod', 'nginx', '--wait=true']);
    assert.equal(d.code, 0, d.stderr);
    await eventually(() => c.kubectl(['get', 'podtrace', 'nginx']).code !== 0 || undefined);
    const g = c.kubectl(['get', 'podtrace', 'nginx']);
    assert.match(g.stderr, /podtraces\.trace\.k8ts\.io "nginx" not found/);
  });
});

describe('e2e: --pod-trace=false', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ args: ['--pod-trace=false'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('serves no podtraces', () => {
    const g = c.kubectl(['get', 'podtraces']);
    assert.notEqual(g.code, 0);
    assert.match(g.stderr, /the server doesn't have a resource type "podtraces"/);
  });
});
