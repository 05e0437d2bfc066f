/**
 * String formats custom resource schemas may name (`format: date-time` …), checked as
 * kube-openapi's strfmt registry checks them. Unknown formats pass, as upstream (it
 * ignores formats outside its list).
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/validation/formats.go
 */
import { isValidCIDR, isValidIP } from '../../../../apimachinery/validation.js';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const HOSTNAME = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?))*\.?$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAC = /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DURATION = /^([+-]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w))+$/;
const URI = /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/;

/**
 * Whether `v` is a valid instance of `format`.
 * @returns true for formats it does not know
 */
export function validFormat(format: string, v: string): boolean {
  switch (format) {
    case 'uuid':
    case 'uuid3':
    case 'uuid4':
    case 'uuid5':
      return UUID.test(v);
    case 'date': {
      const m = DATE.exec(v);
      if (!m) return false;
      const d = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.getUTCDate() === Number(m[3]);
    }
    case 'date-time':
    case 'datetime':
      return DATE_TIME.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T')));
    case 'hostname':
      return v.length <= 255 && HOSTNAME.test(v);
    case 'email':
      return EMAIL.test(v);
    case 'ipv4':
      return !v.includes(':') && isValidIP(v).length === 0;
    case 'ipv6':
      return v.includes(':') && isValidIP(v).length === 0;
    case 'cidr':
      return isValidCIDR(v).length === 0;
    case 'mac':
      return MAC.test(v);
    case 'byte':
      return BASE64.test(v);
    case 'duration':
      return DURATION.test(v);
    case 'uri':
      return URI.test(v);
    default:
      return true;
  }
}
