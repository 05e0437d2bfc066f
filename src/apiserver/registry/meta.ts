/**
 * System-populated ObjectMeta values: uid, creation timestamps, generated names.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/registry/rest/meta.go
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/names/generate.go
 */
import { randomFillSync } from 'node:crypto';

/** UUIDs made per refill of the random pool. */
const UUIDS_PER_REFILL = 128;
const pool = Buffer.allocUnsafe(16 * UUIDS_PER_REFILL);
let poolOffset = pool.length;
const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A new RFC 4122 v4 UUID, as upstream's uuid.NewUUID for metadata.uid: 122 random bits
 * from the CSPRNG, drawn from a pool refilled every 128 UUIDs (as Node's randomUUID
 * caches entropy, without its per-call option checks).
 */
export function newUID(): string {
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const b = pool;
  const o = poolOffset;
  poolOffset += 16;
  const v = (b[o + 6]! & 0x0f) | 0x40; // version 4
  const r = (b[o + 8]! & 0x3f) | 0x80; // RFC 4122 variant
  return (
    HEX[b[o]!]! +
    HEX[b[o + 1]!]! +
    HEX[b[o + 2]!]! +
    HEX[b[o + 3]!]! +
    '-' +
    HEX[b[o + 4]!]! +
    HEX[b[o + 5]!]! +
    '-' +
    HEX[v]! +
    HEX[b[o + 7]!]! +
    '-' +
    HEX[r]! +
    HEX[b[o + 9]!]! +
    '-' +
    HEX[b[o + 10]!]! +
    HEX[b[o + 11]!]! +
    HEX[b[o + 12]!]! +
    HEX[b[o + 13]!]! +
    HEX[b[o + 14]!]! +
    HEX[b[o + 15]!]!
  );
}

// upstream utilrand alphanums: no vowels (avoids words) and no easily confused characters
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

const bytes = Buffer.allocUnsafe(512);
let bytesOffset = bytes.length;
/** the largest multiple of the alphabet size that fits in a byte: bytes at or above it are skipped (no modulo bias) */
const BYTE_LIMIT = 256 - (256 % alphanums.length);

/** Random string of `n` characters from upstream's alphabet (used by generateName: 5 chars). */
export function randomString(n: number): string {
  let s = '';
  while (s.length < n) {
    if (bytesOffset >= bytes.length) {
      randomFillSync(bytes);
      bytesOffset = 0;
    }
    const b = bytes[bytesOffset++]!;
    if (b < BYTE_LIMIT) s += alphanums[b % alphanums.length];
  }
  return s;
}

/** The 5 random characters appended to metadata.generateName. */
export function generateNameSuffix(): string {
  return randomString(5);
}

let lastSecond = NaN;
let lastText = '';

/** metav1.Time serialisation: RFC 3339 in UTC with seconds precision (the text of the last second is reused). */
export function rfc3339(d: Date): string {
  const sec = Math.floor(d.getTime() / 1000);
  if (sec === lastSecond) return lastText;
  const text = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  lastSecond = sec;
  lastText = text;
  return text;
}
