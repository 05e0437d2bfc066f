import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../../../core/v1/shared/types.js';
import { networkPolicyDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const np = (spec: object): O<NetworkPolicy> => ({ metadata: { name: 'p', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' }, spec }) as O<NetworkPolicy>;
const create = (o: O<NetworkPolicy>): string[] => {
  def.defaults!(o);
  def.prepareForCreate!(o, ctx);
  return def.validate!(o, ctx).map(fieldErrorString);
};

test('defaults: port protocol TCP, policyTypes from the rules; generation; POD-SELECTOR column', () => {
  const ingressOnly = np({ podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] });
  assert.deepEqual(create(ingressOnly), []);
  assert.deepEqual(ingressOnly.spec!.policyTypes, ['Ingress']);
  assert.equal(ingressOnly.spec!.ingress![0]!.ports![0]!.protocol, 'TCP');
  assert.equal(ingressOnly.metadata.generation, 1);
  const both = np({ podSelector: { matchLabels: { role: 'db' } }, egress: [{}] });
  assert.deepEqual(create(both), []);
  assert.deepEqual(both.spec!.policyTypes, ['Ingress', 'Egress']);
  assert.deepEqual(def.table!.cells(both, new Date('2024-01-01T00:00:30Z')), ['p', 'role=db', '30s']);
  assert.deepEqual(def.table!.cells(ingressOnly, new Date('2024-01-01T00:00:30Z'))[1], '<none>');
  assert.deepEqual(def.shortNames, ['netpol']);
});

test('validation: peers, ipBlock, port ranges, policy types', () => {
  assert.deepEqual(
    create(
      np({
        podSelector: {},
        ingress: [
          {
            from: [{}, { ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24', '10.0.0.0/8'] }, podSelector: {} }],
            ports: [
              { protocol: 'ICMP', port: 80, endPort: 70 },
              { port: 'http', endPort: 90 },
            ],
          },
        ],
        policyTypes: ['Ingress', 'Sideways'],
      }),
    ),
    [
      'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`',
      'spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric',
      'spec.ingress[0].from[0]: Required value: must specify a peer',
      'spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`',
      'spec.ingress[0].from[1].ipBlock.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
      'spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer',
      'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    ],
  );
  assert.deepEqual(create(np({ podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0' } }] }] })), [
    'spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]);
});
