/**
 * In-process API benchmark: pod creates through the API server pipeline as `k8ts server`
 * assembles it (authentication filter, Node+RBAC authorization, every admission plugin,
 * registry, SQLite storage) but without HTTP/TLS, to separate the pipeline's cost from
 * the transport's. Request bodies are encoded before the clock starts and responses are
 * not decoded, so the CPU measured is the server's alone.
 *
 * Prints creates/s, µs of CPU per create, and creates per CPU-second.
 * Usage: node --import tsx bench/api-inprocess.ts [--pods N] [--concurrency C] [--runs R]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInfo } from '../src/api/resource.js';
import { allDefinitions, computedDefinitions } from '../src/api/all.js';
import { APIServer } from '../src/apiserver/apiserver.js';
import type { ApiRequest, ResponseWriter } from '../src/apiserver/http/types.js';
import { buildServerConfig } from '../src/apiserver/config.js';
import { RestClient } from '../src/client/rest-client.js';
import { InProcessTransport } from '../src/apiserver/loopback.js';
import { R } from '../src/client/types.js';
import { openStorage } from '../src/storage/index.js';

const args = process.argv.slice(2);
const arg = (n: string, d: number): number => (args.includes(`--${n}`) ? Number(args[args.indexOf(`--${n}`) + 1]) : d);
const PODS = arg('pods', 20000);
const CONC = arg('concurrency', 64);
const RUNS = arg('runs', 1);

const ADMIN: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

/** A ResponseWriter that keeps only the status (the client's decoding is not measured). */
class StatusWriter implements ResponseWriter {
  status = 0;
  closed = false;
  constructor(private readonly done: (status: number) => void) {}
  writeHead(status: number): void {
    this.status = status;
  }
  write(): void {}
  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.done(this.status);
  }
  onClose(cb: () => void): void {
    if (this.closed) cb();
  }
}

const podBody = (run: number, i: number): Buffer =>
  Buffer.from(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `bench-${run}-${i}`, labels: { app: 'bench' } },
      spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10Mi' } } }] },
    }),
  );

const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-'));
const storage = await openStorage({ kind: 'sqlite', dataDir: dir });
const config = buildServerConfig({ dataDir: dir });
const api = new APIServer({
  storage,
  ...config.apiServer,
  definitions: [...allDefinitions({ serviceCIDR: '10.96.0.0/12', rbacEscalationGuard: config.rbacEscalationGuard }), ...computedDefinitions()],
  subresources: config.subresources,
  serverAddress: 'x',
});
await api.start();
const client = new RestClient(new InProcessTransport(api, ADMIN));
for (const name of ['default', 'kube-system', 'kube-public']) await client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
await config.bootstrap(client);
await client.create(R.serviceaccounts, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });

const headers = { 'content-type': 'application/json', accept: 'application/json' };
const create = (body: Buffer): Promise<number> =>
  new Promise((resolve) => {
    const req: ApiRequest = { method: 'POST', url: '/api/v1/namespaces/default/pods', headers, body, user: ADMIN, remoteAddress: '127.0.0.1' };
    void api.handle(req, new StatusWriter(resolve));
  });

for (let run = 0; run < RUNS; run++) {
  const bodies = Array.from({ length: PODS }, (_, i) => podBody(run, i));
  let next = 0;
  let failures = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < PODS) {
        const status = await create(bodies[next++]!);
        if (status !== 201) failures++;
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  console.log(
    `in-process pod create: ${(PODS / secs).toFixed(0)} pods/s, ${((cpuS / PODS) * 1e6).toFixed(0)} µs CPU per create → ${(PODS / cpuS).toFixed(0)} creates per CPU-second; failures ${failures}`,
  );
}
api.stop();
await config.close();
await storage.close();
rmSync(dir, { recursive: true, force: true });
