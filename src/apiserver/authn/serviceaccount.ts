/**
 * ServiceAccount tokens: bound, expiring JWTs signed with the cluster's service account
 * key (ES256), with upstream's claims — iss, sub, aud, exp, iat, nbf, jti and the private
 * `kubernetes.io` claim naming the namespace, service account, and the pod/secret/node
 * the token is bound to — and their validation (signature, issuer, audience, expiry,
 * and that the service account and bound object still exist with the same UID).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/serviceaccount/claims.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/serviceaccount/jwt.go
 * @see https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { KObject, ObjectLookup, UserInfo } from '../../api/resource.js';
import { InvalidTokenError, type TokenAuthenticator } from './types.js';

/** Default issuer and audience (kubeadm's `--service-account-issuer`). */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const SA_PREFIX = 'system:serviceaccount:';
export const SA_GROUP = 'system:serviceaccounts';

/** Extra keys set on ServiceAccount users (upstream serviceaccount.*Key). */
export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

/**
 * The lifetime (1 h 7 s) admission gives kube-api-access tokens: a pod-bound request for
 * exactly this long, for the API server's own audiences, is issued for
 * {@link EXPIRATION_EXTENSION_SECONDS} with a `warnafter` claim at this lifetime
 * (upstream WarnOnlyBoundTokenExpirationSeconds, `--service-account-extend-token-expiration`).
 */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607;
/** One year (upstream ExpirationExtensionSeconds). */
export const EXPIRATION_EXTENSION_SECONDS = 365 * 24 * 3600;
/** go-jose's DefaultLeeway for exp/nbf/iat, and for deletions of bound objects (seconds). */
const LEEWAY_SECONDS = 60;

/** The ES256 key pair tokens are signed with. */
export interface ServiceAccountKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** upstream keyID: base64url(sha256(DER(SubjectPublicKeyInfo))) */
  kid: string;
}

export function keyFromPEM(privatePEM: string): ServiceAccountKey {
  const privateKey = createPrivateKey(privatePEM);
  const publicKey = createPublicKey(privateKey);
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return { privateKey, publicKey, kid: createHash('sha256').update(der).digest('base64url') };
}

/** Creates a new key pair (not persisted). */
export function generateServiceAccountKey(): ServiceAccountKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return keyFromPEM(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
}

/** Loads `<dir>/sa.key`, creating it (and `sa.pub`) on first use. */
export function ensureServiceAccountKey(dir: string): ServiceAccountKey {
  const keyPath = join(dir, 'sa.key');
  if (existsSync(keyPath)) return keyFromPEM(readFileSync(keyPath, 'utf8'));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const k = generateServiceAccountKey();
  writeFileSync(keyPath, k.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
  writeFileSync(join(dir, 'sa.pub'), k.publicKey.export({ type: 'spki', format: 'pem' }) as string, { mode: 0o644 });
  return k;
}

interface Ref {
  name: string;
  uid: string;
}

/** The private `kubernetes.io` claim. */
export interface KubernetesClaim {
  namespace: string;
  serviceaccount: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
  warnafter?: number;
}

export interface TokenRequestSpec {
  namespace: string;
  serviceAccount: Ref;
  audiences: string[];
  /** lifetime in seconds */
  expirationSeconds: number;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
}

export interface IssuedToken {
  token: string;
  /** RFC 3339 */
  expirationTimestamp: string;
}

export interface ServiceAccountTokenOptions {
  key: ServiceAccountKey;
  /** the issuer written into tokens (first) and accepted (all) */
  issuers?: string[];
  /** audiences the API server accepts (`--api-audiences`; default: the issuer) */
  apiAudiences?: string[];
  /** reads ServiceAccounts, Pods, Secrets and Nodes to check bound objects */
  lookup?: ObjectLookup;
  /**
   * `--service-account-extend-token-expiration` (default true): kube-api-access tokens
   * (pod-bound, 3607 s, API audiences) are valid for a year and carry `warnafter`
   */
  extendExpiration?: boolean;
  now?: () => Date;
}

const R = {
  serviceaccounts: { group: '', version: 'v1', resource: 'serviceaccounts' },
  pods: { group: '', version: 'v1', resource: 'pods' },
  secrets: { group: '', version: 'v1', resource: 'secrets' },
  nodes: { group: '', version: 'v1', resource: 'nodes' },
};

const CACHE_TTL_MS = 10_000;

/** Issues and validates ServiceAccount JWTs. */
export class ServiceAccountTokens implements TokenAuthenticator {
  readonly name = 'serviceaccount';
  readonly issuer: string;
  private readonly issuers: string[];
  readonly apiAudiences: string[];
  private readonly now: () => Date;
  /** lookup may be set after construction (the API server is built after its authenticators) */
  lookup?: ObjectLookup;
  private readonly cache = new Map<string, { user: UserInfo; until: number }>();

  constructor(private readonly o: ServiceAccountTokenOptions) {
    this.issuers = o.issuers?.length ? o.issuers : [DEFAULT_ISSUER];
    this.issuer = this.issuers[0]!;
    this.apiAudiences = o.apiAudiences?.length ? o.apiAudiences : [this.issuer];
    this.now = o.now ?? (() => new Date());
    this.lookup = o.lookup;
  }

  /**
   * Signs a bound token (TokenRequest). `expirationTimestamp` is always iat + the
   * requested lifetime, also when the token itself was extended (as upstream reports it).
   */
  async issue(spec: TokenRequestSpec): Promise<IssuedToken> {
    const now = this.now();
    const iat = Math.floor(now.getTime() / 1000);
    let exp = iat + spec.expirationSeconds;
    const k8s: KubernetesClaim = { namespace: spec.namespace, serviceaccount: spec.serviceAccount };
    if (spec.pod) k8s.pod = spec.pod;
    if (spec.secret) k8s.secret = spec.secret;
    if (spec.node) k8s.node = spec.node;
    if (
      (this.o.extendExpiration ?? true) &&
      spec.pod &&
      spec.expirationSeconds === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS &&
      spec.audiences.every((a) => this.apiAudiences.includes(a))
    ) {
      k8s.warnafter = exp;
      exp = iat + EXPIRATION_EXTENSION_SECONDS;
    }
    const token = await new SignJWT({ 'kubernetes.io': k8s as unknown as JWTPayload[string] })
      .setProtectedHeader({ alg: 'ES256', kid: this.o.key.kid })
      .setIssuer(this.issuer)
      .setSubject(`${SA_PREFIX}${spec.namespace}:${spec.serviceAccount.name}`)
      .setAudience(spec.audiences)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.o.key.privateKey);
    return { token, expirationTimestamp: new Date((iat + spec.expirationSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }

  /**
   * Forgets every cached authentication: called when a ServiceAccount or Secret is deleted,
   * so the tokens bound to it fail from the next request on instead of after the cache TTL.
   */
  invalidateCache(): void {
    this.cache.clear();
  }

  /** Validates against the API server's audiences. */
  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    const hit = this.cache.get(token);
    const nowMs = this.now().getTime();
    if (hit && hit.until > nowMs) return hit.user;
    const r = await this.validate(token, this.apiAudiences);
    if (!r) return undefined;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(token, { user: r.user, until: nowMs + CACHE_TTL_MS });
    return r.user;
  }

  /**
   * Validates a token for `audiences` (TokenReview passes its own). Undefined when the
   * token is not a JWT from one of our issuers.
   * @throws InvalidTokenError when it is ours but invalid
   */
  async validate(token: string, audiences: string[]): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    if (token.split('.').length !== 3) return undefined;
    let iss: unknown;
    try {
      iss = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).iss;
    } catch {
      return undefined;
    }
    if (typeof iss !== 'string' || !this.issuers.includes(iss)) return undefined;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.o.key.publicKey, {
        issuer: this.issuers,
        audience: audiences,
        algorithms: ['ES256'],
        currentDate: this.now(),
        clockTolerance: LEEWAY_SECONDS,
      }));
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw new InvalidTokenError('service account token has expired');
      if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === 'aud') throw new InvalidTokenError('token audiences is invalid');
      if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === 'nbf') throw new InvalidTokenError('service account token is not valid yet');
      throw new InvalidTokenError('invalid bearer token');
    }
    if (typeof payload.iat === 'number' && payload.iat > this.now().getTime() / 1000 + LEEWAY_SECONDS) {
      throw new InvalidTokenError('service account token is issued in the future');
    }
    const k8s = payload['kubernetes.io'] as KubernetesClaim | undefined;
    if (!k8s?.namespace || !k8s.serviceaccount?.name) throw new InvalidTokenError('service account token claims could not be validated');
    const ns = k8s.namespace;
    const user: UserInfo = {
      username: `${SA_PREFIX}${ns}:${k8s.serviceaccount.name}`,
      uid: k8s.serviceaccount.uid,
      groups: [SA_GROUP, `${SA_GROUP}:${ns}`],
      extra: {},
    };
    if (payload.jti) user.extra![EXTRA_CREDENTIAL_ID] = [`JTI=${payload.jti}`];
    const lookup = this.lookup;
    if (lookup) await this.checkBound(lookup, k8s);
    if (k8s.pod) {
      user.extra![EXTRA_POD_NAME] = [k8s.pod.name];
      user.extra![EXTRA_POD_UID] = [k8s.pod.uid];
    }
    // pod-bound tokens carry their node for information (ServiceAccountTokenPodNodeInfo)
    if (k8s.node) {
      user.extra![EXTRA_NODE_NAME] = [k8s.node.name];
      if (k8s.node.uid) user.extra![EXTRA_NODE_UID] = [k8s.node.uid];
    }
    const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [];
    return { user, audiences: aud.filter((a) => audiences.includes(a)) };
  }

  /**
   * Upstream validator.Validate: the service account, and the secret, pod or (for
   * node-bound tokens) node the token is bound to still exist with the claimed UID and
   * were not deleted more than the leeway ago (a pod in its grace period still counts).
   * @throws InvalidTokenError with upstream's message
   */
  private async checkBound(lookup: ObjectLookup, k8s: KubernetesClaim): Promise<void> {
    const ns = k8s.namespace;
    const sa = k8s.serviceaccount;
    const deletedBefore = this.now().getTime() - LEEWAY_SECONDS * 1000;
    const gone = (o: KObject): boolean => !!o.metadata?.deletionTimestamp && Date.parse(o.metadata.deletionTimestamp) < deletedBefore;
    const invalidated = 'service account token has been invalidated';
    const acct = await lookup.get(R.serviceaccounts, ns, sa.name);
    if (!acct) throw new InvalidTokenError(`serviceaccounts ${JSON.stringify(sa.name)} not found`);
    if ((acct.metadata?.uid ?? '') !== sa.uid) throw new InvalidTokenError(`service account UID (${acct.metadata?.uid ?? ''}) does not match claim (${sa.uid})`);
    if (gone(acct)) throw new InvalidTokenError(`service account ${ns}/${sa.name} has been deleted`);
    if (k8s.secret) {
      const o = await lookup.get(R.secrets, ns, k8s.secret.name);
      if (!o) throw new InvalidTokenError(invalidated);
      if ((o.metadata?.uid ?? '') !== k8s.secret.uid) {
        throw new InvalidTokenError(`secret UID (${o.metadata?.uid ?? ''}) does not match service account secret ref claim (${k8s.secret.uid})`);
      }
      if (gone(o)) throw new InvalidTokenError(invalidated);
    }
    if (k8s.pod) {
      const o = await lookup.get(R.pods, ns, k8s.pod.name);
      if (!o) throw new InvalidTokenError(invalidated);
      if ((o.metadata?.uid ?? '') !== k8s.pod.uid) {
        throw new InvalidTokenError(`pod UID (${o.metadata?.uid ?? ''}) does not match service account pod ref claim (${k8s.pod.uid})`);
      }
      if (gone(o)) throw new InvalidTokenError(invalidated);
    } else if (k8s.node) {
      const o = await lookup.get(R.nodes, '', k8s.node.name);
      if (!o) throw new InvalidTokenError(invalidated);
      if ((o.metadata?.uid ?? '') !== k8s.node.uid) {
        throw new InvalidTokenError(`node UID (${o.metadata?.uid ?? ''}) does not match service account node ref claim (${k8s.node.uid})`);
      }
      if (gone(o)) throw new InvalidTokenError(invalidated);
    }
  }
}
