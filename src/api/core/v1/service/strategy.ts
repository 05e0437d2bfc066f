/**
 * core/v1 Service: defaults, clusterIP/clusterIPs normalisation, validation, the status
 * strategy, ClusterIP/NodePort allocation in the store hooks, field selectors
 * (spec.clusterIP, spec.type), printer NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE
 * (+ wide SELECTOR), short name `svc`, category `all`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/service/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/printers/internalversion/printers.go (printService)
 */
import type { Service, ServiceStatus } from 'kubernetes-types/core/v1.js';
import { nameIsDNS1035Label } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition, StatusStrategy } from '../../../resource.js';
import { AGE_COLUMN, column, formatLabels, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import { clone, type K, type O } from '../shared/types.js';
import { ServiceAllocator, type ServiceAllocatorOptions } from './alloc.js';
import { firstUsableIP } from './allocator.js';
import { defaultService, dropTypeDependentFields, isHeadless, normalizeClusterIPs, patchAllocatedValues } from './defaults.js';
import { validateLoadBalancerStatus, validateService, validateServiceUpdate } from './validation.js';

/** The default service CIDR (kube-apiserver --service-cluster-ip-range). */
const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';
/** The default node port range (kube-apiserver --service-node-port-range). */
const DEFAULT_NODE_PORT_RANGE = '30000-32767';

/**
 * The ClusterIP of the `default/kubernetes` Service: the first usable address of the
 * (first) service CIDR, e.g. `10.96.0.1` for `10.96.0.0/12`.
 */
export function kubernetesServiceIP(serviceCIDR: string = DEFAULT_SERVICE_CIDR): string {
  return firstUsableIP(serviceCIDR.split(',')[0]!);
}

/** EXTERNAL-IP as upstream getServiceExternalIP (wide). */
function externalIP(svc: O<Service>): string {
  const s = svc.spec ?? {};
  const ext = s.externalIPs ?? [];
  switch (s.type) {
    case 'ClusterIP':
    case 'NodePort':
      return ext.length > 0 ? ext.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = [...new Set((svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').filter(Boolean))];
      if (ext.length > 0) return [...lb, ...ext].join(',');
      return lb.length > 0 ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return s.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** PORT(S): `80/TCP`, `80:30080/TCP`, comma-separated. */
function portString(svc: O<Service>): string {
  const s = (svc.spec?.ports ?? []).map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? ''}` : `${p.port}/${p.protocol ?? ''}`)).join(',');
  return s || '<none>';
}

/** Upstream GetWarningsForService (the headless-service cases). */
function warnings(svc: O<Service>): string[] {
  const w: string[] = [];
  if (isHeadless(svc)) {
    if (svc.spec?.loadBalancerIP) w.push('spec.loadBalancerIP is ignored for headless services');
    if ((svc.spec?.externalIPs?.length ?? 0) > 0) w.push('spec.externalIPs is ignored for headless services');
    if (svc.spec?.sessionAffinity && svc.spec.sessionAffinity !== 'None') w.push('spec.SessionAffinity is ignored for headless services');
  }
  return w;
}

/** services/status: keeps the old spec; only the load balancer status is validated. */
const serviceStatusStrategy: StatusStrategy<K<Service>> = {
  prepareForUpdate(obj, old) {
    obj.spec = clone(old.spec);
  },
  validateUpdate(obj) {
    return validateLoadBalancerStatus(obj.status?.loadBalancer, obj);
  },
};

/** Options of {@link createServiceDefinition}. */
interface ServiceDefinitionOptions extends Partial<ServiceAllocatorOptions> {
  /** default 10.96.0.0/12 */
  serviceCIDR?: string;
  /** default 30000-32767 */
  nodePortRange?: string;
}

/**
 * The Service definition bound to a new {@link ServiceAllocator} over `serviceCIDR` and
 * `nodePortRange`. The allocation runs in `hooks.beforeCreate` / `hooks.beforeUpdate`;
 * like upstream's BeginCreate/BeginUpdate they must run before validation (a
 * LoadBalancer Service with externalTrafficPolicy Local needs its healthCheckNodePort
 * before it validates). `afterCreate` records the final name, `afterDelete` releases.
 *
 * @returns the definition and its allocator (for tests and the bootstrap controller)
 * @throws Error on a malformed CIDR or port range
 */
export function createServiceDefinition(opts: ServiceDefinitionOptions = {}): ResourceDefinition<K<Service>> & { allocator: ServiceAllocator } {
  const allocator = new ServiceAllocator({
    ...opts,
    serviceCIDR: opts.serviceCIDR ?? DEFAULT_SERVICE_CIDR,
    nodePortRange: opts.nodePortRange ?? DEFAULT_NODE_PORT_RANGE,
  });
  return {
    allocator,
    group: '',
    version: 'v1',
    kind: 'Service',
    listKind: 'ServiceList',
    resource: 'services',
    singular: 'service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    schemaRef: 'core/v1#Service',
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    validateName: nameIsDNS1035Label,

    defaults: defaultService,
    prepareForCreate(obj) {
      (obj as { status?: ServiceStatus }).status = {};
      normalizeClusterIPs(obj, undefined);
    },
    prepareForUpdate(obj, old) {
      (obj as { status?: ServiceStatus }).status = clone(old.status);
      patchAllocatedValues(obj, old);
      normalizeClusterIPs(obj, old);
      dropTypeDependentFields(obj, old);
    },
    validate(obj) {
      return validateService(obj);
    },
    validateUpdate(obj, old) {
      return validateServiceUpdate(obj, old);
    },
    warningsOnCreate: warnings,
    warningsOnUpdate: warnings,
    fieldSelectorAttrs(obj) {
      return { 'spec.clusterIP': obj.spec?.clusterIP ?? '', 'spec.type': obj.spec?.type ?? '' };
    },
    table: {
      columns: [
        NAME_COLUMN,
        column('Type', 'string', 'type determines how the Service is exposed.'),
        column('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
        column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
        column('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
        AGE_COLUMN,
        column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', 1),
      ],
      cells(obj, now) {
        return [
          obj.metadata.name ?? '',
          obj.spec?.type ?? '',
          obj.spec?.clusterIPs?.[0] ?? '<none>',
          externalIP(obj),
          portString(obj),
          translateTimestampSince(obj.metadata.creationTimestamp, now),
          formatLabels(obj.spec?.selector),
        ];
      },
    },
    status: serviceStatusStrategy,
    hooks: {
      async beforeCreate(obj, ctx) {
        await allocator.allocateCreate(obj, ctx.lookup);
      },
      async afterCreate(obj) {
        await allocator.confirmCreate(obj);
      },
      async beforeUpdate(obj, old, ctx) {
        await allocator.allocateUpdate(obj, old, ctx.lookup);
      },
      async afterDelete(obj, ctx) {
        await allocator.release(obj, ctx.lookup);
      },
    },
  };
}
