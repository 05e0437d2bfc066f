/**
 * The Kubernetes CEL `format` library (Kubernetes 1.31+): `format.named(string)` →
 * `optional<Format>`, `format.<name>()` for each named format, and
 * `<Format>.validate(string)` → `optional.none()` when the string is valid, else
 * `optional.of(list of error strings)` with apimachinery's validation messages.
 * Formats: dns1123Label, dns1123Subdomain, dns1035Label, qualifiedName,
 * dns1123LabelPrefix, dns1123SubdomainPrefix, dns1035LabelPrefix, labelValue, uri,
 * uuid, byte, date, datetime.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/format.go
 */
import { type Environment, Optional } from '@marcbachmann/cel-js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../apimachinery/validation.js';
import { chargeCost, traversalCost } from '../cost.js';
import { parseRequestURI } from './gourl.js';

/** A CEL `kubernetes.NamedFormat` value. */
export class CelFormat {
  constructor(
    /** upstream's Format.Name */
    readonly name: string,
    readonly validate: (s: string) => string[],
  ) {}
  toString(): string {
    return this.name;
  }
}

/** upstream maskTrailingDash: a trailing '-' of a prefix is replaced (with the character before it) by 'a'. */
function maskTrailingDash(s: string): string {
  return s.length > 1 && s.endsWith('-') ? `${s.slice(0, -2)}a` : s;
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** strfmt.ParseDateTime's layouts: RFC 3339 (T, t or space), optional seconds and fraction, optional zone. */
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))?$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function dateOK(s: string): boolean {
  const m = DATE.exec(s);
  return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

function dateTimeOK(s: string): boolean {
  const m = DATETIME.exec(s);
  if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || (m[6] !== undefined && Number(m[6]) > 59)) return false;
  return m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59);
}

/** upstream ConstantFormats, by name. */
export const FORMATS: ReadonlyMap<string, CelFormat> = new Map(
  (
    [
      ['dns1123Label', 'DNS1123Label', isDNS1123Label],
      ['dns1123Subdomain', 'DNS1123Subdomain', isDNS1123Subdomain],
      ['dns1035Label', 'DNS1035Label', isDNS1035Label],
      ['qualifiedName', 'QualifiedName', isQualifiedName],
      ['dns1123LabelPrefix', 'DNS1123LabelPrefix', (s: string) => isDNS1123Label(maskTrailingDash(s))],
      ['dns1123SubdomainPrefix', 'DNS1123SubdomainPrefix', (s: string) => isDNS1123Subdomain(maskTrailingDash(s))],
      ['dns1035LabelPrefix', 'DNS1035LabelPrefix', (s: string) => isDNS1035Label(maskTrailingDash(s))],
      ['labelValue', 'LabelValue', isValidLabelValue],
      [
        'uri',
        'URI',
        (s: string) => {
          try {
            parseRequestURI(s);
            return [];
          } catch (e) {
            return [(e as Error).message];
          }
        },
      ],
      ['uuid', 'uuid', (s: string) => (UUID.test(s) ? [] : ['does not match the UUID format'])],
      ['byte', 'byte', (s: string) => (BASE64.test(s) ? [] : ['invalid base64'])],
      ['date', 'date', (s: string) => (dateOK(s) ? [] : ['invalid date'])],
      ['datetime', 'datetime', (s: string) => (dateTimeOK(s) ? [] : ['invalid datetime'])],
    ] as [string, string, (s: string) => string[]][]
  ).map(([key, name, f]) => [key, new CelFormat(name, f)]),
);

/** Namespace object of `format.named(…)` and `format.<name>()`. */
class FormatNamespace {}

/** Registers the format library on `env`. */
export function registerFormat(env: Environment): void {
  env
    .registerType('kubernetes.NamedFormat', CelFormat)
    .registerType('kubernetes.FormatNamespace', FormatNamespace)
    .registerConstant('format', 'kubernetes.FormatNamespace', new FormatNamespace())
    .registerOperator('kubernetes.NamedFormat == kubernetes.NamedFormat', (a: CelFormat, b: CelFormat) => a === b)
    .registerFunction('kubernetes.FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_ns: unknown, name: string) => {
      const f = FORMATS.get(name);
      return f ? Optional.of(f) : Optional.none();
    })
    .registerFunction('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: CelFormat, s: string) => {
      chargeCost(traversalCost(s.length));
      const errs = f.validate(s);
      return errs.length === 0 ? Optional.none() : Optional.of(errs);
    });
  for (const key of FORMATS.keys()) env.registerFunction(`kubernetes.FormatNamespace.${key}(): kubernetes.NamedFormat`, () => FORMATS.get(key)!);
}
