/**
 * core/v1 Node: defaults (allocatable from capacity, podCIDR ⇄ podCIDRs), quantity
 * decoding, validation, the status strategy, field selector `spec.unschedulable`, printer
 * NAME STATUS ROLES AGE VERSION (+ wide INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION
 * CONTAINER-RUNTIME), short name `no`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/node/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/defaults.go (SetDefaults_NodeStatus)
 */
import type { Node, NodeStatus } from 'kubernetes-types/core/v1.js';
import type { ResourceDefinition, StatusStrategy } from '../../../resource.js';
import { canonicalizeQuantityMap, checkQuantityMap } from '../shared/decode.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import { clone, type K, type O } from '../shared/types.js';
import { validateNode, validateNodeUpdate } from './validation.js';

const LABEL_NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const LABEL_ROLE = 'kubernetes.io/role';

/** Roles from `node-role.kubernetes.io/<role>` keys and a `kubernetes.io/role=<role>` label, sorted. */
function nodeRoles(node: O<Node>): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith(LABEL_NODE_ROLE_PREFIX)) {
      const r = k.slice(LABEL_NODE_ROLE_PREFIX.length);
      if (r) roles.add(r);
    } else if (k === LABEL_ROLE && v) roles.add(v);
  }
  return [...roles].sort();
}

/** The STATUS cell: Ready / NotReady / Unknown, plus `,SchedulingDisabled` when cordoned. */
function nodeStatusString(node: O<Node>): string {
  const status: string[] = [];
  const ready = (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

function address(node: O<Node>, type: string): string {
  return (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';
}

function decode(node: O<Node>): void {
  checkQuantityMap('Node', 'v1', node.status?.capacity);
  checkQuantityMap('Node', 'v1', node.status?.allocatable);
}

/** nodes/status: keeps the old spec. */
export const nodeStatusStrategy: StatusStrategy<K<Node>> = {
  prepareForUpdate(obj, old) {
    decode(obj);
    obj.spec = clone(old.spec);
  },
  validateUpdate(obj, old) {
    return validateNodeUpdate(obj, old);
  },
};

/** core/v1 nodes (cluster-scoped, short name `no`). */
export const nodeDefinition: ResourceDefinition<K<Node>> = {
  group: '',
  version: 'v1',
  kind: 'Node',
  listKind: 'NodeList',
  resource: 'nodes',
  singular: 'node',
  namespaced: false,
  shortNames: ['no'],
  schemaRef: 'core/v1#Node',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    const st = obj.status;
    if (st && !st.allocatable && st.capacity) st.allocatable = { ...st.capacity };
    const spec = obj.spec;
    if (spec) {
      if ((!spec.podCIDRs || spec.podCIDRs.length === 0) && spec.podCIDR) spec.podCIDRs = [spec.podCIDR];
      if (spec.podCIDRs && spec.podCIDRs.length > 0) spec.podCIDR = spec.podCIDRs[0];
    }
  },
  prepareForCreate(obj) {
    decode(obj);
    // DynamicKubeletConfig is gone: configSource is dropped unless already in use
    if (obj.spec?.configSource) delete obj.spec.configSource;
  },
  prepareForUpdate(obj, old) {
    decode(obj);
    (obj as { status?: NodeStatus }).status = clone(old.status);
    if (obj.spec?.configSource && !old.spec?.configSource) delete obj.spec.configSource;
  },
  validate(obj) {
    return validateNode(obj);
  },
  validateUpdate(obj, old) {
    return validateNodeUpdate(obj, old);
  },
  canonicalize(obj) {
    canonicalizeQuantityMap(obj.status?.capacity);
    canonicalizeQuantityMap(obj.status?.allocatable);
  },
  fieldSelectorAttrs(obj) {
    return { 'spec.unschedulable': String(obj.spec?.unschedulable === true) };
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', 'The status of the node'),
      column('Roles', 'string', 'The roles of the node'),
      AGE_COLUMN,
      column('Version', 'string', 'Kubelet Version reported by the node.'),
      column('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
      column('External-IP', 'string', 'List of addresses reachable to the node.', 1),
      column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
      column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
      column('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
    ],
    cells(obj, now) {
      const roles = nodeRoles(obj).join(',') || '<none>';
      const info = obj.status?.nodeInfo;
      return [
        obj.metadata.name ?? '',
        nodeStatusString(obj),
        roles,
        translateTimestampSince(obj.metadata.creationTimestamp, now),
        info?.kubeletVersion ?? '',
        address(obj, 'InternalIP'),
        address(obj, 'ExternalIP'),
        info?.osImage || '<unknown>',
        info?.kernelVersion || '<unknown>',
        info?.containerRuntimeVersion || '<unknown>',
      ];
    },
  },
  status: nodeStatusStrategy,
};
