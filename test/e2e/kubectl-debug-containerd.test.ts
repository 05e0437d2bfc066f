/**
 * `kubectl debug` on real containers (containerd through CRI, containerd-cluster.ts):
 * the ephemeral container is pulled, created and started in the running pod's sandbox,
 * `kubectl debug -i` attaches to its stdin through containerd's streaming server, and
 * `--target` asks the runtime for the target container's PID namespace.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { R } from '../../src/client/types.js';
import { startContainerdCluster, type ContainerdCluster } from './containerd-cluster.js';
import { eventually } from './harness.js';

describe('e2e: kubectl debug on containerd', () => {
  let k: ContainerdCluster;

  before(async () => {
    k = await startContainerdCluster('debug-node');
    const r = await k.kubectl(['run', 'web', '--image=nginx']);
    assert.equal(r.code, 0, r.stderr);
    const w = await k.kubectl(['wait', '--for=condition=Ready', 'pod/web', '--timeout=90s'], { timeoutMs: 100_000 });
    assert.equal(w.code, 0, w.stderr);
  });

  after(async () => {
    await k?.stop();
  });

  it('kubectl debug -i feeds stdin to a real debug container', async () => {
    // stdin stays open until the output is seen: on containerd an attach whose stdin
    // closes (StdinOnce false, as kubectl debug sets it) stops receiving the output
    const d = await k.kubectl(['debug', '-i', 'web', '--image=busybox:1.28', '--container=dbg', '--', 'sh'], {
      input: 'echo hi-from-$(hostname)\n',
      // biome-ignore lint/suspicious/noThenProperty: KubectlOptions.then (a plain options object, never awaited)
      then: { when: /hi-from-web/, input: 'exit\n' },
      timeoutMs: 90_000,
    });
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^hi-from-web$/m);
    const st = await eventually(async () => {
      const p = await k.admin.get<Pod & { [x: string]: unknown }>(R.pods, 'default', 'web');
      const s = p.status?.ephemeralContainerStatuses?.find((x) => x.name === 'dbg');
      return s?.state?.terminated ? s : undefined;
    }, 30_000);
    assert.deepEqual([st.state?.terminated?.exitCode, st.restartCount, st.ready], [0, 0, false]);
    assert.match(st.containerID ?? '', /^containerd:\/\//);
  });

  // the kubelet sends pid TARGET + target_id (the target container's ID) over CRI
  it('--target shares the target container PID namespace', async () => {
    const d = await k.kubectl(['debug', 'web', '--image=busybox:1.28', '--container=tgt', '--target=web', '--', 'sh', '-c', 'ps -o comm; sleep 1']);
    assert.equal(d.code, 0, d.stderr);
    await eventually(async () => {
      const p = await k.admin.get<Pod & { [x: string]: unknown }>(R.pods, 'default', 'web');
      const s = p.status?.ephemeralContainerStatuses?.find((x) => x.name === 'tgt');
      return s?.state?.terminated ?? (s?.state?.waiting?.reason && s.state.waiting.reason !== 'ContainerCreating' ? assert.fail(JSON.stringify(s.state)) : undefined);
    }, 60_000);
    const logs = await k.kubectl(['logs', 'web', '-c', 'tgt']);
    assert.equal(logs.code, 0, logs.stderr);
    // the nginx stand-in is busybox httpd: seen from the debugger only with the shared PID namespace
    assert.match(logs.stdout, /httpd/);
  });
});
