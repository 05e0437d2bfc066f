/**
 * core/v1 Secret: `data` must be base64 (checked as the JSON decoder would), `stringData`
 * merged into `data`, type defaulted to Opaque, the per-type required keys, the 1 MiB
 * limit, `immutable`, field selector `type`, printer NAME TYPE DATA AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/secret/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidateSecret)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/conversion.go (stringData)
 */
import type { Secret } from 'kubernetes-types/core/v1.js';
import { type FieldError, forbidden, invalid, Path, required, tooLong } from '../../../../apimachinery/field-errors.js';
import { isConfigMapKey, jsonEqual, validateImmutableField } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { checkByteMap, decodeError, goBase64Check } from '../shared/decode.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';

/** Upstream core.MaxSecretSize: 1 MiB of decoded data. */
const MAX_SECRET_SIZE = 1024 * 1024;
/** Annotation a service-account-token Secret must carry. */
const SERVICE_ACCOUNT_NAME_KEY = 'kubernetes.io/service-account.name';
const IMMUTABLE_MSG = 'field is immutable when `immutable` is set';

function decodedLength(b64: string | undefined): number | undefined {
  if (b64 === undefined || b64 === null) return undefined;
  const r = goBase64Check(b64);
  return 'length' in r ? r.length : undefined;
}

/**
 * What Go's json.Unmarshal into map[string]interface{} says about `text` (undefined when
 * it is a JSON object or null). Syntax errors are approximated: Go's scanner messages for
 * empty/truncated input and a bad first character are reproduced, others are generic.
 */
export function goJSONObjectError(text: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    const t = text.replace(/^[ \t\r\n]+/, '');
    if (t === '' || /Unexpected end|Unterminated/.test((e as Error).message)) return 'unexpected end of JSON input';
    const c = t[0]!;
    if (!'{["-0123456789tfn'.includes(c)) return `invalid character '${c === "'" ? "\\'" : c}' looking for beginning of value`;
    return `invalid character in JSON input: ${(e as Error).message}`;
  }
  if (v === null || (typeof v === 'object' && !Array.isArray(v))) return undefined;
  const type = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
  return `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
}

function checkJSONKey(data: Record<string, string>, key: string, errs: FieldError[]): void {
  const p = Path.root('data').key(key);
  if (!Object.hasOwn(data, key)) {
    errs.push(required(p, ''));
    return;
  }
  const err = goJSONObjectError(Buffer.from(data[key] ?? '', 'base64').toString('utf8'));
  if (err) errs.push(invalid(p, '<secret contents redacted>', err));
}

/** Upstream ValidateSecret (without ObjectMeta, which the store validates). */
function validateSecret(s: O<Secret>): FieldError[] {
  const errs: FieldError[] = [];
  const dataPath = Path.root('data');
  const data = s.data ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(dataPath.key(key), key, m));
    total += decodedLength(value) ?? 0;
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(dataPath, '', MAX_SECRET_SIZE));
  const has = (k: string): boolean => Object.hasOwn(data, k);

  switch (s.type ?? '') {
    case 'kubernetes.io/service-account-token':
      if (!s.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY]) {
        errs.push(required(Path.root('metadata').child('annotations').key(SERVICE_ACCOUNT_NAME_KEY), ''));
      }
      break;
    case 'kubernetes.io/dockercfg':
      checkJSONKey(data, '.dockercfg', errs);
      break;
    case 'kubernetes.io/dockerconfigjson':
      checkJSONKey(data, '.dockerconfigjson', errs);
      break;
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) {
        errs.push(required(dataPath.key('username'), ''));
        errs.push(required(dataPath.key('password'), ''));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if (!decodedLength(data['ssh-privatekey'])) errs.push(required(dataPath.key('ssh-privatekey'), ''));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(required(dataPath.key('tls.crt'), ''));
      if (!has('tls.key')) errs.push(required(dataPath.key('tls.key'), ''));
      break;
    default:
  }
  return errs;
}

/** Upstream ValidateSecretUpdate: type immutable; an immutable Secret keeps `immutable` and data. */
function validateSecretUpdate(s: O<Secret>, old: O<Secret>): FieldError[] {
  const errs = validateImmutableField(s.type ?? '', old.type ?? '', 'type');
  if (old.immutable === true) {
    if (s.immutable !== true) errs.push(forbidden('immutable', IMMUTABLE_MSG));
    if (!jsonEqual(s.data ?? null, old.data ?? null)) errs.push(forbidden('data', IMMUTABLE_MSG));
  }
  errs.push(...validateSecret(s));
  return errs;
}

/**
 * Decode-time work of upstream's v1 → internal conversion: `data` must be base64 and
 * `stringData` (plain strings) overwrites the same keys of `data`, then is dropped.
 *
 * @throws StatusError 400 `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte N`
 */
function decode(s: O<Secret>): void {
  checkByteMap('Secret', 'v1', 'data', s.data);
  const sd: unknown = s.stringData;
  if (sd === undefined || sd === null) return;
  const data: Record<string, string> = { ...(s.data ?? {}) };
  for (const [k, v] of Object.entries(sd as Record<string, unknown>)) {
    if (v !== null && typeof v !== 'string') {
      throw decodeError('Secret', 'v1', `json: cannot unmarshal ${typeof v === 'boolean' ? 'bool' : typeof v} into Go struct field Secret.stringData of type string`);
    }
    data[k] = Buffer.from(v ?? '', 'utf8').toString('base64');
  }
  s.data = data;
  delete s.stringData;
}

/** core/v1 secrets. */
export const secretDefinition: ResourceDefinition<K<Secret>> = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  listKind: 'SecretList',
  resource: 'secrets',
  singular: 'secret',
  namespaced: true,
  schemaRef: 'core/v1#Secret',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    if (!obj.type) obj.type = 'Opaque';
  },
  prepareForCreate(obj) {
    decode(obj);
  },
  prepareForUpdate(obj) {
    decode(obj);
  },
  validate(obj) {
    return validateSecret(obj);
  },
  validateUpdate(obj, old) {
    return validateSecretUpdate(obj, old);
  },
  fieldSelectorAttrs(obj) {
    return { type: obj.type ?? '' };
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
      column('Data', 'string', 'Data contains the secret data.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [obj.metadata.name ?? '', obj.type ?? '', Object.keys(obj.data ?? {}).length, translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
