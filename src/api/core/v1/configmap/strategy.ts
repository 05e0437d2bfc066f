/**
 * core/v1 ConfigMap: key validation, the 1 MiB total size, `immutable`, binaryData base64
 * decoding, printer NAME DATA AGE, short name `cm`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/configmap/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidateConfigMap)
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { type FieldError, forbidden, invalid, Path, tooLong } from '../../../../apimachinery/field-errors.js';
import { isConfigMapKey, jsonEqual } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { checkByteMap, decodeError, goBase64Check } from '../shared/decode.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';

/** Upstream core.MaxSecretSize, also the ConfigMap limit: 1 MiB. */
const MAX_CONFIGMAP_SIZE = 1024 * 1024;
const IMMUTABLE_MSG = 'field is immutable when `immutable` is set';

function checkDecode(obj: O<ConfigMap>): void {
  checkByteMap('ConfigMap', 'v1', 'binaryData', obj.binaryData);
  const data: unknown = obj.data;
  if (data === undefined || data === null) return;
  for (const v of Object.values(data as Record<string, unknown>)) {
    if (v !== null && typeof v !== 'string') {
      const t = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
      throw decodeError('ConfigMap', 'v1', `json: cannot unmarshal ${t} into Go struct field ConfigMap.data of type string`);
    }
  }
}

/** Upstream ValidateConfigMap (without ObjectMeta, which the store validates). */
function validateConfigMap(cm: O<ConfigMap>): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  const dataPath = Path.root('data');
  const binPath = Path.root('binaryData');
  const bin = cm.binaryData ?? {};
  for (const [key, value] of Object.entries(cm.data ?? {})) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(dataPath.key(key), key, m));
    if (Object.hasOwn(bin, key)) errs.push(invalid(dataPath.key(key), key, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(value ?? '', 'utf8');
  }
  for (const [key, value] of Object.entries(bin)) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(binPath.key(key), key, m));
    if (typeof value === 'string') {
      const r = goBase64Check(value);
      if ('length' in r) total += r.length;
    }
  }
  // upstream passes field.NewPath(""), which prints as "[]"
  if (total > MAX_CONFIGMAP_SIZE) errs.push(tooLong('[]', '', MAX_CONFIGMAP_SIZE));
  return errs;
}

/** Upstream ValidateConfigMapUpdate: an immutable ConfigMap keeps `immutable`, data and binaryData. */
function validateConfigMapUpdate(cm: O<ConfigMap>, old: O<ConfigMap>): FieldError[] {
  const errs: FieldError[] = [];
  if (old.immutable === true) {
    if (cm.immutable !== true) errs.push(forbidden('immutable', IMMUTABLE_MSG));
    if (!jsonEqual(cm.data ?? null, old.data ?? null)) errs.push(forbidden('data', IMMUTABLE_MSG));
    if (!jsonEqual(cm.binaryData ?? null, old.binaryData ?? null)) errs.push(forbidden('binaryData', IMMUTABLE_MSG));
  }
  errs.push(...validateConfigMap(cm));
  return errs;
}

/** core/v1 configmaps (short name `cm`). */
export const configMapDefinition: ResourceDefinition<K<ConfigMap>> = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  resource: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  shortNames: ['cm'],
  schemaRef: 'core/v1#ConfigMap',
  allowUnconditionalUpdate: true,

  prepareForCreate(obj) {
    checkDecode(obj);
  },
  prepareForUpdate(obj) {
    checkDecode(obj);
  },
  validate(obj) {
    return validateConfigMap(obj);
  },
  validateUpdate(obj, old) {
    return validateConfigMapUpdate(obj, old);
  },
  table: {
    columns: [NAME_COLUMN, column('Data', 'string', 'Data contains the configuration data.'), AGE_COLUMN],
    cells(obj, now) {
      const n = Object.keys(obj.data ?? {}).length + Object.keys(obj.binaryData ?? {}).length;
      return [obj.metadata.name ?? '', n, translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
