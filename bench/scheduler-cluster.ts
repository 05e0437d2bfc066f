/**
 * The API server side of the scheduler benchmark: a real `k8ts server` child process
 * (SQLite storage, HTTPS, authentication, admission, watch cache) with its own scheduler,
 * kubelet and controllers disabled — the scheduler under test runs in the benchmark
 * process and talks to it over HTTPS, as kube-scheduler talks to kube-apiserver.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { allDefinitions } from '../src/api/all.js';
import { podDisruptionBudgetDefinition } from '../src/api/policy/v1/poddisruptionbudget/strategy.js';
import type { ResourceDefinition, UserInfo } from '../src/api/resource.js';
import { namespaceLifecycle } from '../src/apiserver/admission/plugins/namespace-lifecycle.js';
import { APIServer } from '../src/apiserver/apiserver.js';
import { bootstrapCluster } from '../src/apiserver/bootstrap/bootstrap.js';
import { podBinding } from '../src/apiserver/subresources/pod-binding.js';
import { RestClient } from '../src/client/rest-client.js';
import { HttpsTransport } from '../src/client/transport.js';
import { InProcessTransport } from '../src/apiserver/loopback.js';
import { openStorage } from '../src/storage/index.js';
import type { Client } from '../src/client/types.js';
import { ensureBuilt, freePort, ROOT } from '../test/e2e/harness.js';
import { cpuSecondsOf } from './scheduler-cpu.js';

/** utime + stime of a process, in seconds (from /proc). */
export function cpuSeconds(pid: number): number {
  return cpuSecondsOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** Resident set size of a process, in MiB. */
export function rssMiB(pid: number): number {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(s);
  return m ? Number(m[1]) / 1024 : 0;
}

export interface BenchServer {
  pid: number;
  url: string;
  /** a new client (own connection pool) authenticated as the cluster admin */
  client(): Client;
  stop(): Promise<void>;
}

/** Starts `k8ts server` on a fresh data dir and waits for /readyz. */
export async function startBenchServer(): Promise<BenchServer> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-sched-'));
  const port = await freePort();
  const proc: ChildProcess = spawn(
    process.execPath,
    [
      // extra node flags for the server process, e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p"
      ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
      join(ROOT, 'dist/k8ts.mjs'),
      'server',
      '--data-dir',
      dir,
      '--secure-port',
      String(port),
      '--disable-agent',
      '--disable-scheduler',
      '--disable-controller-manager',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const kc = join(dir, 'kubeconfig.yaml');
  const t0 = performance.now();
  let transportOpts: ConstructorParameters<typeof HttpsTransport>[0] | undefined;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`k8ts server exited with ${proc.exitCode}`);
    if (existsSync(kc) && !transportOpts) {
      const cfg = parse(readFileSync(kc, 'utf8'));
      const b = (s: string) => Buffer.from(s, 'base64').toString();
      transportOpts = {
        server: cfg.clusters[0].cluster.server,
        ca: b(cfg.clusters[0].cluster['certificate-authority-data']),
        cert: b(cfg.users[0].user['client-certificate-data']),
        key: b(cfg.users[0].user['client-key-data']),
      };
    }
    if (transportOpts) {
      try {
        const r = await new RestClient(new HttpsTransport(transportOpts)).raw('GET', '/readyz');
        if (r.status === 200) break;
      } catch {
        /* not yet */
      }
    }
    if (performance.now() - t0 > 60_000) throw new Error('k8ts server did not become ready');
    await new Promise((r) => setTimeout(r, 50));
  }
  const opts = transportOpts!;
  return {
    pid: proc.pid!,
    url: opts.server,
    client: () => new RestClient(new HttpsTransport(opts), { userAgent: 'k8ts-bench-scheduler' }),
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `f(i)` for i in [0, n) with at most `conc` in flight. */
export async function parallel(n: number, conc: number, f: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(conc, n) }, async () => {
      while (next < n) await f(next++);
    }),
  );
}

/** An API server in this thread (same wiring as `k8ts server`: all definitions, pods/binding, NamespaceLifecycle) on a fresh SQLite file. */
export interface InProcessAPI {
  api: APIServer;
  /** a client as `user` over the in-process transport */
  clientFor(user: UserInfo): Client;
  stop(): Promise<void>;
}

export const ADMIN: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
export const SCHEDULER: UserInfo = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };

export async function startInProcessAPI(): Promise<InProcessAPI> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-sched-'));
  const storage = await openStorage({ kind: 'sqlite', dataDir: dir });
  const api = new APIServer({
    storage,
    definitions: [...allDefinitions({ serviceCIDR: '10.96.0.0/12' }), podDisruptionBudgetDefinition as ResourceDefinition],
    subresources: [podBinding],
    admission: [namespaceLifecycle],
    serverAddress: '127.0.0.1:6443',
  });
  await api.start();
  const clientFor = (u: UserInfo): Client => new RestClient(new InProcessTransport(api, u), { userAgent: `k8ts-bench/${u.username}` });
  await bootstrapCluster(clientFor(ADMIN), { advertiseAddress: '10.0.0.1', securePort: 6443, kubernetesServiceIP: '10.96.0.1' });
  return {
    api,
    clientFor,
    async stop() {
      api.stop();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
