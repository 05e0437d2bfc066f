/**
 * Static token file authentication (`--token-auth-file`): a CSV file of
 * `token,user,uid[,"group1,group2,…"]` lines.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#static-token-file
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/authentication/token/tokenfile/tokenfile.go
 */
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../../api/resource.js';
import type { TokenAuthenticator } from './types.js';

/** Parses one CSV record (RFC 4180 quoting, as Go's encoding/csv). */
export function parseCSVLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new Error('extraneous or missing " in quoted-field');
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      if (i < line.length && line[i] !== ',') throw new Error(`extraneous or missing " in quoted-field`);
    } else {
      const j = line.indexOf(',', i);
      field = j < 0 ? line.slice(i) : line.slice(i, j);
      i = j < 0 ? line.length : j;
    }
    out.push(field);
    if (i >= line.length) return out;
    i++; // comma
  }
}

export class TokenFileAuthenticator implements TokenAuthenticator {
  readonly name = 'token-file';
  private readonly tokens = new Map<string, UserInfo>();

  /**
   * @param text the file's contents
   * @param source file name for error messages
   * @throws Error on a line with fewer than 3 columns or bad quoting
   */
  constructor(text: string, source = 'token file') {
    const lines = text.split(/\r?\n/);
    for (const raw of lines) {
      if (raw.trim() === '') continue;
      const rec = parseCSVLine(raw);
      if (rec.length < 3) throw new Error(`token file '${source}' must have at least 3 columns (token, user name, user uid), found ${rec.length}`);
      const token = rec[0]!.trim();
      if (!token) continue; // upstream: warns and skips empty tokens
      const user: UserInfo = { username: rec[1]!, uid: rec[2]!, groups: [] };
      if (rec.length >= 4 && rec[3] !== '') user.groups = rec[3]!.split(',');
      if (!this.tokens.has(token)) this.tokens.set(token, user);
    }
  }

  static fromFile(path: string): TokenFileAuthenticator {
    return new TokenFileAuthenticator(readFileSync(path, 'utf8'), path);
  }

  get size(): number {
    return this.tokens.size;
  }

  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    const u = this.tokens.get(token);
    return u ? { ...u, groups: [...u.groups] } : undefined;
  }
}
