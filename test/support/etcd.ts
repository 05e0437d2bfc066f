/**
 * A private etcd for tests: Debian's `etcd` (package etcd-server) on free loopback
 * ports with its data under a temp dir, optionally serving TLS with client-cert
 * authentication (a test CA, server and client certificates made with the project's
 * PKI code). `stop()` stops it by PID and deletes its files; `restart` variants are
 * built by passing an existing `dataDir`.
 *
 * When etcd or etcdctl is not installed, `startTestEtcd` throws one line naming the package:
 * tests fail, saying so (test/support/deps.ts).
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCA, issueCert } from '../../src/pki/pki.js';
import { findExecutable } from '../../src/cri/containerd/supervisor.js';
import { ETCD_PACKAGES, requirePackages } from './deps.js';
import { freePort } from './ports.js';
import { startProcess, waitUntil, type TestProcess } from './proc.js';
import { makeTempDir, type TempDir } from './tmp.js';

/** Client TLS files for etcd (PEM paths). */
export interface EtcdTLSFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface TestEtcdOptions {
  /** serve https with client-cert auth (a fresh test CA unless `tlsFrom` is given) */
  tls?: boolean;
  /** reuse another test etcd's CA and certificates (its files must outlive this etcd) */
  tlsFrom?: EtcdTLSFiles & { serverCertFile: string; serverKeyFile: string };
  /** use this data dir (e.g. one made by `etcdctl snapshot restore`) instead of a fresh one; not deleted by stop() */
  dataDir?: string;
  /** member name; default `default` */
  name?: string;
  /**
   * start from this `etcdctl snapshot save` file: it is restored (with `etcdutl
   * snapshot restore`, or `etcdctl snapshot restore` where etcdutl is missing, as in
   * etcd 3.4) into a new data dir for this member's name and peer URL first
   */
  restoreFrom?: string;
  /** listen on these ports (to restart an etcd where its clients expect it); default free ones */
  ports?: { client: number; peer: number };
}

export interface TestEtcd {
  /** the client URL, for `--etcd-servers` */
  endpoint: string;
  dataDir: string;
  /** the ports it listens on */
  ports: { client: number; peer: number };
  /** client TLS files when started with `tls` */
  tls?: EtcdTLSFiles & { serverCertFile: string; serverKeyFile: string };
  /** e.g. `3.4.23` */
  version: string;
  proc: TestProcess;
  /** runs etcdctl (API v3) against this etcd with its TLS flags; throws with stderr on failure */
  etcdctl(args: string[]): string;
  /** stops etcd by PID and deletes its temp dir */
  stop(): Promise<void>;
}

/** `etcd --version`'s version, e.g. `3.4.23`. */
export function etcdVersion(): string {
  const out = spawnSync('etcd', ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return /etcd Version: (\S+)/.exec(out)?.[1] ?? 'unknown';
}

async function makeCerts(dir: string): Promise<NonNullable<TestEtcd['tls']>> {
  const ca = await createCA('k8ts-test-etcd-ca');
  const server = await issueCert(ca, { commonName: 'etcd', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usage: 'both' });
  const client = await issueCert(ca, { commonName: 'kube-apiserver-etcd-client', usage: 'client' });
  const f = (n: string, v: string) => (writeFileSync(join(dir, n), v, { mode: 0o600 }), join(dir, n));
  return {
    caFile: f('ca.crt', ca.cert),
    serverCertFile: f('server.crt', server.cert),
    serverKeyFile: f('server.key', server.key),
    certFile: f('client.crt', client.cert),
    keyFile: f('client.key', client.key),
  };
}

/** GET /health on the client URL: true when etcd answers `"health":"true"`. */
function healthy(endpoint: string, tls?: EtcdTLSFiles): Promise<boolean> {
  return new Promise((resolve) => {
    const url = new URL('/health', endpoint);
    const opts = tls ? { servername: '', ca: readFileSync(tls.caFile), cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } : {};
    const req = (tls ? request : httpRequest)(url, { ...opts, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"true"')));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/**
 * Starts etcd and waits until it is healthy.
 * @throws Error naming the missing package and `sudo scripts/install-deps.sh` when etcd or
 *   etcdctl is not installed; when etcd does not become healthy within 30 s
 */
export async function startTestEtcd(o: TestEtcdOptions = {}): Promise<TestEtcd> {
  requirePackages(ETCD_PACKAGES, 'the test etcd');
  const tmp: TempDir = makeTempDir('k8ts-etcd-');
  const dataDir = o.dataDir ?? join(tmp.path, 'data');
  const name = o.name ?? 'default';
  const tls = o.tlsFrom ?? (o.tls ? await makeCerts(tmp.path) : undefined);
  const scheme = tls ? 'https' : 'http';
  const [cport, pport] = o.ports ? [o.ports.client, o.ports.peer] : [await freePort(), await freePort()];
  const endpoint = `${scheme}://127.0.0.1:${cport}`;
  const peer = `http://127.0.0.1:${pport}`;
  if (o.restoreFrom) {
    const tool = findExecutable('etcdutl') ? 'etcdutl' : 'etcdctl';
    const r = spawnSync(
      tool,
      ['snapshot', 'restore', o.restoreFrom, `--data-dir=${dataDir}`, `--name=${name}`, `--initial-cluster=${name}=${peer}`, `--initial-advertise-peer-urls=${peer}`],
      { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } },
    );
    if (r.status !== 0) {
      tmp.remove();
      throw new Error(`${tool} snapshot restore failed (${r.status}): ${r.stderr}`);
    }
  }
  const args = [
    `--name=${name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${name}=${peer}`,
    '--log-level=warn',
    '--logger=zap',
  ];
  if (tls) args.push(`--cert-file=${tls.serverCertFile}`, `--key-file=${tls.serverKeyFile}`, `--trusted-ca-file=${tls.caFile}`, '--client-cert-auth');
  const proc = startProcess('etcd', args, join(tmp.path, 'etcd.log'));
  const stop = async () => {
    await proc.stop();
    tmp.remove();
  };
  try {
    await waitUntil('etcd to become healthy', async () => (proc.exited ? Promise.reject(new Error(`etcd exited:\n${proc.logTail()}`)) : healthy(endpoint, tls)), 30_000, 100);
  } catch (err) {
    await stop();
    throw err;
  }
  const tlsFlags = tls ? [`--cacert=${tls.caFile}`, `--cert=${tls.certFile}`, `--key=${tls.keyFile}`] : [];
  return {
    endpoint,
    dataDir,
    ports: { client: cport, peer: pport },
    tls,
    version: etcdVersion(),
    proc,
    etcdctl(a: string[]): string {
      const r = spawnSync('etcdctl', [`--endpoints=${endpoint}`, ...tlsFlags, ...a], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
      if (r.status !== 0) throw new Error(`etcdctl ${a.join(' ')} failed (${r.status}): ${r.stderr}`);
      return r.stdout;
    },
    stop,
  };
}
