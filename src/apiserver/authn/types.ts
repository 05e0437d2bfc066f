/**
 * Authentication building blocks: bearer token extraction and the token authenticator
 * contract shared by the static token file, ServiceAccount JWTs and bootstrap tokens.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/
 */
import type { UserInfo } from '../../api/resource.js';

/** Groups every authenticated / unauthenticated request carries. */
export const AUTHENTICATED_GROUP = 'system:authenticated';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const ANONYMOUS_USER = 'system:anonymous';

/**
 * Checks one bearer token. Returns the user, `undefined` when the token is not of this
 * authenticator's kind, or throws {@link InvalidTokenError} when it is but is not valid.
 */
export interface TokenAuthenticator {
  readonly name: string;
  authenticateToken(token: string): Promise<UserInfo | undefined>;
}

/** A token of the right shape that failed validation (expired, bad signature, revoked…). */
export class InvalidTokenError extends Error {}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), ''
 * for a header with an empty token, undefined without one (upstream bearertoken).
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const parts = header.trim().split(/\s+/);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] ?? '';
}

/** Adds system:authenticated unless the user already has it (upstream group adder). */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  if (u.groups.includes(AUTHENTICATED_GROUP) || u.username === ANONYMOUS_USER) return u;
  return { ...u, groups: [...u.groups, AUTHENTICATED_GROUP] };
}
