/**
 * Client credentials of the API server towards admission webhooks, as kube-apiserver reads
 * them from `--admission-control-config-file`: the MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook plugins' WebhookAdmissionConfiguration
 * (`apiserver.config.k8s.io/v1`, `kubeConfigFile: <absolute path>`) names a kubeconfig whose
 * `users` entries are named after webhook hosts. For a call to `host:port` (a service
 * reference is `<name>.<namespace>.svc:<port>`, a URL its host as written) the entry is
 * the first of: the exact name, `*.<parent domain>` from the closest parent up, the same two
 * without `:443` when the port is 443, `*`, the current context's user; none = no
 * credentials. An entry gives a bearer token (`token`, `tokenFile`), a client certificate
 * (`client-certificate[-data]` + `client-key[-data]`) and/or basic auth
 * (`username`/`password`).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/util/webhook/authentication.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/config/kubeconfig.go
 * @see https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#authenticate-apiservers
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import type { HookCredentials } from './client.js';

/** Finds the credentials for a webhook `host[:port]` (see the module comment). */
export type CredentialResolver = (hostPort: string) => HookCredentials | undefined;

interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  'auth-provider'?: unknown;
}

interface Kubeconfig {
  users?: { name: string; user?: KubeconfigUser }[];
  contexts?: { name: string; context?: { user?: string } }[];
  'current-context'?: string;
}

/**
 * The credential resolver of a kubeconfig file (files it names are read now, relative to it).
 * @throws Error when the file cannot be read or parsed, or an entry uses an auth provider
 *   (`auth provider not supported`, as upstream)
 */
export function credentialsFromKubeconfig(path: string): CredentialResolver {
  const kc = (parse(readFileSync(path, 'utf8')) ?? {}) as Kubeconfig;
  const base = dirname(path);
  const file = (p: string): string => readFileSync(isAbsolute(p) ? p : resolve(base, p), 'utf8');
  const users = new Map<string, HookCredentials>();
  for (const u of kc.users ?? []) {
    const a = u.user ?? {};
    if (a['auth-provider']) throw new Error('auth provider not supported');
    const c: HookCredentials = {};
    if (a.token) c.token = a.token;
    else if (a.tokenFile) c.token = file(a.tokenFile).trim();
    const cert = a['client-certificate-data']
      ? Buffer.from(a['client-certificate-data'], 'base64').toString('utf8')
      : a['client-certificate']
        ? file(a['client-certificate'])
        : undefined;
    const key = a['client-key-data'] ? Buffer.from(a['client-key-data'], 'base64').toString('utf8') : a['client-key'] ? file(a['client-key']) : undefined;
    if (cert) c.cert = cert;
    if (key) c.key = key;
    if (a.username || a.password) c.basic = { username: a.username ?? '', password: a.password ?? '' };
    users.set(u.name, c);
  }
  const ctxUser = kc.contexts?.find((x) => x.name === kc['current-context'])?.context?.user;
  const byName = (target: string): HookCredentials | undefined => {
    const exact = users.get(target);
    if (exact) return exact;
    const steps = target.split('.');
    for (let i = 1; i < steps.length; i++) {
      const star = users.get(`*.${steps.slice(i).join('.')}`);
      if (star) return star;
    }
    return undefined;
  };
  return (hostPort) => {
    const direct = byName(hostPort);
    if (direct) return direct;
    const m = /^(.*):443$/.exec(hostPort);
    const without = m ? byName(m[1]!) : undefined;
    if (without) return without;
    return users.get('*') ?? (ctxUser !== undefined ? users.get(ctxUser) : undefined);
  };
}

/**
 * The resolver of one webhook plugin's configuration object (the `configuration` of its
 * AdmissionConfiguration entry, or the file its `path` names).
 * @throws Error with upstream's texts: `unexpected kind: …`, `kubeConfigFile: Invalid value: "…": must be an absolute file path`
 */
export function webhookCredentialsFrom(configuration: unknown): CredentialResolver | undefined {
  const c = (configuration ?? {}) as { apiVersion?: string; kind?: string; kubeConfigFile?: string };
  if (c.kind !== undefined && c.kind !== 'WebhookAdmissionConfiguration' && c.kind !== 'WebhookAdmission') throw new Error(`unexpected kind: ${c.kind}`);
  if (!c.kubeConfigFile) return undefined;
  if (!isAbsolute(c.kubeConfigFile)) throw new Error(`kubeConfigFile: Invalid value: ${JSON.stringify(c.kubeConfigFile)}: must be an absolute file path`);
  return credentialsFromKubeconfig(c.kubeConfigFile);
}
