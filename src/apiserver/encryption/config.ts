/**
 * Encryption at rest (`--encryption-provider-config`, apiserver.config.k8s.io/v1
 * EncryptionConfiguration): per resource, an ordered list of providers — aescbc,
 * aesgcm, secretbox, identity. The first provider encrypts new writes; every provider
 * can decrypt what it wrote, recognised by its prefix `k8s:enc:<provider>:v1:<key>:`.
 *
 * Values are strings in k8ts' storage contract, so the ciphertext after the prefix is
 * base64 (upstream writes raw bytes).
 *
 * @see https://kubernetes.io/docs/tasks/administer-cluster/encrypt-data/
 * @see https://github.com/kubernetes/apiserver/tree/master/pkg/storage/value/encrypt
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse as parseYAML } from 'yaml';
import { secretboxOpen, secretboxSeal } from './secretbox.js';
import { storageKeyPrefix } from '../registry/key-prefix.js';

/** Encrypts and decrypts one value; `decrypt` returns undefined when the value is not its own. */
export interface Transformer {
  /** for stale-detection: does this transformer write values with this prefix */
  readonly prefix: string;
  encrypt(plain: string): string;
  decrypt(stored: string): string | undefined;
}

interface Key {
  name: string;
  secret: string;
}

function keyBytes(k: Key, sizes: number[], provider: string): Buffer {
  if (!k.name) throw new Error(`${provider}: key name is required`);
  const b = Buffer.from(k.secret ?? '', 'base64');
  if (!sizes.includes(b.length)) throw new Error(`${provider}: key "${k.name}" must be ${sizes.join(', ')} bytes, got ${b.length}`);
  return b;
}

/** A provider with several keys: the first encrypts, each decrypts its own prefix. */
class Keyed implements Transformer {
  readonly prefix: string;
  constructor(private readonly keys: { prefix: string; enc: (p: Buffer) => Buffer; dec: (c: Buffer) => Buffer | undefined }[]) {
    this.prefix = keys[0]!.prefix;
  }
  encrypt(plain: string): string {
    const k = this.keys[0]!;
    return k.prefix + k.enc(Buffer.from(plain, 'utf8')).toString('base64');
  }
  decrypt(stored: string): string | undefined {
    for (const k of this.keys) {
      if (!stored.startsWith(k.prefix)) continue;
      const out = k.dec(Buffer.from(stored.slice(k.prefix.length), 'base64'));
      if (!out) throw new Error(`failed to decrypt value with ${k.prefix}`);
      return out.toString('utf8');
    }
    return undefined;
  }
}

export function aescbc(keys: Key[]): Transformer {
  return new Keyed(
    keys.map((k) => {
      const key = keyBytes(k, [16, 24, 32], 'aescbc');
      const alg = `aes-${key.length * 8}-cbc`;
      return {
        prefix: `k8s:enc:aescbc:v1:${k.name}:`,
        enc: (p: Buffer) => {
          const iv = randomBytes(16);
          const c = createCipheriv(alg, key, iv);
          return Buffer.concat([iv, c.update(p), c.final()]);
        },
        dec: (c: Buffer) => {
          if (c.length < 32 || c.length % 16 !== 0) return undefined;
          const d = createDecipheriv(alg, key, c.subarray(0, 16));
          return Buffer.concat([d.update(c.subarray(16)), d.final()]);
        },
      };
    }),
  );
}

export function aesgcm(keys: Key[]): Transformer {
  return new Keyed(
    keys.map((k) => {
      const key = keyBytes(k, [16, 24, 32], 'aesgcm');
      const alg = `aes-${key.length * 8}-gcm` as 'aes-256-gcm';
      return {
        prefix: `k8s:enc:aesgcm:v1:${k.name}:`,
        enc: (p: Buffer) => {
          const nonce = randomBytes(12);
          const c = createCipheriv(alg, key, nonce);
          const body = Buffer.concat([c.update(p), c.final()]);
          return Buffer.concat([nonce, body, c.getAuthTag()]);
        },
        dec: (c: Buffer) => {
          if (c.length < 28) return undefined;
          const d = createDecipheriv(alg, key, c.subarray(0, 12));
          d.setAuthTag(c.subarray(c.length - 16));
          return Buffer.concat([d.update(c.subarray(12, c.length - 16)), d.final()]);
        },
      };
    }),
  );
}

export function secretbox(keys: Key[]): Transformer {
  return new Keyed(
    keys.map((k) => {
      const key = keyBytes(k, [32], 'secretbox');
      return {
        prefix: `k8s:enc:secretbox:v1:${k.name}:`,
        enc: (p: Buffer) => {
          const nonce = randomBytes(24);
          return Buffer.concat([nonce, secretboxSeal(p, nonce, key)]);
        },
        dec: (c: Buffer) => {
          if (c.length < 40) return undefined;
          const o = secretboxOpen(c.subarray(24), c.subarray(0, 24), key);
          return o ? Buffer.from(o) : undefined;
        },
      };
    }),
  );
}

/** Values written as they are; reads anything without an encryption prefix. */
export const identity: Transformer = {
  prefix: '',
  encrypt: (p) => p,
  decrypt: (s) => (s.startsWith('k8s:enc:') ? undefined : s),
};

/** The ordered providers for one set of resources. */
export class ProviderChain {
  constructor(readonly providers: Transformer[]) {}
  encrypt(plain: string): string {
    return this.providers[0]!.encrypt(plain);
  }
  /** @throws Error when no provider can read the value */
  decrypt(stored: string): string {
    for (const p of this.providers) {
      const v = p.decrypt(stored);
      if (v !== undefined) return v;
    }
    throw new Error('no matching prefix found');
  }
}

export interface EncryptionConfig {
  /** storage key prefix → providers */
  byPrefix: Map<string, ProviderChain>;
}

/** `secrets` → `/registry/secrets/`, `deployments.apps` → `/registry/deployments/` (kube-apiserver's keys, see {@link storageKeyPrefix}). */
export function resourcePrefix(gr: string): string {
  const dot = gr.indexOf('.');
  return dot < 0 ? storageKeyPrefix('', gr) : storageKeyPrefix(gr.slice(dot + 1), gr.slice(0, dot));
}

interface RawConfig {
  kind?: string;
  apiVersion?: string;
  resources?: { resources?: string[]; providers?: Record<string, { keys?: Key[] } | null>[] }[];
}

/**
 * Parses an EncryptionConfiguration (YAML or JSON).
 * @throws Error on an unknown kind/apiVersion, provider, or bad keys
 */
export function parseEncryptionConfig(text: string): EncryptionConfig {
  const raw = parseYAML(text) as RawConfig;
  if (raw?.kind !== 'EncryptionConfiguration') throw new Error(`encryption configuration has kind "${String(raw?.kind)}", want "EncryptionConfiguration"`);
  if (raw.apiVersion !== 'apiserver.config.k8s.io/v1') throw new Error(`encryption configuration apiVersion "${String(raw.apiVersion)}" is not supported`);
  const byPrefix = new Map<string, ProviderChain>();
  for (const [i, r] of (raw.resources ?? []).entries()) {
    const providers: Transformer[] = [];
    for (const p of r.providers ?? []) {
      const [name, cfg] = Object.entries(p)[0] ?? [];
      switch (name) {
        case 'aescbc':
          providers.push(aescbc(cfg?.keys ?? []));
          break;
        case 'aesgcm':
          providers.push(aesgcm(cfg?.keys ?? []));
          break;
        case 'secretbox':
          providers.push(secretbox(cfg?.keys ?? []));
          break;
        case 'identity':
          providers.push(identity);
          break;
        default:
          throw new Error(`resources[${i}].providers: unsupported provider "${String(name)}" (supported: aescbc, aesgcm, secretbox, identity)`);
      }
    }
    if (!providers.length) throw new Error(`resources[${i}].providers: Required value`);
    for (const gr of r.resources ?? []) if (!byPrefix.has(resourcePrefix(gr))) byPrefix.set(resourcePrefix(gr), new ProviderChain(providers));
  }
  return { byPrefix };
}

export function loadEncryptionConfig(path: string): EncryptionConfig {
  return parseEncryptionConfig(readFileSync(path, 'utf8'));
}
