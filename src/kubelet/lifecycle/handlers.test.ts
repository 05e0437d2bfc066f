import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { CRIError, type Runtime } from '../../cri/api.js';
import { freePort } from '../../../test/support/ports.js';
import { FakeClock } from '../../util/fake-clock.js';
import { runLifecycleHandler, type HandlerDeps } from './handlers.js';

const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'u1' }, spec: { containers: [] } };
const c = { name: 'app', ports: [{ name: 'http', containerPort: 1 }] };

function deps(exec: Runtime['execSync'], ips: string[] = ['127.0.0.1']): HandlerDeps & { events: string[]; clock: FakeClock } {
  const events: string[] = [];
  return {
    runtime: { execSync: exec } as unknown as Runtime,
    recorder: { event: (_o: unknown, _t: string, r: string, m: string) => void events.push(`${r}: ${m}`) },
    clock: new FakeClock(),
    podIPs: async () => ips,
    httpTimeoutMs: 1000,
    events,
  };
}

test('exec hooks: success, a non-zero exit and a runtime error with upstream’s texts', async () => {
  const ok = deps(async () => ({ stdout: Buffer.from('fine'), stderr: Buffer.alloc(0), exitCode: 0 }));
  assert.equal(await runLifecycleHandler(ok, pod, c, 'cid', { exec: { command: ['true'] } }), undefined);
  const bad = deps(async () => ({ stdout: Buffer.from('out\n'), stderr: Buffer.from('err\n'), exitCode: 2 }));
  assert.equal(
    await runLifecycleHandler(bad, pod, c, 'cid', { exec: { command: ['sh', '-c', 'exit 2'] } }),
    'Exec lifecycle hook ([sh -c exit 2]) for Container "app" in Pod "web_default(u1)" failed - error: command \'sh -c exit 2\' exited with 2: err\n, message: "out\\nerr\\n"',
  );
  const gone = deps(async () => {
    throw new CRIError('NotFound', 'rpc error: code = NotFound desc = container not found');
  });
  assert.match(
    (await runLifecycleHandler(gone, pod, c, 'cid', { exec: { command: ['x'] } }))!,
    /failed - error: rpc error: code = NotFound desc = container not found, message: ""$/,
  );
});

test('httpGet hooks: any HTTP answer is delivered (even 500); transport errors fail; the pod IP is the default host', async () => {
  const paths: string[] = [];
  const srv = http.createServer((req, res) => {
    paths.push(`${req.url} ${req.headers['user-agent']}`);
    res.statusCode = req.url === '/boom' ? 500 : 200;
    res.end();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as AddressInfo).port;
  try {
    const d = deps(async () => ({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 }));
    assert.equal(await runLifecycleHandler(d, pod, c, 'cid', { httpGet: { path: '/start', port } }), undefined);
    assert.equal(await runLifecycleHandler(d, pod, c, 'cid', { httpGet: { path: '/boom', port } }), undefined);
    assert.deepEqual(paths, ['/start kube-lifecycle/1.32', '/boom kube-lifecycle/1.32']);
  } finally {
    await new Promise((r) => srv.close(r));
  }
  const free = await freePort();
  const d = deps(async () => ({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 }));
  assert.equal(
    await runLifecycleHandler(d, pod, c, 'cid', { httpGet: { path: '/stop', port: free } }),
    `HTTP lifecycle hook (/stop) for Container "app" in Pod "web_default(u1)" failed - error: Get "http://127.0.0.1:${free}/stop": dial tcp 127.0.0.1:${free}: connect: connection refused`,
  );
  const noIP = deps(async () => ({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 }), []);
  assert.match((await runLifecycleHandler(noIP, pod, c, 'cid', { httpGet: { path: '/x', port: 80 } }))!, /failed - error: failed to find networking container$/);
});

test('sleep hooks wait on the clock', async () => {
  const d = deps(async () => ({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 }));
  let done = false;
  const p = runLifecycleHandler(d, pod, c, 'cid', { sleep: { seconds: 5 } }).then((r) => {
    done = true;
    return r;
  });
  await d.clock.advance(4000);
  assert.equal(done, false);
  await d.clock.advance(1000);
  assert.equal(await p, undefined);
});
