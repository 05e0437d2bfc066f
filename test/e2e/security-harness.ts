/**
 * An in-process API server over HTTPS configured as `k8ts server` configures it
 * (src/apiserver/config.ts: authentication, Node+RBAC authorization, admission, audit,
 * encryption) for the security and fuzz e2e tests, driven with the real kubectl as
 * several users: client certificates issued by the test CA and static tokens.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { allDefinitions, computedDefinitions } from '../../src/api/all.js';
import type { UserInfo } from '../../src/api/resource.js';
import { APIServer } from '../../src/apiserver/apiserver.js';
import { Auditor, type AuditSink } from '../../src/apiserver/audit/audit.js';
import { parsePolicy } from '../../src/apiserver/audit/policy.js';
import { bootstrapCluster } from '../../src/apiserver/bootstrap/bootstrap.js';
import { createCA, issueCert, type KeyPairPEM } from '../../src/pki/pki.js';
import { buildServerConfig, type ServerConfig, type ServerConfigOptions } from '../../src/apiserver/config.js';
import { listen } from '../../src/apiserver/server.js';
import { podBinding } from '../../src/apiserver/subresources/pod-binding.js';
import { RestClient } from '../../src/client/rest-client.js';
import { InProcessTransport } from '../../src/apiserver/loopback.js';
import type { Client } from '../../src/client/types.js';
import { startControllers } from '../../src/controllers/index.js';
import { controllerClient } from '../../src/controllers/util/controller-client.js';
import { openStorage } from '../../src/storage/index.js';
import type { Storage } from '../../src/storage/interface.js';
import { kubectlPath, type KubectlResult } from './harness.js';

export interface SecureCluster {
  dir: string;
  url: string;
  port: number;
  ca: KeyPairPEM;
  api: APIServer;
  config: ServerConfig;
  storage: Storage;
  /** audit lines written so far */
  auditLines: string[];
  /** in-process client acting as `user` */
  clientFor(user: UserInfo): Client;
  /** kubeconfig for a certificate user (CN=name, O=groups) */
  certUser(name: string, groups?: string[]): Promise<string>;
  /** kubeconfig for a bearer token */
  tokenUser(name: string, token: string): string;
  /** runs kubectl with a kubeconfig (asynchronously: the server runs in this process) */
  kubectl(kubeconfig: string, args: string[], input?: string): Promise<KubectlResult>;
  admin: string;
  stop(): Promise<void>;
}

export const AUDIT_POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: ["system:kube-scheduler", "system:kube-controller-manager", "system:apiserver"]
  - level: None
    userGroups: ["system:serviceaccounts:kube-system", "system:nodes"]
  - level: RequestResponse
    resources: [{ group: "", resources: ["configmaps"] }]
  - level: Metadata
`;

export interface StartSecureOptions extends ServerConfigOptions {
  /** static tokens `token,user,uid,"groups"` lines */
  tokens?: string;
  /** an encryption config text (written to a file) */
  encryption?: string;
}

/** Starts the cluster; call stop() in `after`. */
export async function startSecureCluster(o: StartSecureOptions = {}): Promise<SecureCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-sec-'));
  const ca = await createCA('k8ts-test-ca');
  const serving = await issueCert(ca, { commonName: 'kube-apiserver', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usage: 'server' });
  let tokenAuthFile: string | undefined;
  if (o.tokens) writeFileSync((tokenAuthFile = join(dir, 'tokens.csv')), o.tokens);
  let encryptionProviderConfig: string | undefined;
  if (o.encryption) writeFileSync((encryptionProviderConfig = join(dir, 'encryption.yaml')), o.encryption);
  const auditLines: string[] = [];
  const sink: AuditSink = { write: (l) => void auditLines.push(l) };
  const config = buildServerConfig({
    dataDir: dir,
    tokenAuthFile,
    encryptionProviderConfig,
    auditor: new Auditor({ policy: parsePolicy(AUDIT_POLICY), sink }),
    ...o,
  });
  const storage = config.wrapStorage(await openStorage({ kind: 'sqlite', dataDir: dir }));
  const api = new APIServer({
    storage,
    ...config.apiServer,
    definitions: [...allDefinitions({ serviceCIDR: '10.96.0.0/12', rbacEscalationGuard: config.rbacEscalationGuard }), ...computedDefinitions()],
    subresources: [podBinding, ...config.subresources],
    serverAddress: '127.0.0.1:6443',
  });
  await api.start();
  const server: Server = await listen(api, { host: '127.0.0.1', port: 0, cert: serving.cert, key: serving.key, clientCA: ca.cert });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const url = `https://127.0.0.1:${port}`;
  const clientFor = (u: UserInfo): Client => new RestClient(new InProcessTransport(api, u), { userAgent: `k8ts-test/${u.username}` });
  const master = clientFor({ username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] });
  await bootstrapCluster(master, { advertiseAddress: '10.255.0.1', securePort: port, kubernetesServiceIP: '10.96.0.1' });
  await config.bootstrap(master);
  // the access controllers act as their own ServiceAccounts, as in `k8ts server`; the
  // others as system:masters here
  const own = (name: string): [string, Client] => [name, controllerClient(clientFor, name)];
  const controllers = await startControllers({
    client: clientFor({ username: 'system:kube-controller-manager', groups: ['system:masters', 'system:authenticated'] }),
    clients: Object.fromEntries(['clusterrole-aggregation-controller', 'resourcequota-controller', 'certificate-controller', 'root-ca-cert-publisher'].map(own)),
    ca,
    recorder: { event: () => undefined },
  });
  const cacheDir = join(dir, 'kube-cache');
  const kubeconfig = (name: string, user: Record<string, string>): string => {
    const p = join(dir, `kubeconfig-${name.replace(/[^a-z0-9-]/gi, '_')}.yaml`);
    writeFileSync(
      p,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'k8ts', cluster: { server: url, 'certificate-authority-data': Buffer.from(ca.cert).toString('base64') } }],
        users: [{ name, user }],
        contexts: [{ name, context: { cluster: 'k8ts', user: name, namespace: 'default' } }],
        'current-context': name,
      }),
      { mode: 0o600 },
    );
    return p;
  };
  const certUser = async (name: string, groups: string[] = []): Promise<string> => {
    const c = await issueCert(ca, { commonName: name, organizations: groups, usage: 'client' });
    return kubeconfig(name, { 'client-certificate-data': Buffer.from(c.cert).toString('base64'), 'client-key-data': Buffer.from(c.key).toString('base64') });
  };
  const bin = kubectlPath();
  const kubectl = (cfg: string, args: string[], input?: string): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const p = spawn(bin, ['--kubeconfig', cfg, '--cache-dir', cacheDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const t = setTimeout(() => p.kill('SIGKILL'), 60_000);
      p.on('close', (code) => {
        clearTimeout(t);
        resolve({ code: code ?? -1, stdout, stderr });
      });
      p.stdin.end(input ?? '');
    });
  const admin = await certUser('kubernetes-admin', ['system:masters']);
  return {
    dir,
    url,
    port,
    ca,
    api,
    config,
    storage,
    auditLines,
    clientFor,
    certUser,
    tokenUser: (name, token) => kubeconfig(name, { token }),
    kubectl,
    admin,
    async stop() {
      await controllers.stop();
      server.closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
      api.stop();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
