/**
 * core/v1 Endpoints: defaults (port protocol TCP), validation of subsets, printer
 * NAME ENDPOINTS AGE, short name `ep`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/endpoint/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidateEndpoints)
 */
import type { EndpointAddress, EndpointPort, Endpoints } from 'kubernetes-types/core/v1.js';
import { type FieldError, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { isValidPortNum, nameIsDNSSubdomain } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';
import { validateDNS1123Label, validateIP, validateNonSpecialIP, validateQualifiedName } from '../shared/validation.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** Upstream validateEndpointAddress. */
function validateEndpointAddress(a: EndpointAddress, p: Path): FieldError[] {
  const errs = validateIP(a.ip ?? '', p.child('ip'));
  if (a.hostname) errs.push(...validateDNS1123Label(a.hostname, p.child('hostname')));
  if (a.nodeName !== undefined) for (const m of nameIsDNSSubdomain(a.nodeName, false)) errs.push(invalid(p.child('nodeName'), a.nodeName, m));
  errs.push(...validateNonSpecialIP(a.ip ?? '', p.child('ip')));
  return errs;
}

/** Upstream validateEndpointPort. */
function validateEndpointPort(port: EndpointPort, requireName: boolean, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (requireName && !port.name) errs.push(required(p.child('name'), ''));
  else if (port.name) errs.push(...validateDNS1123Label(port.name, p.child('name')));
  for (const m of isValidPortNum(port.port)) errs.push(invalid(p.child('port'), port.port, m));
  if (!port.protocol) errs.push(required(p.child('protocol'), ''));
  else if (!PROTOCOLS.includes(port.protocol)) errs.push(notSupported(p.child('protocol'), port.protocol, PROTOCOLS));
  if (port.appProtocol !== undefined) errs.push(...validateQualifiedName(port.appProtocol, p.child('appProtocol')));
  return errs;
}

/** Upstream ValidateEndpoints (without ObjectMeta). */
function validateEndpoints(ep: O<Endpoints>): FieldError[] {
  const errs: FieldError[] = [];
  (ep.subsets ?? []).forEach((ss, i) => {
    const p = Path.root('subsets').index(i);
    if ((ss.addresses?.length ?? 0) === 0 && (ss.notReadyAddresses?.length ?? 0) === 0) {
      errs.push(required(p, 'must specify `addresses` or `notReadyAddresses`'));
    }
    (ss.addresses ?? []).forEach((a, j) => errs.push(...validateEndpointAddress(a, p.child('addresses').index(j))));
    (ss.notReadyAddresses ?? []).forEach((a, j) => errs.push(...validateEndpointAddress(a, p.child('notReadyAddresses').index(j))));
    const ports = ss.ports ?? [];
    ports.forEach((port, j) => errs.push(...validateEndpointPort(port, ports.length > 1, p.child('ports').index(j))));
  });
  return errs;
}

/** ENDPOINTS cell: up to three `ip:port`, then ` + N more...` (upstream formatEndpoints). */
function formatEndpoints(ep: O<Endpoints>): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  const hostPort = (ip: string, port: number): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);
  for (const ss of subsets) {
    const addrs = ss.addresses ?? [];
    if ((ss.ports?.length ?? 0) === 0) {
      count += addrs.length;
      for (const a of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(a.ip);
      }
      continue;
    }
    for (const port of ss.ports ?? []) {
      count += addrs.length;
      for (const a of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(hostPort(a.ip, port.port));
      }
    }
  }
  const s = list.join(',');
  return more ? `${s} + ${count - max} more...` : s;
}

/** core/v1 endpoints (short name `ep`). */
export const endpointsDefinition: ResourceDefinition<K<Endpoints>> = {
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  listKind: 'EndpointsList',
  resource: 'endpoints',
  singular: 'endpoints',
  namespaced: true,
  shortNames: ['ep'],
  schemaRef: 'core/v1#Endpoints',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,

  defaults(obj) {
    for (const ss of obj.subsets ?? []) for (const p of ss.ports ?? []) if (!p.protocol) p.protocol = 'TCP';
  },
  validate(obj) {
    return validateEndpoints(obj);
  },
  validateUpdate(obj) {
    return validateEndpoints(obj);
  },
  table: {
    columns: [NAME_COLUMN, column('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'), AGE_COLUMN],
    cells(obj, now) {
      return [obj.metadata.name ?? '', formatEndpoints(obj), translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
