/**
 * `kubectl debug` end to end on the simulated runtime: the API server adds the
 * ephemeral container through pods/ephemeralcontainers, the kubelet starts it in the
 * running pod (Pulling/Pulled/Created/Started on spec.ephemeralContainers{name}),
 * reports status.ephemeralContainerStatuses, and kubectl reads its logs or attaches
 * to its stdin.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

interface ContainerStatusLite {
  name: string;
  ready: boolean;
  restartCount: number;
  state: { running?: object; waiting?: { reason?: string }; terminated?: { reason?: string; exitCode?: number } };
}

interface PodLite {
  status: { phase?: string; ephemeralContainerStatuses?: ContainerStatusLite[]; conditions?: { type: string; status: string }[] };
}

describe('e2e: kubectl debug starts ephemeral containers (simulated runtime)', () => {
  let c: Cluster;

  before(async () => {
    c = await startCluster();
    const r = c.kubectl(['run', 'nginx', '--image=nginx']);
    assert.equal(r.code, 0, r.stderr);
    const w = c.kubectl(['wait', '--for=condition=Ready', 'pod/nginx', '--timeout=60s'], { timeoutMs: 70_000 });
    assert.equal(w.code, 0, w.stderr);
  });

  after(async () => {
    await c?.stop();
  });

  const pod = (): PodLite => JSON.parse(c.kubectl(['get', 'pod', 'nginx', '-o', 'json']).stdout) as PodLite;
  const ephemeral = (name: string): ContainerStatusLite | undefined => pod().status.ephemeralContainerStatuses?.find((s) => s.name === name);

  it('runs the debug command once: logs, terminated Completed, events, pod still Running', async () => {
    const d = c.kubectl(['debug', 'nginx', '--image=busybox', '--container=debugger', '--', 'sh', '-c', 'echo hello-from-debug']);
    assert.equal(d.code, 0, d.stderr);
    const st = await eventually(() => {
      const s = ephemeral('debugger');
      return s?.state.terminated ? s : undefined;
    }, 30_000);
    assert.deepEqual([st.state.terminated?.reason, st.state.terminated?.exitCode, st.ready, st.restartCount], ['Completed', 0, false, 0]);
    const logs = c.kubectl(['logs', 'nginx', '-c', 'debugger']);
    assert.equal(logs.code, 0, logs.stderr);
    assert.equal(logs.stdout, 'hello-from-debug\n');
    const p = pod();
    assert.equal(p.status.phase, 'Running');
    assert.equal(p.status.conditions?.find((x) => x.type === 'Ready')?.status, 'True');
    const ev = c.kubectl([
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=nginx,involvedObject.fieldPath=spec.ephemeralContainers{debugger}',
      '-o',
      'jsonpath={range .items[*]}{.reason}{"\\n"}{end}',
    ]);
    assert.equal(ev.code, 0, ev.stderr);
    const reasons = ev.stdout.trim().split('\n');
    for (const r of ['Pulling', 'Pulled', 'Created', 'Started']) assert.ok(reasons.includes(r), `${r} in ${JSON.stringify(reasons)}`);
  });

  it('kubectl debug -i attaches to the debug container and prints what it writes', () => {
    const d = c.kubectl(['debug', '-i', 'nginx', '--image=busybox', '--container=dbg1', '--', 'sh', '-c', 'sleep 3; echo attached-output'], { timeoutMs: 60_000 });
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^attached-output$/m);
  });

  it('kubectl debug -i feeds stdin to the debug container', () => {
    const d = c.kubectl(['debug', '-i', 'nginx', '--image=busybox', '--container=dbg2', '--', 'sh'], { input: 'echo hi; exit\n', timeoutMs: 60_000 });
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^hi$/m);
  });

  it('kubectl run -i --rm --image=busybox t -- sh runs the piped input, prints its output and deletes the pod', () => {
    const r = c.kubectl(['run', '-i', '--rm', '--image=busybox', 't', '--', 'sh'], {
      input: 'echo piped-one\nread x; echo got-$x\nsecond line\n',
      timeoutMs: 90_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^piped-one$/m, r.stderr);
    assert.match(r.stdout, /^got-second line$/m, r.stderr);
    assert.match(r.stdout, /^pod "t" deleted/m);
    // gone, or terminating: the restarted sh (restartPolicy Always) ignores SIGTERM as PID 1 until the grace period ends
    const g = c.kubectl(['get', 'pod', 't', '-o', 'jsonpath={.metadata.deletionTimestamp}']);
    assert.ok(g.code !== 0 ? /NotFound|not found/.test(g.stderr) : g.stdout !== '', `${g.code} ${g.stdout} ${g.stderr}`);
  });

  it('kubectl attach -i feeds stdin to the main process of a pod created with stdin', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'attach-in' },
      spec: { restartPolicy: 'Never', containers: [{ name: 'sh', image: 'busybox', command: ['sh'], stdin: true }] },
    };
    const a = c.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod) });
    assert.equal(a.code, 0, a.stderr);
    const w = c.kubectl(['wait', '--for=condition=Ready', 'pod/attach-in', '--timeout=60s'], { timeoutMs: 70_000 });
    assert.equal(w.code, 0, w.stderr);
    const r = c.kubectl(['attach', '-i', 'attach-in'], { input: 'echo attached-$HOSTNAME\nexit 0\n', timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^attached-attach-in$/m);
    const phase = await eventually(() => {
      const p = c.kubectl(['get', 'pod', 'attach-in', '-o', 'jsonpath={.status.phase}']).stdout;
      return p === 'Succeeded' ? p : undefined;
    }, 30_000);
    assert.equal(phase, 'Succeeded');
  });
});
