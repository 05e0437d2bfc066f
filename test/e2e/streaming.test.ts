/**
 * kubectl logs / exec / attach / port-forward through the API server and the
 * kubelet server, on the simulated runtime (its logs are real CRI log files, its
 * exec runs the simulated shell; nothing listens for port-forward).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { startCluster, eventually, kubectlPath, manifestFile, type Cluster } from './harness.js';

function pod(name: string, command: string, o: { restartPolicy?: string; containers?: string[] } = {}): string {
  const names = o.containers ?? ['c'];
  const cs = names.map((n) => `  - name: ${n}\n    image: busybox:1.36\n    command: ["sh", "-c", ${JSON.stringify(command)}]\n`).join('');
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  restartPolicy: ${o.restartPolicy ?? 'Always'}\n  terminationGracePeriodSeconds: 1\n  containers:\n${cs}`;
}

/** Runs kubectl without blocking, reading stdout as it comes; `onStdout` may resolve early. */
function kubectlLive(c: Cluster, args: string[]): { proc: ReturnType<typeof spawn>; out: () => string; err: () => string; exited: Promise<number> } {
  const proc = spawn(kubectlPath(), ['--kubeconfig', c.kubeconfig, '--cache-dir', join(c.dir, 'kube-cache'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((r) => proc.on('exit', (code) => r(code ?? -1)));
  return { proc, out: () => out, err: () => err, exited };
}

describe('e2e: kubectl logs, exec, attach, port-forward (simulated runtime)', () => {
  let c: Cluster;
  const apply = (name: string, yaml: string): void => {
    const r = c.kubectl(['apply', '-f', manifestFile(c.dir, `${name}.yaml`, yaml)]);
    assert.equal(r.code, 0, r.stderr);
  };
  const running = async (name: string): Promise<void> => {
    const r = c.kubectl(['wait', '--for=jsonpath={.status.phase}=Running', `pod/${name}`, '--timeout=30s']);
    assert.equal(r.code, 0, r.stderr);
  };

  before(async () => {
    c = await startCluster();
    apply('logger', pod('logger', 'echo line1; echo line2 >&2; echo line3; sleep 3600'));
    apply('two', pod('two', 'sleep 3600', { containers: ['a', 'b'] }));
    await running('logger');
    await running('two');
  });
  after(async () => {
    await c?.stop();
  });

  it('kubectl logs prints both streams in order; --tail, --limit-bytes, --timestamps, --since', async () => {
    const all = await eventually(() => {
      const r = c.kubectl(['logs', 'logger']);
      return r.code === 0 && r.stdout.includes('line3') ? r.stdout : '';
    });
    assert.equal(all, 'line1\nline2\nline3\n');
    assert.equal(c.kubectl(['logs', 'logger', '--tail=1']).stdout, 'line3\n');
    assert.equal(c.kubectl(['logs', 'logger', '--limit-bytes=5']).stdout, 'line1');
    assert.match(c.kubectl(['logs', 'logger', '--timestamps']).stdout, /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z line\d\n){3}$/);
    assert.equal(c.kubectl(['logs', 'logger', '--since=1h']).stdout, 'line1\nline2\nline3\n');
  });

  it('answers log errors as upstream', () => {
    const prev = c.kubectl(['logs', 'logger', '-p']);
    assert.notEqual(prev.code, 0);
    assert.match(prev.stderr, /Error from server \(BadRequest\): previous terminated container "c" in pod "logger" not found/);
    const raw = (p: string) => c.kubectl(['get', '--raw', p]).stderr;
    assert.match(raw('/api/v1/namespaces/default/pods/two/log'), /Error from server \(BadRequest\): a container name must be specified for pod two, choose one of: \[a b\]/);
    assert.match(raw('/api/v1/namespaces/default/pods/logger/log?container=zzz'), /Error from server \(BadRequest\): container zzz is not valid for pod logger/);
    assert.match(raw('/api/v1/namespaces/default/pods/ghost/log'), /Error from server \(NotFound\): pods "ghost" not found/);
    assert.match(
      raw('/api/v1/namespaces/default/pods/logger/log?tailLines=-1'),
      /PodLogOptions "logger" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0/,
    );
  });

  it('kubectl logs -f streams until the container exits', async () => {
    apply('counter', pod('counter', 'i=0; while [ $i -lt 3 ]; do echo tick $i; i=$((i+1)); sleep 1; done', { restartPolicy: 'Never' }));
    await running('counter');
    const f = kubectlLive(c, ['logs', '-f', 'counter']);
    const code = await f.exited;
    assert.equal(code, 0, f.err());
    assert.equal(f.out(), 'tick 0\ntick 1\ntick 2\n');
  });

  it('kubectl logs -p shows the previous (crashed) container', async () => {
    apply('crasher', pod('crasher', 'echo attempt at $(date); exit 1'));
    await eventually(() => Number(c.kubectl(['get', 'pod', 'crasher', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}']).stdout) >= 1, 40_000, 500);
    const p = c.kubectl(['logs', 'crasher', '-p']);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^attempt at .+\n$/);
  });

  it('kubectl exec runs a command and reports its exit code', () => {
    const hi = c.kubectl(['exec', 'logger', '--', 'echo', 'hi']);
    assert.equal(hi.code, 0, hi.stderr);
    assert.equal(hi.stdout, 'hi\n');
    const three = c.kubectl(['exec', 'logger', '--', 'sh', '-c', 'echo to-stderr >&2; exit 3']);
    assert.equal(three.code, 3);
    assert.match(three.stderr, /to-stderr\n/);
    assert.match(three.stderr, /command terminated with exit code 3/);
    const b = c.kubectl(['exec', 'two', '-c', 'b', '--', 'hostname']);
    assert.equal(b.stdout, 'two\n');
  });

  it('kubectl exec -i passes stdin through to its end', () => {
    const r = c.kubectl(['exec', '-i', 'logger', '--', 'cat'], { input: "hello\nit's stdin\n" });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "hello\nit's stdin\n");
    const wc = c.kubectl(['exec', '-i', 'logger', '--', 'sh', '-c', 'cat; echo done'], { input: 'x\n' });
    assert.equal(wc.stdout, 'x\ndone\n');
  });

  it('kubectl exec over SPDY (the fallback when WebSockets are off)', () => {
    process.env['KUBECTL_REMOTE_COMMAND_WEBSOCKETS'] = 'false';
    try {
      const r = c.kubectl(['exec', '-i', 'logger', '--', 'sh', '-c', 'cat; exit 5'], { input: 'spdy stdin\n' });
      assert.equal(r.code, 5, r.stderr);
      assert.equal(r.stdout, 'spdy stdin\n');
      assert.match(r.stderr, /command terminated with exit code 5/);
    } finally {
      delete process.env['KUBECTL_REMOTE_COMMAND_WEBSOCKETS'];
    }
  });

  it('kubectl attach streams what the container prints from now on', async () => {
    apply('late', pod('late', 'sleep 3; echo late1; sleep 1; echo late2', { restartPolicy: 'Never' }));
    await running('late');
    const a = kubectlLive(c, ['attach', 'late']);
    assert.equal(await a.exited, 0, a.err());
    assert.match(a.out(), /late2\n$/);
  });

  it('kubectl port-forward tunnels SPDY; the simulated pod has no listener', async () => {
    const pf = kubectlLive(c, ['port-forward', 'pod/logger', ':80']);
    const local = await eventually(() => /Forwarding from 127\.0\.0\.1:(\d+) -> 80/.exec(pf.out())?.[1], 15_000);
    const sock = connect(Number(local), '127.0.0.1');
    sock.on('error', () => undefined);
    sock.write('GET / HTTP/1.0\r\n\r\n');
    const code = await pf.exited;
    sock.destroy();
    assert.notEqual(code, 0);
    assert.match(pf.err(), /an error occurred forwarding \d+ -> 80: error forwarding port 80 to pod [0-9a-f]+, uid : the simulated runtime \(sim\) runs no processes/);
  });
});
