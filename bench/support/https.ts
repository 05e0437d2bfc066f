/**
 * What the benchmarks that drive a `k8ts server` child process share: an HTTPS agent
 * with the admin kubeconfig's client certificate, and one request as `{status, body}`.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse } from 'yaml';

/** A keep-alive HTTPS agent with the CA and client certificate of a kubeconfig file. @throws when the file is missing or half-written */
export function kubeconfigAgent(kubeconfig: string, maxSockets: number): Agent {
  const cfg = parse(readFileSync(kubeconfig, 'utf8'));
  const b = (s: string) => Buffer.from(s, 'base64').toString();
  return new Agent({
    keepAlive: true,
    maxSockets,
    ca: b(cfg.clusters[0].cluster['certificate-authority-data']),
    cert: b(cfg.users[0].user['client-certificate-data']),
    key: b(cfg.users[0].user['client-key-data']),
  });
}

/** One request to the API server on 127.0.0.1:`port`; `body` is sent as JSON. Rejects on a connection error only. */
export function httpsCall(port: number, agent: Agent | undefined, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: body ? { 'Content-Type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
