/**
 * What a user sees of simulated pods through the real kubectl: exec of programs the
 * simulation does not know, `exec -it` under a real terminal (util-linux `script`
 * provides the pty), the pod's own HTTP servers (`curl localhost`), the files and
 * environment of a container, and a `k8ts server` restart that leaves containers alone.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startCluster, eventually, kubectlPath, manifestFile, MANIFESTS, type Cluster } from './harness.js';

/** Runs `kubectl ARGS` on a pseudo-terminal; `steps` type text once the output ends with a string. */
function onTerminal(c: Cluster, args: string[], steps: { after: string; type: string }[] = [], timeoutMs = 20_000): Promise<{ code: number; out: string }> {
  const which = spawnSync('sh', ['-c', 'command -v script'], { encoding: 'utf8' }).stdout.trim();
  if (!which) throw new Error('util-linux `script` is needed to give kubectl a terminal');
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [kubectlPath(), '--kubeconfig', c.kubeconfig, '--cache-dir', join(c.dir, 'kube-cache'), ...args].map(q).join(' ');
  return new Promise((resolve) => {
    const p = spawn(which, ['-qefc', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let next = 0;
    const onOut = (d: Buffer): void => {
      out += d.toString();
      while (next < steps.length && out.endsWith(steps[next]!.after)) p.stdin.write(steps[next++]!.type);
    };
    p.stdout.on('data', onOut);
    p.stderr.on('data', onOut);
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? -1, out });
    });
  });
}

describe('e2e: simulated runtime fidelity (kubectl)', () => {
  let c: Cluster;
  const apply = (file: string): void => {
    const r = c.kubectl(['apply', '-f', file]);
    assert.equal(r.code, 0, r.stderr);
  };
  const exec = (pod: string, cmd: string[], o: { container?: string; input?: string } = {}) =>
    c.kubectl(['exec', ...(o.input !== undefined ? ['-i'] : []), pod, ...(o.container ? ['-c', o.container] : []), '--', ...cmd], { input: o.input, timeoutMs: 20_000 });
  /** stdout of a command that must succeed (a failure shows kubectl's exit code and stderr) */
  const out = (pod: string, cmd: string[], o: { container?: string; input?: string } = {}): string => {
    const r = exec(pod, cmd, o);
    assert.equal(r.code, 0, `kubectl exec ${pod} -- ${cmd.join(' ')}: exit ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  const jp = (pod: string, path: string): string => c.kubectl(['get', 'pod', pod, '-o', `jsonpath=${path}`]).stdout;

  before(async () => {
    c = await startCluster();
    assert.equal(c.kubectl(['create', 'configmap', 'special-config', '--from-literal=special.how=very', '--from-literal=special.type=charm']).code, 0);
    apply(join(MANIFESTS, 'two-container-pod.yaml'));
    apply(join(MANIFESTS, 'security-context.yaml'));
    apply(
      manifestFile(
        c.dir,
        'box.yaml',
        `apiVersion: v1
kind: Pod
metadata: {name: box}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: busybox:1.36
    command: ["sh", "-c", "echo started; sleep 3600"]
    volumeMounts: [{name: cfg, mountPath: /etc/config}]
  volumes: [{name: cfg, configMap: {name: special-config}}]
---
apiVersion: v1
kind: Pod
metadata: {name: once}
spec:
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1.36
    command: ["sh", "-c", "echo done"]
`,
      ),
    );
    for (const p of ['box', 'security-context-demo']) {
      const r = c.kubectl(['wait', '--for=condition=Ready', `pod/${p}`, '--timeout=60s']);
      assert.equal(r.code, 0, r.stderr);
    }
    await eventually(() => jp('once', '{.status.phase}') === 'Succeeded' && /1\/2\s+NotReady/.test(c.kubectl(['get', 'pod', 'two-containers', '--no-headers']).stdout), 30_000);
  });
  after(async () => {
    await c?.stop();
  });

  it('kubectl exec: an unknown program fails at once (127); ps, whoami, uname, pwd; sh reads commands from stdin', () => {
    const started = Date.now();
    const unknown = exec('box', ['redis-cli', 'ping']);
    assert.equal(unknown.code, 127);
    assert.match(unknown.stderr, /^sh: redis-cli: not found\n.*command terminated with exit code 127/s);
    assert.ok(Date.now() - started < 15_000);
    const ps = exec('box', ['ps']);
    assert.equal(ps.code, 0, ps.stderr);
    assert.match(ps.stdout, /^PID {3}USER {5}TIME {2}COMMAND\n {4}1 root {6}0:00 sh -c echo started; sleep 3600\n +\d+ root {6}0:00 ps\n$/);
    assert.equal(out('box', ['whoami']), 'root\n');
    assert.equal(out('box', ['uname']), 'Linux\n');
    assert.equal(out('box', ['pwd']), '/\n');
    const sh = exec('box', ['sh'], { input: 'echo hi\nexit\n' });
    assert.equal(sh.code, 0, sh.stderr);
    assert.equal(sh.stdout, 'hi\n');
    assert.equal(out('box', ['getent', 'hosts', 'localhost']), '::1             localhost ip6-localhost ip6-loopback\n');
    assert.match(out('box', ['nslookup', 'localhost']), /Name:\tlocalhost\nAddress: 127\.0\.0\.1\n/);
  });

  it('kubectl exec -it under a real terminal: a command ends at once; a shell answers line by line until exit', async () => {
    const hi = await onTerminal(c, ['exec', '-it', 'box', '--', 'echo', 'hi']);
    assert.equal(hi.code, 0, hi.out);
    assert.match(hi.out, /hi\r\n/);
    const sh = await onTerminal(
      c,
      ['exec', '-it', 'box', '--', 'sh'],
      [
        { after: '/ # ', type: 'echo $((6*7))\r' },
        { after: '42\r\n/ # ', type: 'exit 3\r' },
      ],
    );
    assert.equal(sh.code, 3, sh.out);
    assert.match(sh.out, /\/ # echo \$\(\(6\*7\)\)\r\n42\r\n\/ # exit 3\r\n/);
  });

  it('two-container-pod: curl localhost from nginx returns the page debian wrote; other hosts stay unreachable', () => {
    const r = exec('two-containers', ['curl', 'localhost'], { container: 'nginx-container' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Hello from the debian container\n');
    const ip = jp('two-containers', '{.status.podIP}');
    assert.equal(out('two-containers', ['curl', '-s', `http://${ip}/`], { container: 'nginx-container' }), 'Hello from the debian container\n');
    const other = exec('two-containers', ['curl', '-sS', 'example.com'], { container: 'nginx-container' });
    assert.equal(other.code, 6);
    assert.match(other.stderr, /curl: \(6\) Could not resolve host: example\.com/);
  });

  it('pod files and environment as upstream gives them', () => {
    const hosts = out('box', ['cat', '/etc/hosts']);
    assert.match(hosts, /^# Kubernetes-managed hosts file\.\n127\.0\.0\.1\tlocalhost\n/);
    assert.match(hosts, new RegExp(`\\n${jp('box', '{.status.podIP}').replace(/\./g, '\\.')}\\tbox\\n$`));
    assert.match(out('box', ['cat', '/etc/resolv.conf']), /nameserver \S+/);
    const env = out('box', ['env']);
    assert.match(env, /^PATH=\/usr\/local\/sbin:\/usr\/local\/bin:\/usr\/sbin:\/usr\/bin:\/sbin:\/bin\nHOSTNAME=box\n/);
    assert.match(env, /\nHOME=\/root\n$/);
    assert.match(out('box', ['ls', '-ld', '/etc']), /^drwxr-xr-x +\d+ root +root +\d+ \w{3} [ \d]\d [\d:]{5} \/etc\n$/);
    assert.match(out('box', ['ls', '-l', '/etc/config']), /^total \d+\nlrwxrwxrwx +1 root +root +18 \w{3} [ \d]\d [\d:]{5} special\.how -> \.\.data\/special\.how\n/);
    assert.match(out('box', ['ls', '-l', '/etc/config/..data/']), /-rw-r--r-- +1 root +root +4 \w{3} [ \d]\d [\d:]{5} special\.how\n/, 'the real size, not 0');
    const w = exec('security-context-demo', ['sh', '-c', 'echo hello > /data/demo/testfile; ls -l /data/demo; ls /data; id']);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /-rw-r--r-- +1 1000 +2000 +6 \w{3} [ \d]\d [\d:]{5} testfile\n/);
    assert.match(w.stdout, /\ndemo\n/);
    assert.match(w.stdout, /uid=1000 gid=0 groups=2000\n$/);
  });

  it('a server restart leaves containers alone: same IDs, IP and start time, no restarts or pulls; completed pods stay completed', async () => {
    assert.equal(exec('box', ['sh', '-c', 'echo kept > /tmp/marker']).code, 0);
    const snap = () => ({
      box: jp(
        'box',
        '{.status.podIP} {.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].state.running.startedAt}',
      ),
      once: jp(
        'once',
        '{.status.phase} {.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].state.terminated.reason}',
      ),
      two: jp('two-containers', '{.status.podIP} {.status.containerStatuses[*].containerID}'),
    });
    const events = (): number => Number(c.kubectl(['get', 'events', '--field-selector', 'reason=Pulled', '-o', 'name']).stdout.split('\n').filter(Boolean).length);
    const before = snap();
    const pulledBefore = events();
    assert.match(before.once, /^Succeeded sim:\/\/\w+ 0 Completed$/);
    await c.restart();
    // the kubelet is syncing again once a new pod runs
    apply(
      manifestFile(
        c.dir,
        'after.yaml',
        'apiVersion: v1\nkind: Pod\nmetadata: {name: after}\nspec:\n  containers:\n  - {name: c, image: busybox:1.36, command: ["sleep", "3600"]}\n',
      ),
    );
    const r = c.kubectl(['wait', '--for=condition=Ready', 'pod/after', '--timeout=60s']);
    assert.equal(r.code, 0, r.stderr);
    await new Promise((res) => setTimeout(res, 3000)); // let every pod worker sync at least once more
    assert.deepEqual(snap(), before);
    assert.equal(out('box', ['cat', '/tmp/marker']), 'kept\n');
    assert.equal(events() - pulledBefore, 1, 'only the new pod pulled (image already present)');
    assert.notEqual(jp('after', '{.status.podIP}'), before.box.split(' ')[0]);
  });
});
