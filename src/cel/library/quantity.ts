/**
 * The Kubernetes CEL `quantity` library (Kubernetes 1.28+): `quantity(string)`,
 * `isQuantity(string)`, `<Quantity>.isInteger()`, `asInteger()`, `asApproximateFloat()`,
 * `sign()`, `isGreaterThan(Quantity)`, `isLessThan(Quantity)`, `compareTo(Quantity)`,
 * `add(Quantity|int)`, `sub(Quantity|int)`, on k8ts' exact resource.Quantity.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/quantity.go
 */
import type { Environment } from '@marcbachmann/cel-js';
import {
  addQuantity,
  asApproximateFloat64,
  compareQuantity,
  formatQuantity,
  newQuantity,
  parseQuantity,
  type Quantity,
  quantitySign,
  subQuantity,
  tryParseQuantity,
} from '../../apimachinery/quantity.js';
import { chargeCost, traversalCost } from '../cost.js';
import { celError } from '../errors.js';

/** A CEL `kubernetes.Quantity` value. */
export class CelQuantity {
  constructor(readonly q: Quantity) {}
  toString(): string {
    return formatQuantity(this.q);
  }
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** resource.Quantity.AsInt64: the integer value when it is one and fits in int64. */
function asInt64(q: Quantity): bigint | undefined {
  let v: bigint;
  if (q.scale >= 0) v = q.mantissa * 10n ** BigInt(q.scale);
  else {
    const d = 10n ** BigInt(-q.scale);
    if (q.mantissa % d !== 0n) return undefined;
    v = q.mantissa / d;
  }
  return v > INT64_MAX || v < INT64_MIN ? undefined : v;
}

/** Registers the quantity library on `env`. */
export function registerQuantity(env: Environment): void {
  env
    .registerType('kubernetes.Quantity', CelQuantity)
    .registerOperator('kubernetes.Quantity == kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) => compareQuantity(a.q, b.q) === 0)
    .registerFunction('quantity(string): kubernetes.Quantity', (s: string) => {
      chargeCost(traversalCost(s.length));
      try {
        return new CelQuantity(parseQuantity(s));
      } catch (e) {
        throw celError((e as Error).message);
      }
    })
    .registerFunction('isQuantity(string): bool', (s: string) => {
      chargeCost(traversalCost(s.length));
      return tryParseQuantity(s) !== undefined;
    })
    .registerFunction('kubernetes.Quantity.isInteger(): bool', (q: CelQuantity) => asInt64(q.q) !== undefined)
    .registerFunction('kubernetes.Quantity.asInteger(): int', (q: CelQuantity) => {
      const v = asInt64(q.q);
      if (v === undefined) throw celError('cannot convert value to integer');
      return v;
    })
    .registerFunction('kubernetes.Quantity.asApproximateFloat(): double', (q: CelQuantity) => asApproximateFloat64(q.q))
    .registerFunction('kubernetes.Quantity.sign(): int', (q: CelQuantity) => BigInt(quantitySign(q.q)))
    .registerFunction('kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool', (a: CelQuantity, b: CelQuantity) => compareQuantity(a.q, b.q) === 1)
    .registerFunction('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: CelQuantity, b: CelQuantity) => compareQuantity(a.q, b.q) === -1)
    .registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: CelQuantity, b: CelQuantity) => BigInt(compareQuantity(a.q, b.q)))
    .registerFunction('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) => new CelQuantity(addQuantity(a.q, b.q)))
    .registerFunction('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: CelQuantity, n: bigint) => new CelQuantity(addQuantity(a.q, newQuantity(n, 'DecimalExponent'))))
    .registerFunction('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) => new CelQuantity(subQuantity(a.q, b.q)))
    .registerFunction('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: CelQuantity, n: bigint) => new CelQuantity(subQuantity(a.q, newQuantity(n, 'DecimalExponent'))));
}
