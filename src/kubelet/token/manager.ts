/**
 * ServiceAccount token manager (upstream pkg/kubelet/token): requests bound tokens for
 * projected `serviceAccountToken` volume sources through `serviceaccounts/<sa>/token`
 * (TokenRequest with the pod as bound object) and caches each until 80 % of its
 * lifetime has passed (or it is older than 24 h), so pods get fresh tokens without a
 * request per sync.
 *
 * @see https://kubernetes.io/docs/concepts/storage/projected-volumes/#serviceaccounttoken
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/token/token_manager.go
 */
import type { KObject } from '../../api/resource.js';
import type { Client } from '../../client/types.js';
import { R } from '../../client/types.js';

export interface TokenRequestSpec {
  namespace: string;
  serviceAccount: string;
  audiences: string[];
  /** seconds (default 3607, as upstream's projected token default with the extension) */
  expirationSeconds: number;
  pod: { name: string; uid: string };
}

interface Cached {
  token: string;
  /** ms epoch after which a new token is requested */
  refreshAt: number;
}

export class TokenManager {
  private readonly cache = new Map<string, Cached>();
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    private readonly client: Client,
    private readonly now: () => number = Date.now,
  ) {}

  private key(s: TokenRequestSpec): string {
    return [s.namespace, s.serviceAccount, s.pod.uid, s.expirationSeconds, ...s.audiences].join('\x00');
  }

  /**
   * A token for the spec, from the cache or a new TokenRequest.
   * @throws StatusError from the API server (e.g. serviceaccounts "x" not found)
   */
  async getToken(s: TokenRequestSpec): Promise<string> {
    const k = this.key(s);
    const c = this.cache.get(k);
    if (c && this.now() < c.refreshAt) return c.token;
    let p = this.inflight.get(k);
    if (!p) {
      p = this.request(s, k).finally(() => this.inflight.delete(k));
      this.inflight.set(k, p);
    }
    return p;
  }

  private async request(s: TokenRequestSpec, k: string): Promise<string> {
    const tr = await this.client.createSubresource<KObject>(R.serviceaccounts, s.namespace, s.serviceAccount, 'token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {
        audiences: s.audiences,
        expirationSeconds: s.expirationSeconds,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: s.pod.name, uid: s.pod.uid },
      },
    });
    const st = tr.status as { token?: string; expirationTimestamp?: string } | undefined;
    if (!st?.token) throw new Error(`TokenRequest for serviceaccount ${s.namespace}/${s.serviceAccount} returned no token`);
    const issued = this.now();
    const exp = st.expirationTimestamp ? Date.parse(st.expirationTimestamp) : issued + s.expirationSeconds * 1000;
    const ttl = Math.max(0, exp - issued);
    this.cache.set(k, { token: st.token, refreshAt: issued + Math.min(ttl * 0.8, 24 * 3600_000) });
    return st.token;
  }

  /** Drops the tokens of a pod that is gone. */
  deletePod(uid: string): void {
    for (const k of this.cache.keys()) if (k.split('\x00')[2] === uid) this.cache.delete(k);
  }
}
