/**
 * `k8ts agent`: joins this machine to a cluster as a node, the way kubeadm/k3s agents
 * do — TLS bootstrap with a bootstrap token (CertificateSigningRequest for
 * CN=system:node:<name>, O=system:nodes, auto-approved and signed by the cluster CA),
 * then the kubelet with its own client certificate (Node authorizer + NodeRestriction
 * apply), a self-signed kubelet serving certificate, the node's podCIDR from the node
 * IPAM controller, and its runtime.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/kubelet-tls-bootstrapping/
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { createCA, issueCert } from '../pki/pki.js';
import { isAlreadyExists } from '../apimachinery/errors.js';
import { requestNodeClientCertificate } from '../controllers/csr/request.js';
import { RestClient } from '../client/rest-client.js';
import { HttpsTransport } from '../client/transport.js';
import { R, type Client } from '../client/types.js';
import { localAddresses } from '../kubelet/server/tls.js';
import { hostname } from 'node:os';
import { discoverCA, parseJoinToken } from './join-token.js';
import { startNode, type RuntimeFlags } from './node.js';
import type { ServiceProxyFlags } from '../proxy/node-proxy.js';

export interface AgentOptions extends RuntimeFlags {
  /** API server URL, e.g. https://10.0.0.1:6443 */
  server: string;
  /** join token (`K10<hash>::<id>.<secret>`) */
  token: string;
  nodeName: string;
  dataDir: string;
  /** kubelet server port (default 10250) */
  kubeletPort: number;
  /** the kubelet's `--node-ip` */
  nodeIP?: string;
  /** the service proxy's flags (src/proxy) */
  proxy?: ServiceProxyFlags;
  quiet?: boolean;
}

export interface RunningAgent {
  stop(): Promise<void>;
}

function readIf(p: string): string | undefined {
  return existsSync(p) ? readFileSync(p, 'utf8') : undefined;
}

/** Waits until the node IPAM controller has given the node a podCIDR. */
async function waitForPodCIDR(client: Client, name: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await client.get<Node & KObject>(R.nodes, '', name);
    if (n.spec?.podCIDR) return n.spec.podCIDR;
    if (Date.now() > deadline) throw new Error(`node ${name} got no podCIDR in ${timeoutMs / 1000} s (is the node-ipam controller running on the server?)`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function runAgent(o: AgentOptions): Promise<RunningAgent> {
  const dataDir = resolve(o.dataDir);
  const tls = join(dataDir, 'tls');
  mkdirSync(tls, { recursive: true, mode: 0o700 });
  const tok = parseJoinToken(o.token);

  // 1. trust: the CA from disk, or from the server checked against the token's hash
  let ca = readIf(join(tls, 'server-ca.crt'));
  if (!ca) {
    if (!tok.caHash) throw new Error('the token carries no CA hash (K10<hash>::…): cannot verify the server');
    ca = await discoverCA(o.server, tok.caHash);
    writeFileSync(join(tls, 'server-ca.crt'), ca);
  }

  // 2. the kubelet client certificate: TLS bootstrap on first start
  let cert = readIf(join(tls, 'kubelet-client.crt'));
  let key = readIf(join(tls, 'kubelet-client.key'));
  if (!cert || !key) {
    const bootstrap = new RestClient(new HttpsTransport({ server: o.server, ca, token: `${tok.id}.${tok.secret}` }), { userAgent: 'k8ts-agent/bootstrap' });
    const creds = await requestNodeClientCertificate(bootstrap, o.nodeName);
    cert = creds.cert;
    key = creds.key;
    writeFileSync(join(tls, 'kubelet-client.crt'), cert, { mode: 0o644 });
    writeFileSync(join(tls, 'kubelet-client.key'), key, { mode: 0o600 });
  }
  const client = new RestClient(new HttpsTransport({ server: o.server, ca, cert, key }), { userAgent: `kubelet/v1.32.0 (${o.nodeName})` });

  // 3. the kubelet serving certificate: self-signed, as a kubelet without --tls-cert-file
  let serving =
    readIf(join(tls, 'kubelet.crt')) && readIf(join(tls, 'kubelet.key'))
      ? { cert: readFileSync(join(tls, 'kubelet.crt'), 'utf8'), key: readFileSync(join(tls, 'kubelet.key'), 'utf8') }
      : undefined;
  if (!serving) {
    const selfCA = await createCA(`${o.nodeName}-ca@${Math.floor(Date.now() / 1000)}`);
    serving = await issueCert(selfCA, {
      commonName: `${o.nodeName}@${Math.floor(Date.now() / 1000)}`,
      dnsNames: [...new Set([o.nodeName, hostname().toLowerCase(), 'localhost'])],
      ipAddresses: localAddresses(),
      usage: 'server',
    });
    writeFileSync(join(tls, 'kubelet.crt'), serving.cert);
    writeFileSync(join(tls, 'kubelet.key'), serving.key, { mode: 0o600 });
  }

  // 4. the Node object and its podCIDR
  try {
    await client.create(R.nodes, '', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: o.nodeName, labels: { 'kubernetes.io/hostname': o.nodeName, 'kubernetes.io/os': 'linux' } },
    });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  const podCIDR = await waitForPodCIDR(client, o.nodeName);

  // 5. runtime, kubelet server, kubelet
  const node = await startNode({
    client,
    nodeName: o.nodeName,
    dataDir,
    podCIDR,
    runtime: o,
    servingCert: serving,
    clientCA: ca,
    kubeletPort: o.kubeletPort,
    nodeIP: o.nodeIP,
    proxy: o.proxy,
  });
  if (!o.quiet) {
    console.log(
      [
        `k8ts agent: node ${o.nodeName} joined ${o.server}`,
        `  podCIDR:  ${podCIDR}`,
        `  runtime:  ${node.runtimeDescription}`,
        `  kubelet:  https://:${node.kubeletPort}`,
        `  data dir: ${dataDir}`,
      ].join('\n'),
    );
  }
  return { stop: () => node.stop() };
}
