/**
 * Transport benchmark: the API server's HTTPS listener (src/apiserver/server.ts, client
 * certificates, body reading) answering every request with a fixed pod as a create does
 * (`writeRawJSON`, 201), without the pipeline behind it. Measures the server's CPU per
 * request in a child process, so changes to the HTTP layer can be compared without the
 * noise of validation, admission and storage.
 *
 * Usage: node --import tsx bench/api-transport.ts [--requests N] [--concurrency C] [--runs R]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { ensurePKI } from '../src/pki/pki.js';
import { listen } from '../src/apiserver/server.js';
import { writeRawJSON } from '../src/apiserver/http/respond.js';
import type { APIServer } from '../src/apiserver/apiserver.js';

const args = process.argv.slice(2);
const arg = (n: string, d: number): number => (args.includes(`--${n}`) ? Number(args[args.indexOf(`--${n}`) + 1]) : d);
const REQUESTS = arg('requests', 20000);
const CONC = arg('concurrency', 64);
const RUNS = arg('runs', 3);

/** A created pod as the API server answers it (about 1.9 KB of JSON). */
const POD = JSON.stringify({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: 'bench-1',
    namespace: 'default',
    uid: '7d4cf5b1-7a4b-4d55-8a0e-2f5a1c1f3c11',
    resourceVersion: '12345',
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'bench' },
  },
  spec: {
    volumes: [
      {
        name: 'kube-api-access-abcde',
        projected: {
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
          defaultMode: 420,
        },
      },
    ],
    containers: [
      {
        name: 'c',
        image: 'registry.k8s.io/pause:3.10',
        resources: { requests: { cpu: '10m', memory: '10Mi' } },
        volumeMounts: [{ name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    serviceAccount: 'default',
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  },
  status: { phase: 'Pending', qosClass: 'Burstable' },
});

async function server(dir: string): Promise<void> {
  const pki = await ensurePKI(dir, ['localhost'], ['127.0.0.1']);
  const api = {
    handle: async (_req: unknown, res: Parameters<typeof writeRawJSON>[0]) => writeRawJSON(res, 201, POD),
  } as unknown as APIServer;
  const s = await listen(api, { host: '127.0.0.1', port: 0, cert: pki.server.cert, key: pki.server.key, clientCA: pki.ca.cert });
  const addr = s.address();
  process.send!({ port: typeof addr === 'object' && addr ? addr.port : 0, ca: pki.ca.cert, cert: pki.admin.cert, key: pki.admin.key });
  let c0 = process.cpuUsage();
  process.on('message', (m: string) => {
    if (m === 'start') c0 = process.cpuUsage();
    else if (m === 'stop') {
      const c = process.cpuUsage(c0);
      process.send!({ cpuS: (c.user + c.system) / 1e6 });
    } else if (m === 'exit') process.exit(0);
  });
}

async function client(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-'));
  const child = fork(fileURLToPath(import.meta.url), ['--server', dir], { execArgv: ['--import', 'tsx'] });
  const next = <T>(): Promise<T> => new Promise((r) => child.once('message', (m) => r(m as T)));
  const cfg = await next<{ port: number; ca: string; cert: string; key: string }>();
  const agent = new Agent({ keepAlive: true, maxSockets: CONC, ca: cfg.ca, cert: cfg.cert, key: cfg.key });
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } });
  const post = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: cfg.port, method: 'POST', path: '/api/v1/namespaces/default/pods', agent, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  for (let run = 0; run < RUNS; run++) {
    child.send('start');
    let n = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONC }, async () => {
        while (n < REQUESTS) {
          n++;
          if ((await post()) !== 201) throw new Error('unexpected status');
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    child.send('stop');
    const { cpuS } = await next<{ cpuS: number }>();
    console.log(
      `transport: ${(REQUESTS / secs).toFixed(0)} req/s, server ${((cpuS / REQUESTS) * 1e6).toFixed(1)} µs CPU per request → ${(REQUESTS / cpuS).toFixed(0)} per CPU-second`,
    );
  }
  child.send('exit');
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
}

if (args[0] === '--server') await server(args[1]!);
else await client();
