/**
 * The Kubernetes CEL `urls` library: `url(string)` (an absolute URI or an absolute path,
 * as Go's `url.ParseRequestURI` accepts), `isURL(string)`, and on a URL `getScheme()`,
 * `getHost()` (IPv6 in brackets, with the port), `getHostname()`, `getPort()`,
 * `getEscapedPath()`, `getQuery()` (map of string to list of strings). Errors carry
 * upstream's texts (`URL parse error during conversion from string: parse "…": …`).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/urls.go
 */
import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost, traversalCost } from '../cost.js';
import { celError } from '../errors.js';
import { escapedPath, type GoURL, hostname, parseRequestURI, parseURL, port, query } from './gourl.js';

/** A CEL `kubernetes.URL` value. */
export class CelURL {
  constructor(
    readonly url: GoURL,
    /** the string it was made from */
    readonly raw: string,
  ) {}
  toString(): string {
    return this.raw;
  }
}

/** upstream stringToUrl. @throws the CEL error with upstream's text */
export function toURL(s: string): CelURL {
  try {
    parseRequestURI(s);
    return new CelURL(parseURL(s), s);
  } catch (e) {
    throw celError(`URL parse error during conversion from string: ${(e as Error).message}`);
  }
}

/** Registers the urls library on `env`. */
export function registerURLs(env: Environment): void {
  env
    .registerType('kubernetes.URL', CelURL)
    .registerOperator('kubernetes.URL == kubernetes.URL', (a: CelURL, b: CelURL) => a.raw === b.raw)
    .registerFunction('url(string): kubernetes.URL', (s: string) => {
      chargeCost(traversalCost(s.length));
      return toURL(s);
    })
    .registerFunction('isURL(string): bool', (s: string) => {
      chargeCost(traversalCost(s.length));
      try {
        parseRequestURI(s);
        return true;
      } catch {
        return false;
      }
    })
    .registerFunction('kubernetes.URL.getScheme(): string', (u: CelURL) => u.url.scheme)
    .registerFunction('kubernetes.URL.getHost(): string', (u: CelURL) => u.url.host)
    .registerFunction('kubernetes.URL.getHostname(): string', (u: CelURL) => hostname(u.url))
    .registerFunction('kubernetes.URL.getPort(): string', (u: CelURL) => port(u.url))
    .registerFunction('kubernetes.URL.getEscapedPath(): string', (u: CelURL) => escapedPath(u.url))
    .registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: CelURL) => {
      const out: Record<string, string[]> = {};
      for (const [k, v] of query(u.url)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    });
}
