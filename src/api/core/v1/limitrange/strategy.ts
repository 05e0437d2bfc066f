/**
 * core/v1 LimitRange: per-namespace min/max/default/defaultRequest/maxLimitRequestRatio
 * for Containers, Pods and PersistentVolumeClaims, with upstream's defaulting (default
 * from max, defaultRequest from default or min) and validation.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/defaults.go (SetDefaults_LimitRangeItem)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidateLimitRange)
 */
import type { LimitRange, LimitRangeItem } from 'kubernetes-types/core/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { compareQuantity, formatQuantity, tryParseQuantity, type Quantity } from '../../../../apimachinery/quantity.js';
import type { ResourceDefinition, TableColumnDefinition } from '../../../resource.js';
import { canonicalizeQuantityMap } from '../shared/decode.js';
import { column, NAME_COLUMN } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';

type RL = Record<string, string>;
const TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

/** Upstream SetDefaults_LimitRangeItem. Mutates. */
function defaultLimitRangeItem(it: LimitRangeItem): void {
  if (it.type !== 'Container') return;
  const def = ((it as { default?: RL }).default ??= {});
  const defReq = ((it as { defaultRequest?: RL }).defaultRequest ??= {});
  for (const [k, v] of Object.entries((it.max ?? {}) as RL)) if (!(k in def)) def[k] = v;
  for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
  for (const [k, v] of Object.entries((it.min ?? {}) as RL)) if (!(k in defReq)) defReq[k] = v;
}

function q(v: string | undefined): Quantity | undefined {
  return v === undefined ? undefined : tryParseQuantity(String(v));
}

function validateItem(it: LimitRangeItem, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!it.type) errs.push(required(p.child('type'), ''));
  else if (!TYPES.includes(it.type)) errs.push(notSupported(p.child('type'), it.type, TYPES));
  const maps = { max: it.max, min: it.min, default: it.default, defaultRequest: it.defaultRequest, maxLimitRequestRatio: it.maxLimitRequestRatio } as Record<
    string,
    RL | undefined
  >;
  for (const [name, m] of Object.entries(maps)) {
    for (const [k, v] of Object.entries(m ?? {})) if (!q(v)) errs.push(invalid(p.child(name).key(k), v, 'must be a valid quantity'));
  }
  if (it.type === 'Pod') {
    if (Object.keys(maps.default ?? {}).length) errs.push(forbidden(p.child('default'), "may not be specified when `type` is 'Pod'"));
    if (Object.keys(maps.defaultRequest ?? {}).length) errs.push(forbidden(p.child('defaultRequest'), "may not be specified when `type` is 'Pod'"));
  }
  const keys = new Set(Object.values(maps).flatMap((m) => Object.keys(m ?? {})));
  for (const k of keys) {
    const mn = q(maps.min?.[k]);
    const mx = q(maps.max?.[k]);
    const d = q(maps.default?.[k]);
    const dr = q(maps.defaultRequest?.[k]);
    const ratio = q(maps.maxLimitRequestRatio?.[k]);
    const f = (x: Quantity) => formatQuantity(x);
    if (mn && mx && compareQuantity(mn, mx) > 0) errs.push(invalid(p.child('min').key(k), f(mn), `min value ${f(mn)} is greater than max value ${f(mx)}`));
    if (dr && mn && compareQuantity(mn, dr) > 0) errs.push(invalid(p.child('defaultRequest').key(k), f(dr), `min value ${f(mn)} is greater than default request value ${f(dr)}`));
    if (dr && mx && compareQuantity(dr, mx) > 0) errs.push(invalid(p.child('defaultRequest').key(k), f(dr), `default request value ${f(dr)} is greater than max value ${f(mx)}`));
    if (dr && d && compareQuantity(dr, d) > 0)
      errs.push(invalid(p.child('defaultRequest').key(k), f(dr), `default request value ${f(dr)} is greater than default limit value ${f(d)}`));
    if (d && mn && compareQuantity(mn, d) > 0) errs.push(invalid(p.child('default').key(k), f(d), `min value ${f(mn)} is greater than default value ${f(d)}`));
    if (d && mx && compareQuantity(d, mx) > 0) errs.push(invalid(p.child('default').key(k), f(d), `default value ${f(d)} is greater than max value ${f(mx)}`));
    if (ratio && compareQuantity(ratio, { mantissa: 1n, scale: 0, format: 'DecimalSI' }) < 0) {
      errs.push(invalid(p.child('maxLimitRequestRatio').key(k), f(ratio), `ratio ${f(ratio)} is less than 1`));
    }
  }
  return errs;
}

function validateLimitRange(o: O<LimitRange>): FieldError[] {
  const errs: FieldError[] = [];
  (o.spec?.limits ?? []).forEach((it, i) => errs.push(...validateItem(it, Path.root('spec').child('limits').index(i))));
  return errs;
}

const CREATED_AT: TableColumnDefinition = column('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created.');

export const limitRangeDefinition: ResourceDefinition<K<LimitRange>> = {
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  listKind: 'LimitRangeList',
  resource: 'limitranges',
  singular: 'limitrange',
  namespaced: true,
  shortNames: ['limits'],
  schemaRef: 'core/v1#LimitRange',
  allowUnconditionalUpdate: true,
  defaults(obj) {
    for (const it of obj.spec?.limits ?? []) defaultLimitRangeItem(it);
  },
  validate: validateLimitRange,
  validateUpdate: (o) => validateLimitRange(o),
  canonicalize(obj) {
    for (const it of obj.spec?.limits ?? []) {
      for (const m of [it.max, it.min, it.default, it.defaultRequest, it.maxLimitRequestRatio]) canonicalizeQuantityMap(m as Record<string, unknown> | undefined);
    }
  },
  table: {
    columns: [NAME_COLUMN, CREATED_AT],
    cells: (o) => [o.metadata.name ?? '', o.metadata.creationTimestamp ?? null],
  },
};
