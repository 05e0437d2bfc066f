/**
 * discovery.k8s.io/v1 EndpointSlice: defaults (port name "" and protocol TCP), generation
 * (1 on create, +1 on any change besides metadata other than labels), validation,
 * printer NAME ADDRESSTYPE PORTS ENDPOINTS AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/discovery/endpointslice/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/discovery/validation/validation.go
 */
import type { Endpoint, EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { type FieldError, duplicate, invalid, notSupported, Path, required, tooMany } from '../../../../apimachinery/field-errors.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidLabelValue,
  jsonEqual,
  nameIsDNSSubdomain,
  parseIPSloppy,
  validateImmutableField,
  validateLabels,
} from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { type K, mutableMeta, type O } from '../../../core/v1/shared/types.js';
import { validateDNS1123Label, validateNonSpecialIP, validateQualifiedName } from '../../../core/v1/shared/validation.js';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const MAX_ENDPOINTS = 1000;
const MAX_ZONE_HINTS = 8;

/** Upstream validation.IsFullyQualifiedDomainName (at least two labels). */
function validateFQDN(p: Path, name: string): FieldError[] {
  if (!name) return [required(p, '')];
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  const e = isDNS1123Subdomain(n);
  if (e.length > 0) return [invalid(p, n, e.join(','))];
  const labels = n.split('.');
  if (labels.length < 2) return [invalid(p, n, 'should be a domain with at least two segments separated by dots')];
  for (const l of labels) {
    const le = isDNS1123Label(l);
    if (le.length > 0) return [invalid(p, l, le.join(','))];
  }
  return [];
}

function validateEndpoints(endpoints: Endpoint[], addressType: string, p: Path): FieldError[] {
  if (endpoints.length > MAX_ENDPOINTS) return [tooMany(p, endpoints.length, MAX_ENDPOINTS)];
  const errs: FieldError[] = [];
  endpoints.forEach((ep, i) => {
    const ip = p.index(i);
    const ap = ip.child('addresses');
    const addrs = ep.addresses ?? [];
    if (addrs.length === 0) errs.push(required(ap, 'must contain at least 1 address'));
    else if (addrs.length > MAX_ADDRESSES) errs.push(tooMany(ap, addrs.length, MAX_ADDRESSES));
    addrs.forEach((a, j) => {
      switch (addressType) {
        case 'IPv4':
          if (parseIPSloppy(a) !== 4) errs.push(invalid(ap.index(j), a, 'must be a valid IPv4 address'));
          errs.push(...validateNonSpecialIP(a, ap.index(j)));
          break;
        case 'IPv6':
          if (parseIPSloppy(a) !== 6) errs.push(invalid(ap.index(j), a, 'must be a valid IPv6 address'));
          errs.push(...validateNonSpecialIP(a, ap.index(j)));
          break;
        case 'FQDN':
          errs.push(...validateFQDN(ap.index(j), a));
          break;
        default:
      }
    });
    if (ep.nodeName !== undefined) for (const m of nameIsDNSSubdomain(ep.nodeName, false)) errs.push(invalid(ip.child('nodeName'), ep.nodeName, m));
    const topo = ep.deprecatedTopology ?? {};
    const tp = ip.child('deprecatedTopology');
    if (Object.keys(topo).length > MAX_TOPOLOGY_LABELS) errs.push(tooMany(tp, Object.keys(topo).length, MAX_TOPOLOGY_LABELS));
    errs.push(...validateLabels(topo, tp));
    if (ep.hostname !== undefined) errs.push(...validateDNS1123Label(ep.hostname, ip.child('hostname')));
    if (ep.hints) {
      const fz = ip.child('hints').child('forZones');
      const zones = ep.hints.forZones ?? [];
      if (zones.length > MAX_ZONE_HINTS) errs.push(tooMany(fz, zones.length, MAX_ZONE_HINTS));
      else {
        const seen = new Set<string>();
        zones.forEach((z, k) => {
          const zp = fz.index(k).child('name');
          if (seen.has(z.name)) errs.push(duplicate(zp, z.name));
          else seen.add(z.name);
          for (const m of isValidLabelValue(z.name)) errs.push(invalid(zp, z.name, m));
        });
      }
    }
  });
  return errs;
}

function validatePorts(ports: EndpointPort[], p: Path): FieldError[] {
  if (ports.length > MAX_PORTS) return [tooMany(p, ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const ip = p.index(i);
    const name = port.name ?? '';
    if (name) errs.push(...validateDNS1123Label(name, ip.child('name')));
    if (names.has(name)) errs.push(duplicate(ip.child('name'), name));
    else names.add(name);
    if (!port.protocol) errs.push(required(ip.child('protocol'), ''));
    else if (!PROTOCOLS.includes(port.protocol)) errs.push(notSupported(ip.child('protocol'), port.protocol, PROTOCOLS));
    if (port.appProtocol !== undefined) errs.push(...validateQualifiedName(port.appProtocol, ip.child('appProtocol')));
  });
  return errs;
}

/** Upstream ValidateEndpointSlice (without ObjectMeta); `validTypes` differ for create and update. */
function validateEndpointSlice(es: O<EndpointSlice>, validTypes: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const t = es.addressType ?? '';
  if (!t) errs.push(required('addressType', ''));
  else if (!validTypes.includes(t)) errs.push(notSupported('addressType', t, validTypes));
  errs.push(...validateEndpoints(es.endpoints ?? [], t, Path.root('endpoints')));
  errs.push(...validatePorts(es.ports ?? [], Path.root('ports')));
  return errs;
}

function listWithMore(list: string[], more: boolean, count: number, max: number): string {
  const s = list.join(',');
  if (more) return `${s} + ${count - max} more...`;
  return s || '<unset>';
}

function formatPorts(ports: EndpointPort[] | undefined): string {
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const p of ports ?? []) {
    if (list.length < 3) list.push(p.port !== undefined ? String(p.port) : p.name !== undefined ? p.name : '*');
    else more = true;
    count++;
  }
  return listWithMore(list, more, count, 3);
}

function formatEndpoints(eps: Endpoint[] | undefined): string {
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ep of eps ?? []) {
    for (const a of ep.addresses ?? []) {
      if (list.length < 3) list.push(a);
      else more = true;
      count++;
    }
  }
  return listWithMore(list, more, count, 3);
}

function withoutMeta(es: O<EndpointSlice>): unknown {
  const { metadata: _m, ...rest } = es;
  return rest;
}

/** discovery.k8s.io/v1 endpointslices. */
export const endpointSliceDefinition: ResourceDefinition<K<EndpointSlice>> = {
  group: 'discovery.k8s.io',
  version: 'v1',
  kind: 'EndpointSlice',
  listKind: 'EndpointSliceList',
  resource: 'endpointslices',
  singular: 'endpointslice',
  namespaced: true,
  schemaRef: 'discovery/v1#EndpointSlice',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    for (const p of obj.ports ?? []) {
      if (p.name === undefined) p.name = '';
      if (p.protocol === undefined) p.protocol = 'TCP';
    }
  },
  prepareForCreate(obj) {
    mutableMeta(obj).generation = 1;
  },
  prepareForUpdate(obj, old) {
    if (!jsonEqual(withoutMeta(obj), withoutMeta(old)) || !jsonEqual(obj.metadata.labels ?? {}, old.metadata.labels ?? {})) {
      mutableMeta(obj).generation = (old.metadata.generation ?? 0) + 1;
    } else {
      mutableMeta(obj).generation = old.metadata.generation;
    }
  },
  validate(obj) {
    return validateEndpointSlice(obj, ADDRESS_TYPES);
  },
  validateUpdate(obj, old) {
    const errs = validateEndpointSlice(obj, [...ADDRESS_TYPES, 'IP']);
    errs.push(...validateImmutableField(obj.addressType ?? '', old.addressType ?? '', 'addressType'));
    return errs;
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
      column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
      column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [obj.metadata.name ?? '', obj.addressType ?? '', formatPorts(obj.ports), formatEndpoints(obj.endpoints), translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
