import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { endpointsDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const ep = (subsets: Endpoints['subsets']): O<Endpoints> =>
  ({ metadata: { name: 'web', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' }, subsets }) as O<Endpoints>;

test('defaults port protocol to TCP', () => {
  const e = ep([{ addresses: [{ ip: '10.1.0.5' }], ports: [{ port: 80 }] }]);
  def.defaults!(e);
  assert.equal(e.subsets![0]!.ports![0]!.protocol, 'TCP');
});

test('validation messages', () => {
  const ok = ep([{ addresses: [{ ip: '10.1.0.5', nodeName: 'n1' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
  assert.deepEqual(msgs(def.validate!(ok, ctx)), []);
  assert.deepEqual(msgs(def.validate!(ep([{ ports: [{ port: 80, protocol: 'TCP' }] }]), ctx)), ['subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`']);
  assert.deepEqual(msgs(def.validate!(ep([{ addresses: [{ ip: '127.0.0.1' }], notReadyAddresses: [{ ip: '169.254.1.1' }] }]), ctx)), [
    'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    'subsets[0].notReadyAddresses[0].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
  ]);
  assert.deepEqual(
    msgs(
      def.validate!(
        ep([
          {
            addresses: [{ ip: '10.0.0.1' }],
            ports: [
              { port: 80, protocol: 'TCP' },
              { port: 70000, protocol: 'TCP', name: 'b' },
            ],
          },
        ]),
        ctx,
      ),
    ),
    ['subsets[0].ports[0].name: Required value', 'subsets[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive'],
  );
  assert.deepEqual(msgs(def.validate!(ep([{ addresses: [{ ip: 'nope' }] }]), ctx)), [
    'subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address',
  ]);
});

test('table: ENDPOINTS column', () => {
  const now = new Date('2024-01-01T00:00:30Z');
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Endpoints', 'Age'],
  );
  assert.deepEqual(def.table!.cells(ep(undefined), now), ['web', '<none>', '30s']);
  const many = ep([{ addresses: ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map((ip) => ({ ip })), ports: [{ port: 80 }, { port: 443 }] }]);
  assert.equal(def.table!.cells(many, now)[1], '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 5 more...');
  const v6 = ep([{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] }, { addresses: [{ ip: '10.0.0.9' }] }]);
  assert.equal(def.table!.cells(v6, now)[1], '[fd00::1]:80,10.0.0.9');
  assert.deepEqual(def.shortNames, ['ep']);
});
