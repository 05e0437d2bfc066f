/**
 * System-populated ObjectMeta values: uid, creation timestamps, generated names.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/registry/rest/meta.go
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/names/generate.go
 */
import { randomUUID, randomInt } from 'node:crypto';

/** A new RFC 4122 v4 UUID, as upstream's uuid.NewUUID for metadata.uid. */
export function newUID(): string {
  return randomUUID();
}

// upstream utilrand alphanums: no vowels (avoids words) and no easily confused characters
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

/** Random string of `n` characters from upstream's alphabet (used by generateName: 5 chars). */
export function randomString(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphanums[randomInt(alphanums.length)];
  return s;
}

/** The 5 random characters appended to metadata.generateName. */
export function generateNameSuffix(): string {
  return randomString(5);
}

/** metav1.Time serialisation: RFC 3339 in UTC with seconds precision. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
