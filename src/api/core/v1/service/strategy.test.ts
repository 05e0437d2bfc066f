import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { createServiceDefinition } from './strategy.js';

const def = createServiceDefinition();
const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const svc = (spec: Service['spec'] = {}, extra: Partial<Service> = {}): O<Service> =>
  ({ metadata: { name: 'web', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' }, spec, ...extra }) as O<Service>;
/** defaulted, with an allocated-looking IP, as validation sees a created Service */
const ready = (spec: Service['spec'] = {}): O<Service> => {
  const s = svc({ clusterIP: '10.96.5.5', clusterIPs: ['10.96.5.5'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ port: 80 }], ...spec });
  def.defaults!(s);
  return s;
};

test('defaults', () => {
  const s = svc({ ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] });
  def.defaults!(s);
  assert.equal(s.spec?.type, 'ClusterIP');
  assert.equal(s.spec?.sessionAffinity, 'None');
  assert.equal(s.spec?.internalTrafficPolicy, 'Cluster');
  assert.equal(s.spec?.externalTrafficPolicy, undefined);
  assert.deepEqual(s.spec?.ports, [
    { port: 80, protocol: 'TCP', targetPort: 80 },
    { port: 53, protocol: 'UDP', targetPort: 'dns' },
  ]);
  const lb = svc({ type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] });
  def.defaults!(lb);
  assert.equal(lb.spec?.externalTrafficPolicy, 'Cluster');
  assert.equal(lb.spec?.allocateLoadBalancerNodePorts, true);
  assert.deepEqual(lb.spec?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
  const en = svc({ type: 'ExternalName', externalName: 'example.com' });
  def.defaults!(en);
  assert.equal(en.spec?.internalTrafficPolicy, undefined);
});

test('prepareForCreate clears status and copies clusterIP into clusterIPs', () => {
  const s = svc({ clusterIP: '10.96.0.10' }, { status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } });
  def.prepareForCreate!(s, ctx);
  assert.deepEqual(s.status, {});
  assert.deepEqual(s.spec?.clusterIPs, ['10.96.0.10']);
});

test('names are DNS-1035 labels', () => {
  assert.deepEqual(def.validateName!('my-svc', false), []);
  assert.equal(def.validateName!('1svc', false).length, 1);
});

test('validation messages', () => {
  assert.deepEqual(msgs(def.validate!(ready(), ctx)), []);
  assert.deepEqual(msgs(def.validate!(ready({ ports: [] }), ctx)), ['spec.ports: Required value']);
  assert.deepEqual(
    msgs(
      def.validate!(
        ready({
          ports: [
            { port: 80, protocol: 'TCP', targetPort: 80 },
            { port: 81, protocol: 'TCP', targetPort: 81 },
          ],
        }),
        ctx,
      ),
    ),
    ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value'],
  );
  assert.deepEqual(msgs(def.validate!(ready({ ports: [{ port: 0, protocol: 'HTTP' as 'TCP', targetPort: 'Bad_Name' }] }), ctx)), [
    'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    'spec.ports[0].targetPort: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
  ]);
  assert.deepEqual(msgs(def.validate!(ready({ type: 'Bogus' as 'ClusterIP' }), ctx)), [
    'spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  ]);
  assert.deepEqual(msgs(def.validate!(ready({ ports: [{ port: 80, nodePort: 30080 }] }), ctx)), ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  assert.deepEqual(msgs(def.validate!(ready({ clusterIP: '10.96.5.5', clusterIPs: ['10.96.5.6'] }), ctx)), [
    'spec.clusterIPs: Invalid value: []string{"10.96.5.6"}: first value must match `clusterIP`',
  ]);
  assert.deepEqual(msgs(def.validate!(ready({ clusterIP: 'x', clusterIPs: ['x'] }), ctx)), [
    'spec.clusterIPs[0]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
  ]);
  assert.deepEqual(msgs(def.validate!(ready({ externalIPs: ['127.0.0.1'] }), ctx)), [
    'spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
  assert.deepEqual(msgs(def.validate!(ready({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } }), ctx)), [
    'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400',
  ]);
  assert.deepEqual(msgs(def.validate!(ready({ selector: { 'a b': 'c' } }), ctx)).length, 1);
  const en = svc({ type: 'ExternalName', externalName: '' });
  def.defaults!(en);
  assert.deepEqual(msgs(def.validate!(en, ctx)), ['spec.externalName: Required value']);
  const lb = ready({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80, nodePort: 30001 }] });
  assert.deepEqual(msgs(def.validate!(lb, ctx)), ['spec.healthCheckNodePort: Required value']);
  assert.deepEqual(msgs(def.validate!(ready({ externalTrafficPolicy: 'Local' }), ctx)), [
    'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
  ]);
});

test('update validation: clusterIPs may not change', () => {
  const old = ready();
  assert.deepEqual(msgs(def.validateUpdate!(ready({ clusterIP: '10.96.5.6', clusterIPs: ['10.96.5.6'] }), old, ctx)), [
    'spec.clusterIPs[0]: Invalid value: []string{"10.96.5.6"}: may not change once set',
  ]);
});

test('type change to ClusterIP drops node ports the user did not ask for', () => {
  const old = ready({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] });
  const upd = structuredClone(old);
  upd.spec!.type = 'ClusterIP';
  def.defaults!(upd);
  def.prepareForUpdate!(upd, old, ctx);
  assert.equal(upd.spec?.ports?.[0]?.nodePort, undefined);
  assert.equal(upd.spec?.externalTrafficPolicy, undefined);
  assert.deepEqual(msgs(def.validateUpdate!(upd, old, ctx)), []);
});

test('status strategy keeps spec and validates the load balancer status', () => {
  const old = ready({ type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30001 }] });
  const st = structuredClone(old) as O<Service>;
  (st as { spec?: Service['spec'] }).spec = { type: 'ClusterIP' };
  (st as { status?: Service['status'] }).status = { loadBalancer: { ingress: [{ ip: '203.0.113.9' }] } };
  def.status!.prepareForUpdate(st, old, ctx);
  assert.equal(st.spec?.type, 'LoadBalancer');
  assert.deepEqual(msgs(def.status!.validateUpdate!(st, old, ctx)), ['status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set']);
  const cip = ready();
  (cip as { status?: Service['status'] }).status = { loadBalancer: { ingress: [{ ip: '203.0.113.9', ipMode: 'VIP' }] } };
  assert.deepEqual(msgs(def.status!.validateUpdate!(cip, cip, ctx)), ["status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"]);
});

test('warnings for headless services', () => {
  assert.deepEqual(def.warningsOnCreate!(svc({ clusterIPs: ['None'], externalIPs: ['1.2.3.4'], sessionAffinity: 'ClientIP' }), ctx), [
    'spec.externalIPs is ignored for headless services',
    'spec.SessionAffinity is ignored for headless services',
  ]);
});

test('table rows', () => {
  const now = new Date('2024-01-01T01:00:00Z');
  assert.deepEqual(
    def.table!.columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Type:0', 'Cluster-IP:0', 'External-IP:0', 'Port(s):0', 'Age:0', 'Selector:1'],
  );
  assert.deepEqual(def.table!.cells(ready({ selector: { app: 'web', tier: 'fe' } }), now), ['web', 'ClusterIP', '10.96.5.5', '<none>', '80/TCP', '60m', 'app=web,tier=fe']);
  const np = ready({
    type: 'NodePort',
    ports: [
      { name: 'http', port: 80, nodePort: 30080 },
      { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 },
    ],
  });
  assert.deepEqual(def.table!.cells(np, now).slice(1, 5), ['NodePort', '10.96.5.5', '<none>', '80:30080/TCP,53:30053/UDP']);
  const lb = ready({ type: 'LoadBalancer', ports: [{ port: 443, nodePort: 31443 }] });
  assert.equal(def.table!.cells(lb, now)[3], '<pending>');
  (lb as { status?: Service['status'] }).status = { loadBalancer: { ingress: [{ ip: '203.0.113.9' }, { hostname: 'lb.example.com' }] } };
  assert.equal(def.table!.cells(lb, now)[3], '203.0.113.9,lb.example.com');
  const h = svc({ type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], ports: [] });
  assert.deepEqual(def.table!.cells(h, now).slice(2, 7), ['None', '<none>', '<none>', '60m', '<none>']);
  const en = svc({ type: 'ExternalName', externalName: 'db.example.com' });
  assert.deepEqual(def.table!.cells(en, now).slice(1, 4), ['ExternalName', '<none>', 'db.example.com']);
});

test('discovery data and field selectors', () => {
  assert.deepEqual(def.shortNames, ['svc']);
  assert.deepEqual(def.categories, ['all']);
  assert.deepEqual(def.fieldSelectorAttrs!(ready()), { 'spec.clusterIP': '10.96.5.5', 'spec.type': 'ClusterIP' });
});
