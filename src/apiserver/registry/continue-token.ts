/**
 * List continuation tokens in upstream's format: base64url of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the prefix>"}`.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/continue.go
 */
import { newBadRequest } from '../../apimachinery/errors.js';

interface Token {
  v: string;
  rv: number;
  start: string;
}

/** Encodes a token continuing after `lastKey` at revision `rv`. */
export function encodeContinue(rv: number, lastKey: string, prefix: string): string {
  const rel = lastKey.startsWith(prefix) ? lastKey.slice(prefix.length) : lastKey;
  const t: Token = { v: 'meta.k8s.io/v1', rv, start: `${rel}\u0000` };
  return Buffer.from(JSON.stringify(t)).toString('base64url');
}

/**
 * Decodes a token into the revision and the key to continue strictly after.
 * @throws StatusError BadRequest for malformed tokens (upstream: `continue key is not valid: …`)
 */
export function decodeContinue(token: string, prefix: string): { rv: number; startAfter: string } {
  let t: Token;
  try {
    t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Token;
  } catch {
    throw newBadRequest('continue key is not valid: illegal base64 data');
  }
  if (!t || t.v !== 'meta.k8s.io/v1') throw newBadRequest('continue key is not valid: server does not recognize this encoded version');
  if (typeof t.rv !== 'number' || t.rv <= 0) throw newBadRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof t.start !== 'string' || t.start.length === 0) throw newBadRequest('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  if (t.start.includes('..') || t.start.startsWith('/')) throw newBadRequest('continue key is not valid: key must not contain path traversal');
  const start = t.start.endsWith('\u0000') ? t.start.slice(0, -1) : t.start;
  return { rv: t.rv, startAfter: prefix + start };
}
