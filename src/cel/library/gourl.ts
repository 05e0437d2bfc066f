/**
 * Go's `net/url` parsing as far as the Kubernetes URL library and the `uri` format use
 * it: `url.ParseRequestURI`, `url.Parse`, `URL.Hostname/Port/EscapedPath/Query`, with
 * Go's error texts (`parse "https://a:b:c/": invalid port ":c" after host`).
 *
 * @see https://github.com/golang/go/blob/go1.23.0/src/net/url/url.go
 */

/** A parsed URL (Go's url.URL fields that matter here). */
export interface GoURL {
  scheme: string;
  opaque: string;
  /** host or host:port (IPv6 in brackets) */
  host: string;
  /** the unescaped path */
  path: string;
  /** the path as written when it is not the default encoding of `path` */
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

class URLError extends Error {}

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

function shouldEscape(c: string, mode: Mode): boolean {
  if (/[A-Za-z0-9]/.test(c)) return false;
  if (mode === 'host' || mode === 'zone') {
    if ('!$&\'()*+,;=:[]<>"'.includes(c)) return false;
  }
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    switch (mode) {
      case 'path':
        return c === '?';
      case 'userPassword':
        return c === '@' || c === '/' || c === '?' || c === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /[0-9A-Fa-f]/.test(c);
}

/** Go's url.unescape. @throws URLError with Go's EscapeError/InvalidHostError text */
function unescape(s: string, mode: Mode): string {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) throw new URLError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      if (mode === 'host' && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== '%25') throw new URLError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      i += 3;
    } else {
      if (c === '+') hasPlus = mode === 'queryComponent';
      if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode)) throw new URLError(`invalid character ${JSON.stringify(c)} in host name`);
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else if (c === '+' && mode === 'queryComponent') {
      bytes.push(0x20);
      i++;
    } else {
      for (const b of Buffer.from(c)) bytes.push(b);
      i++;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Go's url.escape. */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (b < 0x80 && !shouldEscape(c, mode)) out += c;
    else if (c === ' ' && mode === 'queryComponent') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new URLError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^[0-9]*$/.test(port.slice(1));
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new URLError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${JSON.stringify(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      const h1 = unescape(host.slice(0, zone), 'host');
      const h2 = unescape(host.slice(zone, i), 'zone');
      const h3 = unescape(host.slice(i), 'host');
      return h1 + h2 + h3;
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${JSON.stringify(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

function parseAuthority(authority: string): string {
  const i = authority.lastIndexOf('@');
  const host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i >= 0) {
    const userinfo = authority.slice(0, i);
    if (!validUserinfo(userinfo)) throw new URLError('net/url: invalid userinfo');
    const colon = userinfo.indexOf(':');
    unescape(colon < 0 ? userinfo : userinfo.slice(0, colon), 'userPassword');
    if (colon >= 0) unescape(userinfo.slice(colon + 1), 'userPassword');
  }
  return host;
}

function parse(raw: string, viaRequest: boolean): GoURL {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go's url.Parse refuses exactly these bytes
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URLError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new URLError('empty url');
  const u: GoURL = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (raw === '*') {
    u.path = '*';
    return u;
  }
  let rest: string;
  [u.scheme, rest] = getScheme(raw);
  u.scheme = u.scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return u;
    }
    if (viaRequest) throw new URLError('invalid URI for request');
    const seg = rest.split('/')[0]!;
    if (seg.includes(':')) throw new URLError('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const i = authority.indexOf('/');
    if (i >= 0) {
      rest = authority.slice(i);
      authority = authority.slice(0, i);
    }
    u.host = parseAuthority(authority);
  }
  u.path = unescape(rest, 'path');
  u.rawPath = escape(u.path, 'path') === rest ? '' : rest;
  return u;
}

function wrap<T>(raw: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof URLError) throw new Error(`parse ${JSON.stringify(raw)}: ${e.message}`);
    throw e;
  }
}

/** Go's url.ParseRequestURI. @throws Error with Go's `*url.Error` text */
export function parseRequestURI(raw: string): GoURL {
  return wrap(raw, () => parse(raw, true));
}

/** Go's url.Parse (fragment split off first). @throws Error with Go's `*url.Error` text */
export function parseURL(raw: string): GoURL {
  const h = raw.indexOf('#');
  const base = h < 0 ? raw : raw.slice(0, h);
  const u = wrap(base, () => parse(base, false));
  if (h >= 0) u.fragment = wrap(raw, () => unescape(raw.slice(h + 1), 'fragment'));
  return u;
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = hostPort.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(hostPort.slice(colon))) {
    host = hostPort.slice(0, colon);
    port = hostPort.slice(colon + 1);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** URL.Hostname: the host without port, IPv6 without brackets. */
export function hostname(u: GoURL): string {
  return splitHostPort(u.host)[0];
}

/** URL.Port: the port or ''. */
export function port(u: GoURL): string {
  return splitHostPort(u.host)[1];
}

function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (shouldEscape(c, 'path')) return false;
  }
  return true;
}

/** URL.EscapedPath. */
export function escapedPath(u: GoURL): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath)) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // fall through to the default encoding
    }
  }
  if (u.path === '*') return '*';
  return escape(u.path, 'path');
}

/** URL.Query: key → values, malformed pairs (and `;`-separated ones) skipped as Go does. */
export function query(u: GoURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let q = u.rawQuery;
  while (q !== '') {
    let key: string;
    const amp = q.indexOf('&');
    if (amp >= 0) {
      key = q.slice(0, amp);
      q = q.slice(amp + 1);
    } else {
      key = q;
      q = '';
    }
    if (key.includes(';') || key === '') continue;
    const eq = key.indexOf('=');
    const k = eq >= 0 ? key.slice(0, eq) : key;
    const v = eq >= 0 ? key.slice(eq + 1) : '';
    let ku: string;
    let vu: string;
    try {
      ku = unescape(k, 'queryComponent');
      vu = unescape(v, 'queryComponent');
    } catch {
      continue;
    }
    const list = out.get(ku) ?? [];
    list.push(vu);
    out.set(ku, list);
  }
  return out;
}
