import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../../../core/v1/shared/types.js';
import { endpointSliceDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const es = (o: Partial<EndpointSlice>): O<EndpointSlice> =>
  ({ metadata: { name: 'web-abc', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' }, addressType: 'IPv4', endpoints: [], ...o }) as O<EndpointSlice>;

test('defaults and generation', () => {
  const e = es({ ports: [{ port: 80 }] });
  def.defaults!(e);
  assert.deepEqual(e.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
  def.prepareForCreate!(e, ctx);
  assert.equal(e.metadata.generation, 1);
  const same = structuredClone(e);
  def.prepareForUpdate!(same, e, ctx);
  assert.equal(same.metadata.generation, 1);
  const changed = { ...structuredClone(e), endpoints: [{ addresses: ['10.1.0.1'] }] } as O<EndpointSlice>;
  def.prepareForUpdate!(changed, e, ctx);
  assert.equal(changed.metadata.generation, 2);
});

test('validation messages', () => {
  assert.deepEqual(msgs(def.validate!(es({ endpoints: [{ addresses: ['10.1.0.1'], nodeName: 'n1' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }), ctx)), []);
  assert.deepEqual(msgs(def.validate!(es({ addressType: 'IP' as 'IPv4' }), ctx)), ['addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"']);
  assert.deepEqual(msgs(def.validate!(es({ endpoints: [{ addresses: [] }, { addresses: ['fd00::1'] }] }), ctx)), [
    'endpoints[0].addresses: Required value: must contain at least 1 address',
    'endpoints[1].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address',
  ]);
  assert.deepEqual(msgs(def.validate!(es({ addressType: 'FQDN', endpoints: [{ addresses: ['localhost'] }] }), ctx)), [
    'endpoints[0].addresses[0]: Invalid value: "localhost": should be a domain with at least two segments separated by dots',
  ]);
  assert.deepEqual(
    msgs(
      def.validate!(
        es({
          ports: [
            { name: 'a', protocol: 'TCP' },
            { name: 'a', protocol: 'HTTP' },
          ],
        }),
        ctx,
      ),
    ),
    ['ports[1].name: Duplicate value: "a"', 'ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'],
  );
  assert.deepEqual(msgs(def.validateUpdate!(es({ addressType: 'IPv6' }), es({}), ctx)), ['addressType: Invalid value: "IPv6": field is immutable']);
});

test('table: NAME ADDRESSTYPE PORTS ENDPOINTS AGE', () => {
  const now = new Date('2024-01-01T00:02:00Z');
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age'],
  );
  assert.deepEqual(def.table!.cells(es({}), now), ['web-abc', 'IPv4', '<unset>', '<unset>', '2m']);
  const e = es({
    ports: [{ port: 80 }, { name: 'x' }],
    endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }, { addresses: ['10.0.0.3'] }, { addresses: ['10.0.0.4'] }],
  });
  assert.deepEqual(def.table!.cells(e, now).slice(2, 4), ['80,x', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...']);
});
