/**
 * networking.k8s.io/v1 Ingress: validation as upstream (see ./validation.ts),
 * generation on spec changes, status subresource, printer NAME CLASS HOSTS ADDRESS
 * PORTS AGE (upstream printIngress), short name `ing`. k8ts runs no ingress controller:
 * status.loadBalancer stays empty unless a third-party controller writes it.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/networking/ingress/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/printers/internalversion/printers.go (printIngress)
 */
import type { Ingress, IngressLoadBalancerStatus, IngressRule } from 'kubernetes-types/networking/v1.js';
import { keepSpec, prepareWorkloadCreate, prepareWorkloadUpdate } from '../../../apps/v1/shared/strategy.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { validateIngressCreate, validateIngressSpec, validateIngressStatus } from './validation.js';
import { Path } from '../../../../apimachinery/field-errors.js';

/** Upstream's loadBalancerWidth: longer ADDRESS cells are cut to 13 characters + `...`. */
const LOAD_BALANCER_WIDTH = 16;

/** Upstream formatHosts: the first three non-empty hosts, `*` when none, `+ N more...` beyond. */
export function formatIngressHosts(rules: IngressRule[] | undefined): string {
  const list: string[] = [];
  const rs = rules ?? [];
  let more = false;
  for (const r of rs) {
    if (list.length === 3) more = true;
    if (!more && r.host) list.push(r.host);
  }
  if (list.length === 0) return '*';
  const s = list.join(',');
  return more ? `${s} + ${rs.length - 3} more...` : s;
}

/** Upstream ingressLoadBalancerStatusStringer (not wide): sorted unique IPs or hostnames. */
export function formatIngressAddress(lb: IngressLoadBalancerStatus | undefined): string {
  const set = new Set<string>();
  for (const i of lb?.ingress ?? []) {
    if (i.ip) set.add(i.ip);
    else if (i.hostname) set.add(i.hostname);
  }
  const r = [...set].sort().join(',');
  return r.length > LOAD_BALANCER_WIDTH ? `${r.slice(0, LOAD_BALANCER_WIDTH - 3)}...` : r;
}

/** networking.k8s.io/v1 ingresses. */
export const ingressDefinition: ResourceDefinition<K<Ingress>> = {
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'Ingress',
  listKind: 'IngressList',
  resource: 'ingresses',
  singular: 'ingress',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['ing'],
  schemaRef: 'networking/v1#Ingress',

  prepareForCreate(obj) {
    prepareWorkloadCreate(obj);
  },
  prepareForUpdate(obj, old) {
    prepareWorkloadUpdate(obj, old);
  },
  validate(obj) {
    return validateIngressCreate(obj);
  },
  validateUpdate(obj) {
    return validateIngressSpec(obj.spec, Path.root('spec'));
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Class', 'string', 'The name of the IngressClass resource that should be used for ingress'),
      column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      column('Ports', 'string', 'Ports of TLS configurations that open'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [
        obj.metadata.name ?? '',
        obj.spec?.ingressClassName ?? '<none>',
        formatIngressHosts(obj.spec?.rules),
        formatIngressAddress(obj.status?.loadBalancer),
        obj.spec?.tls?.length ? '80, 443' : '80',
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
  status: {
    prepareForUpdate(obj, old) {
      keepSpec(obj, old);
    },
    validateUpdate(obj) {
      return validateIngressStatus(obj.status);
    },
  },
};
