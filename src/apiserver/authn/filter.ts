/**
 * The authentication step of the handler chain (upstream WithAuthentication): a client
 * certificate user (set by the TLS listener) wins; otherwise a bearer token must be
 * accepted by one of the token authenticators (static file, ServiceAccount JWT,
 * bootstrap token) — a token no authenticator accepts is a 401, never anonymous.
 * Requests without credentials stay unauthenticated (the API server then allows only
 * the public health and version endpoints).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/authentication.go
 */
import type { UserInfo } from '../../api/resource.js';
import { newUnauthorized } from '../../apimachinery/errors.js';
import type { ApiRequest } from '../http/types.js';
import { bearerToken, InvalidTokenError, type TokenAuthenticator, withAuthenticatedGroup } from './types.js';

export class Authentication {
  constructor(readonly tokenAuthenticators: TokenAuthenticator[]) {}

  /**
   * The user a token names, undefined when no authenticator knows it.
   * @throws InvalidTokenError when an authenticator recognised but rejected it
   */
  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    let invalid: InvalidTokenError | undefined;
    for (const a of this.tokenAuthenticators) {
      try {
        const u = await a.authenticateToken(token);
        if (u) return withAuthenticatedGroup(u);
      } catch (e) {
        if (!(e instanceof InvalidTokenError)) throw e;
        invalid ??= e;
      }
    }
    if (invalid) throw invalid;
    return undefined;
  }

  /**
   * Sets `req.user` from the bearer token unless a client certificate already did.
   * @throws StatusError 401 when a bearer token is present but not valid
   */
  async authenticate(req: ApiRequest): Promise<void> {
    if (req.user) {
      req.user = withAuthenticatedGroup(req.user);
      return;
    }
    const token = bearerToken(req.headers['authorization']);
    if (token === undefined) return;
    if (!token) throw newUnauthorized();
    let u: UserInfo | undefined;
    try {
      u = await this.authenticateToken(token);
    } catch (e) {
      if (e instanceof InvalidTokenError) throw newUnauthorized();
      throw e;
    }
    if (!u) throw newUnauthorized();
    req.user = u;
  }
}
