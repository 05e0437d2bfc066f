/**
 * In-process API benchmark: pod creates through the API server pipeline without
 * HTTP/TLS (InProcessTransport), to separate registry/validation/storage cost from
 * transport cost. Prints creates/s and µs of CPU per create.
 * Usage: node --import tsx bench/api-inprocess.ts [--pods N] [--concurrency C]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allDefinitions } from '../src/api/all.js';
import { APIServer } from '../src/apiserver/apiserver.js';
import { namespaceLifecycle } from '../src/apiserver/admission/plugins/namespace-lifecycle.js';
import { RestClient } from '../src/client/rest-client.js';
import { InProcessTransport } from '../src/client/transport.js';
import { R } from '../src/client/types.js';
import { openStorage } from '../src/storage/index.js';

const args = process.argv.slice(2);
const arg = (n: string, d: number): number => (args.includes(`--${n}`) ? Number(args[args.indexOf(`--${n}`) + 1]) : d);
const PODS = arg('pods', 20000);
const CONC = arg('concurrency', 64);

const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-'));
const storage = await openStorage({ kind: 'sqlite', dataDir: dir });
const api = new APIServer({ storage, definitions: allDefinitions({ serviceCIDR: '10.96.0.0/12' }), admission: [namespaceLifecycle], serverAddress: 'x' });
await api.start();
const client = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] }));
await client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
let next = 0;
const c0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: CONC }, async () => {
    while (next < PODS) {
      const i = next++;
      await client.create(R.pods, 'default', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `bench-${i}`, labels: { app: 'bench' } },
        spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10Mi' } } }] },
      });
    }
  }),
);
const secs = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(c0);
const cpuS = (cpu.user + cpu.system) / 1e6;
console.log(`in-process pod create: ${(PODS / secs).toFixed(0)} pods/s, ${((cpuS / PODS) * 1e6).toFixed(0)} µs CPU per create (client included)`);
api.stop();
await storage.close();
rmSync(dir, { recursive: true, force: true });
