/**
 * ServiceAccount token manager (upstream pkg/kubelet/token): requests bound tokens for
 * projected `serviceAccountToken` volume sources through `serviceaccounts/<sa>/token`
 * (a TokenRequest with the pod as bound object) and caches each one until it is within
 * 20 % of its lifetime of expiring, or older than 24 h (each less a random jitter of up
 * to 10 s), so pods get fresh tokens without a request per sync. A refresh that fails
 * while the cached token is still valid keeps serving the cached one, as upstream does;
 * tokens past their expiry are dropped at most once a minute.
 *
 * @see https://kubernetes.io/docs/concepts/storage/projected-volumes/#serviceaccounttoken
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/token/token_manager.go
 */
import type { KObject } from '../../api/resource.js';
import type { Client } from '../../client/types.js';
import { R } from '../../client/types.js';

/** What a projected `serviceAccountToken` source asks for, with the pod it is bound to. */
export interface TokenRequestSpec {
  namespace: string;
  serviceAccount: string;
  /** empty = the API server's own audiences (the API server fills them in) */
  audiences: string[];
  /** requested lifetime in seconds (the source's `expirationSeconds`; 3607 for kube-api-access volumes, set by admission) */
  expirationSeconds: number;
  pod: { name: string; uid: string };
}

/** A TokenRequest as sent and as answered (`status` filled in by the API server). */
interface TokenRequest extends KObject {
  spec: {
    audiences: string[];
    expirationSeconds: number;
    boundObjectRef: { apiVersion: string; kind: string; name: string; uid: string };
  };
  status?: { token?: string; expirationTimestamp?: string };
}

interface Cached {
  token: string;
  podUID: string;
  /** ms epoch the token expires (status.expirationTimestamp) */
  exp: number;
  /** requested lifetime, seconds */
  ttlSeconds: number;
}

/** Upstream maxTTL: a token older than this is refreshed whatever its lifetime. */
const MAX_TTL_MS = 24 * 3600_000;
/** Upstream maxJitter. */
const MAX_JITTER_MS = 10_000;
/** Upstream gcPeriod: how often expired tokens are dropped. */
const GC_PERIOD_MS = 60_000;

interface TokenManagerOptions {
  /** ms of jitter subtracted from the refresh deadlines (default: random whole seconds in [0, 10 s), as upstream) */
  jitterMs?: () => number;
  /** reports a failed refresh that was answered from the cache (upstream logs "Couldn't update token") */
  log?: (msg: string, err: unknown) => void;
}

export class TokenManager {
  private readonly cache = new Map<string, Cached>();
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly jitter: () => number;
  private lastGC: number;

  /**
   * @param client the kubelet's client (needs `create serviceaccounts/token`, allowed to nodes for their own pods)
   * @param now the clock, ms since the epoch
   */
  constructor(
    private readonly client: Client,
    private readonly now: () => number = Date.now,
    private readonly o: TokenManagerOptions = {},
  ) {
    this.jitter = o.jitterMs ?? (() => Math.floor(Math.random() * (MAX_JITTER_MS / 1000)) * 1000);
    this.lastGC = now();
  }

  /** Upstream keyFunc: service account, namespace, audiences, expiration and bound object. */
  private key(s: TokenRequestSpec): string {
    return JSON.stringify([s.serviceAccount, s.namespace, s.audiences, s.expirationSeconds, s.pod.name, s.pod.uid]);
  }

  /**
   * A token for the spec, from the cache or a new TokenRequest.
   * @throws Error `failed to fetch token: <API error>` when there is no cached token and
   *   the request fails (e.g. `serviceaccounts "x" not found`), or `token <key> expired
   *   and refresh failed: <API error>` when the cached one has expired
   */
  async getToken(s: TokenRequestSpec): Promise<string> {
    const now = this.now();
    if (now - this.lastGC >= GC_PERIOD_MS) this.cleanup();
    const k = this.key(s);
    const c = this.cache.get(k);
    if (c && !this.requiresRefresh(c, now)) return c.token;
    let p = this.inflight.get(k);
    if (!p) {
      p = this.refresh(s, k).finally(() => this.inflight.delete(k));
      this.inflight.set(k, p);
    }
    return p;
  }

  /** Upstream requiresRefresh: older than 24 h, or within 20 % of the lifetime of expiring (both less the jitter). */
  private requiresRefresh(c: Cached, now: number): boolean {
    const jitter = this.jitter();
    const iat = c.exp - c.ttlSeconds * 1000;
    if (now > iat + MAX_TTL_MS - jitter) return true;
    return now > c.exp - Math.floor((c.ttlSeconds * 20) / 100) * 1000 - jitter;
  }

  private async refresh(s: TokenRequestSpec, k: string): Promise<string> {
    const cached = this.cache.get(k);
    let tr: TokenRequest;
    try {
      tr = await this.request(s);
    } catch (e) {
      const msg = (e as Error).message;
      if (!cached) throw new Error(`failed to fetch token: ${msg}`);
      if (this.now() > cached.exp) throw new Error(`token ${k} expired and refresh failed: ${msg}`);
      this.o.log?.(`Couldn't update token for serviceaccount ${s.namespace}/${s.serviceAccount} (pod ${s.pod.name})`, e);
      return cached.token;
    }
    const exp = tr.status?.expirationTimestamp ? Date.parse(tr.status.expirationTimestamp) : this.now() + s.expirationSeconds * 1000;
    this.cache.set(k, { token: tr.status!.token!, podUID: s.pod.uid, exp, ttlSeconds: tr.spec?.expirationSeconds ?? s.expirationSeconds });
    return tr.status!.token!;
  }

  private async request(s: TokenRequestSpec): Promise<TokenRequest> {
    const body: TokenRequest = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: {},
      spec: {
        audiences: s.audiences,
        expirationSeconds: s.expirationSeconds,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: s.pod.name, uid: s.pod.uid },
      },
    };
    const tr = await this.client.createSubresource<TokenRequest>(R.serviceaccounts, s.namespace, s.serviceAccount, 'token', body);
    if (!tr.status?.token) throw new Error(`TokenRequest for serviceaccount ${s.namespace}/${s.serviceAccount} returned no token`);
    return tr;
  }

  /** Drops the tokens of a pod that is gone (upstream DeleteServiceAccountToken). */
  deletePod(uid: string): void {
    for (const [k, c] of this.cache) if (c.podUID === uid) this.cache.delete(k);
  }

  /** Drops tokens past their expiry (upstream cleanup, run by getToken at most once a minute). */
  cleanup(): void {
    const now = this.now();
    this.lastGC = now;
    for (const [k, c] of this.cache) if (now > c.exp) this.cache.delete(k);
  }

  /** Number of cached tokens. */
  get size(): number {
    return this.cache.size;
  }
}
