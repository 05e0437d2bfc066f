/**
 * Bootstrap token authentication: `<token-id>.<token-secret>` bearer tokens backed by
 * Secrets `kube-system/bootstrap-token-<token-id>` of type
 * `bootstrap.kubernetes.io/token` (what `k8ts agent` joins with).
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/bootstrap-tokens/
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/auth/authenticator/token/bootstrap/bootstrap.go
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ObjectLookup, UserInfo } from '../../api/resource.js';
import { InvalidTokenError, type TokenAuthenticator } from './types.js';

export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const BOOTSTRAP_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';

const secretsR = { group: '', version: 'v1', resource: 'secrets' };

function dataString(data: Record<string, string> | undefined, key: string): string | undefined {
  const v = data?.[key];
  return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
}

/** A fresh random token `abcdef.0123456789abcdef`. */
export function generateBootstrapToken(): { id: string; secret: string; token: string } {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const pick = (n: number): string => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('');
  const id = pick(6);
  const secret = pick(16);
  return { id, secret, token: `${id}.${secret}` };
}

/** The Secret that backs a bootstrap token (data base64-encoded as stored). */
export function bootstrapTokenSecret(id: string, secret: string, opts: { expiration?: Date; extraGroups?: string[]; description?: string } = {}) {
  const data: Record<string, string> = {
    'token-id': id,
    'token-secret': secret,
    'usage-bootstrap-authentication': 'true',
    'usage-bootstrap-signing': 'true',
  };
  if (opts.description) data.description = opts.description;
  if (opts.expiration) data.expiration = opts.expiration.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (opts.extraGroups?.length) data['auth-extra-groups'] = opts.extraGroups.join(',');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${BOOTSTRAP_SECRET_PREFIX}${id}`, namespace: 'kube-system' },
    type: BOOTSTRAP_SECRET_TYPE,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  readonly name = 'bootstrap-token';
  constructor(
    public lookup?: ObjectLookup,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    const m = BOOTSTRAP_TOKEN_PATTERN.exec(token);
    if (!m || !this.lookup) return undefined;
    const [, id, secret] = m as unknown as [string, string, string];
    const s = (await this.lookup.get(secretsR, 'kube-system', `${BOOTSTRAP_SECRET_PREFIX}${id}`)) as
      | { type?: string; data?: Record<string, string>; metadata?: { deletionTimestamp?: string } }
      | undefined;
    const invalid = (): never => {
      throw new InvalidTokenError('invalid bearer token');
    };
    if (!s || s.metadata?.deletionTimestamp || s.type !== BOOTSTRAP_SECRET_TYPE) return invalid();
    const want = dataString(s.data, 'token-secret') ?? '';
    if (dataString(s.data, 'token-id') !== id || want.length !== secret.length || !timingSafeEqual(Buffer.from(want), Buffer.from(secret))) {
      return invalid();
    }
    const exp = dataString(s.data, 'expiration');
    if (exp && !(Date.parse(exp) > this.now().getTime())) return invalid();
    if (dataString(s.data, 'usage-bootstrap-authentication') !== 'true') return invalid();
    const groups = [BOOTSTRAP_DEFAULT_GROUP];
    for (const g of (dataString(s.data, 'auth-extra-groups') ?? '').split(',')) {
      const t = g.trim();
      if (!t) continue;
      if (!t.startsWith(`${BOOTSTRAP_DEFAULT_GROUP}:`)) return invalid();
      if (!groups.includes(t)) groups.push(t);
    }
    return { username: `${BOOTSTRAP_USER_PREFIX}${id}`, groups };
  }
}
