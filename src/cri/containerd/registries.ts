/**
 * k3s-style `registries.yaml` → containerd registry configuration:
 * `certs.d/<registry>/hosts.toml` files (mirrors, TLS; containerd re-reads them on
 * every pull) plus per-host auth tables for config.toml (`registry.configs."<host>".auth`,
 * which containerd 1.6/1.7 still honour next to `config_path`).
 *
 * ```yaml
 * mirrors:
 *   docker.io:
 *     endpoint: ["http://127.0.0.1:5000"]
 *   "*":                      # every registry without its own entry (→ certs.d/_default)
 *     endpoint: ["https://mirror.example:5000"]
 * configs:
 *   "mirror.example:5000":
 *     auth: { username: u, password: p }          # or auth: <base64 user:pass>, identity_token
 *     tls: { ca_file: /ca.pem, cert_file: /c.pem, key_file: /k.pem, insecure_skip_verify: false }
 * ```
 *
 * @see https://docs.k3s.io/installation/private-registry
 * @see https://github.com/containerd/containerd/blob/v1.6.20/docs/hosts.md
 */
import { parse } from 'yaml';

/** Thrown for a registries.yaml that does not have the documented shape. */
export class RegistriesConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistriesConfigError';
  }
}

export interface RegistryAuth {
  username?: string;
  password?: string;
  auth?: string;
  identity_token?: string;
}
export interface RegistryTLS {
  ca_file?: string;
  cert_file?: string;
  key_file?: string;
  insecure_skip_verify?: boolean;
}
export interface Registries {
  mirrors: Record<string, { endpoint: string[] }>;
  configs: Record<string, { auth?: RegistryAuth; tls?: RegistryTLS }>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, where: string): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new RegistriesConfigError(`${where}: must be a string`);
  return v;
};

/** Parses and checks registries.yaml text. @throws RegistriesConfigError */
export function parseRegistries(text: string): Registries {
  let doc: unknown;
  try {
    doc = parse(text) ?? {};
  } catch (err) {
    throw new RegistriesConfigError(`registries.yaml: ${(err as Error).message}`);
  }
  if (!isObj(doc)) throw new RegistriesConfigError('registries.yaml: top level must be a mapping');
  const out: Registries = { mirrors: {}, configs: {} };
  const mirrors = doc.mirrors ?? {};
  if (!isObj(mirrors)) throw new RegistriesConfigError('registries.yaml: mirrors must be a mapping');
  for (const [reg, m] of Object.entries(mirrors)) {
    if (!isObj(m) || !Array.isArray(m.endpoint)) throw new RegistriesConfigError(`mirrors.${reg}.endpoint: must be a list of URLs`);
    const endpoint = m.endpoint.map((e, i) => {
      const s = str(e, `mirrors.${reg}.endpoint[${i}]`)!;
      let u: URL;
      try {
        u = new URL(s);
      } catch {
        throw new RegistriesConfigError(`mirrors.${reg}.endpoint[${i}]: ${JSON.stringify(s)} is not a URL`);
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RegistriesConfigError(`mirrors.${reg}.endpoint[${i}]: scheme must be http or https`);
      return s.replace(/\/+$/, '');
    });
    out.mirrors[reg] = { endpoint };
  }
  const configs = doc.configs ?? {};
  if (!isObj(configs)) throw new RegistriesConfigError('registries.yaml: configs must be a mapping');
  for (const [host, c] of Object.entries(configs)) {
    if (!isObj(c)) throw new RegistriesConfigError(`configs.${host}: must be a mapping`);
    const entry: { auth?: RegistryAuth; tls?: RegistryTLS } = {};
    if (c.auth !== undefined) {
      if (!isObj(c.auth)) throw new RegistriesConfigError(`configs.${host}.auth: must be a mapping`);
      const w = `configs.${host}.auth`;
      entry.auth = {
        username: str(c.auth.username, `${w}.username`),
        password: str(c.auth.password, `${w}.password`),
        auth: str(c.auth.auth, `${w}.auth`),
        identity_token: str(c.auth.identity_token, `${w}.identity_token`),
      };
    }
    if (c.tls !== undefined) {
      if (!isObj(c.tls)) throw new RegistriesConfigError(`configs.${host}.tls: must be a mapping`);
      const w = `configs.${host}.tls`;
      const skip = c.tls.insecure_skip_verify;
      if (skip !== undefined && typeof skip !== 'boolean') throw new RegistriesConfigError(`${w}.insecure_skip_verify: must be a boolean`);
      entry.tls = {
        ca_file: str(c.tls.ca_file, `${w}.ca_file`),
        cert_file: str(c.tls.cert_file, `${w}.cert_file`),
        key_file: str(c.tls.key_file, `${w}.key_file`),
        insecure_skip_verify: skip,
      };
      if (!!entry.tls.cert_file !== !!entry.tls.key_file) throw new RegistriesConfigError(`${w}: cert_file and key_file go together`);
    }
    out.configs[host] = entry;
  }
  return out;
}

const q = (s: string) => JSON.stringify(s); // a JSON string is a valid TOML basic string

function tlsLines(tls: RegistryTLS | undefined): string[] {
  if (!tls) return [];
  const lines: string[] = [];
  if (tls.ca_file) lines.push(`ca = ${q(tls.ca_file)}`);
  if (tls.cert_file && tls.key_file) lines.push(`client = [[${q(tls.cert_file)}, ${q(tls.key_file)}]]`);
  if (tls.insecure_skip_verify) lines.push('skip_verify = true');
  return lines;
}

/** The upstream server of a registry name (docker.io's API lives at registry-1.docker.io). */
function serverOf(registry: string): string {
  return registry === 'docker.io' ? 'https://registry-1.docker.io' : `https://${registry}`;
}

/**
 * hosts.toml files, keyed by their path relative to the certs.d directory
 * (`docker.io/hosts.toml`, `_default/hosts.toml` for the `"*"` mirror).
 */
export function hostsFiles(r: Registries): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [reg, m] of Object.entries(r.mirrors)) {
    const dir = reg === '*' ? '_default' : reg;
    const lines: string[] = [];
    if (reg !== '*') lines.push(`server = ${q(serverOf(reg))}`, ...tlsLines(r.configs[reg]?.tls));
    for (const ep of m.endpoint) {
      lines.push('', `[host.${q(ep)}]`, '  capabilities = ["pull", "resolve"]');
      for (const l of tlsLines(r.configs[new URL(ep).host]?.tls)) lines.push('  ' + l);
    }
    files[`${dir}/hosts.toml`] = lines.join('\n') + '\n';
  }
  for (const [host, c] of Object.entries(r.configs)) {
    if (files[`${host}/hosts.toml`] || !c.tls) continue;
    files[`${host}/hosts.toml`] = [`server = ${q(`https://${host}`)}`, ...tlsLines(c.tls)].join('\n') + '\n';
  }
  return files;
}

/** config.toml tables with per-registry credentials (empty string when there are none). */
export function authToml(r: Registries): string {
  const out: string[] = [];
  for (const [host, c] of Object.entries(r.configs)) {
    const a = c.auth;
    if (!a) continue;
    out.push(`[plugins."io.containerd.grpc.v1.cri".registry.configs.${q(host)}.auth]`);
    if (a.username !== undefined) out.push(`  username = ${q(a.username)}`);
    if (a.password !== undefined) out.push(`  password = ${q(a.password)}`);
    if (a.auth !== undefined) out.push(`  auth = ${q(a.auth)}`);
    if (a.identity_token !== undefined) out.push(`  identitytoken = ${q(a.identity_token)}`);
    out.push('');
  }
  return out.join('\n');
}
