/**
 * A node's kubelet logs its errors to the node's log output (stderr, klog text), as
 * upstream's kubelet does: a joined node (`k8ts agent`) is otherwise silent about them.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClient } from '../client/testing/fake-client.js';
import { processPod } from '../kubelet/index.js';
import { testPKI } from '../kubelet/server/test-support.js';
import { startNode, type RunningNode } from './node.js';

describe('startNode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-node-'));
  let node: RunningNode | undefined;
  after(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes an error the kubelet logs to stderr as a klog error line', { timeout: 120_000 }, async () => {
    const client = new FakeClient();
    // the API server refuses the mirror pod of the node's process pod: the kubelet logs it
    client.hook = (c) => {
      if (c.verb === 'create' && c.resource === 'pods' && c.ns === 'kube-system') throw new Error('mirror pods refused');
    };
    const pki = await testPKI();
    const written: string[] = [];
    let seen: () => void = () => undefined;
    const logged = new Promise<void>((r) => (seen = r));
    const want = /^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ kubelet\] "mirror pod of kube-scheduler-node-a not synced" err="mirror pods refused"$/m;
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(String(chunk));
      if (want.test(written.join(''))) seen();
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      node = await startNode({
        client,
        nodeName: 'node-a',
        dataDir: dir,
        podCIDR: '10.244.0.0/24',
        runtime: 'sim',
        servingCert: pki.serving,
        clientCA: pki.ca.cert,
        kubeletPort: 0,
        processPods: [
          processPod(
            { name: 'kube-scheduler', command: ['kube-scheduler'], image: 'registry.k8s.io/kube-scheduler:v1.32.0', healthy: () => true, startedAt: Date.now() },
            'node-a',
          ),
        ],
      });
      await logged;
    } finally {
      process.stderr.write = write;
    }
    assert.match(written.join(''), want);
  });
});
