import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import { StatusError } from '../../../../apimachinery/errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { nodeDefinition as def, nodeStatusStrategy } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'kubelet', groups: [] }, namespace: '', now: () => new Date() };
const node = (o: Partial<Node> = {}): O<Node> => ({ metadata: { name: 'n1' }, ...o }) as O<Node>;
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);

test('defaults: allocatable from capacity, podCIDR <-> podCIDRs', () => {
  const n = node({ spec: { podCIDR: '10.244.0.0/24' }, status: { capacity: { cpu: '4', pods: '110' } } });
  def.defaults!(n);
  assert.deepEqual(n.status?.allocatable, { cpu: '4', pods: '110' });
  assert.deepEqual(n.spec?.podCIDRs, ['10.244.0.0/24']);
  const m = node({ spec: { podCIDRs: ['10.244.1.0/24', 'fd00::/64'] } });
  def.defaults!(m);
  assert.equal(m.spec?.podCIDR, '10.244.1.0/24');
});

test('create keeps status; update keeps old status; status update keeps old spec', () => {
  const n = node({ status: { capacity: { cpu: '2' } } });
  def.prepareForCreate!(n, ctx);
  assert.deepEqual(n.status, { capacity: { cpu: '2' } });
  const old = node({ spec: { unschedulable: false }, status: { capacity: { cpu: '2' } } });
  const upd = node({ spec: { unschedulable: true }, status: { capacity: { cpu: '8' } } });
  def.prepareForUpdate!(upd, old, ctx);
  assert.deepEqual(upd.status, { capacity: { cpu: '2' } });
  assert.equal(upd.spec?.unschedulable, true);
  const st = node({ spec: { unschedulable: true }, status: { capacity: { cpu: '8' } } });
  nodeStatusStrategy.prepareForUpdate(st, old, ctx);
  assert.equal(st.spec?.unschedulable, false);
  assert.deepEqual(st.status, { capacity: { cpu: '8' } });
});

test('bad quantities are decode errors; canonicalize rewrites quantities', () => {
  assert.throws(
    () => def.prepareForCreate!(node({ status: { capacity: { memory: '1Gb' } } }), ctx),
    (e: unknown) => e instanceof StatusError && e.code === 400 && /^Node in version "v1" cannot be handled as a Node: /.test(e.message),
  );
  const n = node({ status: { capacity: { cpu: '4000m', memory: '1024Mi' } } });
  def.canonicalize!(n);
  assert.deepEqual(n.status?.capacity, { cpu: '4', memory: '1Gi' });
});

test('validate: taints (under metadata.taints as upstream), quantities, podCIDRs', () => {
  assert.deepEqual(msgs(def.validate!(node({ spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] } }), ctx)), []);
  assert.deepEqual(msgs(def.validate!(node({ spec: { taints: [{ key: 'k', effect: 'Bogus' }] } }), ctx)), [
    'metadata.taints[0].effect: Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
  ]);
  assert.deepEqual(msgs(def.validate!(node({ spec: { taints: [{ key: 'k', effect: '' } as never] } }), ctx)), ['metadata.taints[0].effect: Required value']);
  const dup = def.validate!(
    node({
      spec: {
        taints: [
          { key: 'k', effect: 'NoSchedule' },
          { key: 'k', value: 'x', effect: 'NoSchedule' },
        ],
      },
    }),
    ctx,
  );
  assert.equal(dup.length, 1);
  assert.equal(dup[0]!.field, 'metadata.taints[1]');
  assert.equal(dup[0]!.type, 'FieldValueDuplicate');
  assert.equal(dup[0]!.detail, 'taints must be unique by key and effect pair');
  assert.deepEqual(msgs(def.validate!(node({ status: { capacity: { cpu: '-1', pods: '1500m' } } }), ctx)), [
    'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
    'status.capacity.pods: Invalid value: "1500m": must be an integer',
  ]);
  assert.deepEqual(msgs(def.validate!(node({ spec: { podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'] } }), ctx)), [
    'spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "10.1.0.0/24"}: may specify no more than one CIDR for each IP family',
  ]);
  assert.deepEqual(msgs(def.validate!(node({ spec: { podCIDRs: ['bogus'] } }), ctx)), [
    'spec.podCIDRs[0]: Invalid value: "bogus": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]);
});

test('validateUpdate: podCIDR and providerID are set-once, addresses unique', () => {
  const old = node({ spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'kind://a' } });
  assert.deepEqual(msgs(def.validateUpdate!(node({ spec: { podCIDRs: ['10.0.1.0/24'], providerID: 'kind://b' } }), old, ctx)), [
    'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
  ]);
  assert.deepEqual(msgs(def.validateUpdate!(node({ spec: { podCIDRs: ['10.0.0.0/24'] } }), node(), ctx)), []);
  const dupAddr = def.validateUpdate!(
    node({
      status: {
        addresses: [
          { type: 'InternalIP', address: '10.0.0.1' },
          { type: 'InternalIP', address: '10.0.0.1' },
        ],
      },
    }),
    node(),
    ctx,
  );
  assert.deepEqual(
    dupAddr.map((e) => e.field),
    ['status.addresses[1]'],
  );
});

test('field selector spec.unschedulable', () => {
  assert.deepEqual(def.fieldSelectorAttrs!(node()), { 'spec.unschedulable': 'false' });
  assert.deepEqual(def.fieldSelectorAttrs!(node({ spec: { unschedulable: true } })), { 'spec.unschedulable': 'true' });
});

test('table rows: status, roles, wide columns', () => {
  const now = new Date('2024-01-02T00:00:00Z');
  assert.deepEqual(
    def.table!.columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Status:0', 'Roles:0', 'Age:0', 'Version:0', 'Internal-IP:1', 'External-IP:1', 'OS-Image:1', 'Kernel-Version:1', 'Container-Runtime:1'],
  );
  const ready = node({
    metadata: { name: 'cp', creationTimestamp: '2024-01-01T00:00:00Z', labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/etcd': '' } },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      addresses: [
        { type: 'Hostname', address: 'cp' },
        { type: 'InternalIP', address: '192.168.1.10' },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.32.0',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        kernelVersion: '6.1.0',
        containerRuntimeVersion: 'containerd://1.7.0',
        architecture: 'amd64',
        bootID: '',
        machineID: '',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        systemUUID: '',
      },
    },
  });
  assert.deepEqual(def.table!.cells(ready, now), [
    'cp',
    'Ready',
    'control-plane,etcd',
    '24h',
    'v1.32.0',
    '192.168.1.10',
    '<none>',
    'Debian GNU/Linux 12 (bookworm)',
    '6.1.0',
    'containerd://1.7.0',
  ]);
  const cordoned = node({ spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } });
  const cells = def.table!.cells(cordoned, now);
  assert.equal(cells[1], 'NotReady,SchedulingDisabled');
  assert.equal(cells[2], '<none>');
  assert.equal(cells[7], '<unknown>');
  assert.equal(def.table!.cells(node(), now)[1], 'Unknown');
  const legacyRole = node({ metadata: { name: 'w', labels: { 'kubernetes.io/role': 'worker' } } });
  assert.equal(def.table!.cells(legacyRole, now)[2], 'worker');
});
