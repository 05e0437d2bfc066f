/**
 * Pods on real containers, driven with the real kubectl: the shared manifests run
 * unchanged against a kubelet on a private containerd (containerd-cluster.ts).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startContainerdCluster, type ContainerdCluster } from './containerd-cluster.js';
import { eventually, MANIFESTS } from './harness.js';

const manifest = (name: string): string => readFileSync(join(MANIFESTS, `${name}.yaml`), 'utf8');

describe('e2e: pods on containerd', { concurrency: true }, () => {
  let k: ContainerdCluster;

  const jsonpath = async (pod: string, path: string, ns = 'default'): Promise<string> => (await k.kubectl(['get', 'pod', pod, '-n', ns, '-o', `jsonpath=${path}`])).stdout;
  const describePod = async (pod: string, ns = 'default'): Promise<string> => (await k.kubectl(['describe', 'pod', pod, '-n', ns])).stdout;

  before(async () => {
    k = await startContainerdCluster();
  });

  after(async () => {
    await k?.stop();
  });

  it('a busybox pod runs with a pod IP on the node bridge; kubectl logs shows its output', async () => {
    await k.apply(
      `apiVersion: v1
kind: Pod
metadata: {name: hello}
spec:
  nodeName: ${'ctrd-node'}
  terminationGracePeriodSeconds: 5
  containers:
  - name: c
    image: busybox:1.28
    command: [sh, -c, 'echo hello from $(hostname); exec sleep 3600']
`,
      'hello',
    );
    const r = await k.kubectl(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/hello', '--timeout=60s'], { timeoutMs: 70_000 });
    assert.equal(r.code, 0, `${r.stderr}\n${await describePod('hello')}`);
    const ip = await jsonpath('hello', '{.status.podIP}');
    const [net, bits] = k.ctrd.podCIDR.split('/');
    assert.ok(ip.startsWith(net!.split('.').slice(0, 3).join('.') + '.') && bits === '24', `pod IP ${ip} is in ${k.ctrd.podCIDR}`);
    const logs = await eventually(async () => {
      const l = await k.kubectl(['logs', 'hello']);
      return l.stdout.includes('hello from') ? l.stdout : '';
    }, 20_000);
    assert.equal(logs, 'hello from hello\n');
  });
});
