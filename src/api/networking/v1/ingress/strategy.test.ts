import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Ingress } from 'kubernetes-types/networking/v1.js';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { O } from '../../../core/v1/shared/types.js';
import type { StrategyContext } from '../../../resource.js';
import { formatIngressAddress, formatIngressHosts, ingressDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const ing = (spec: Ingress['spec'], annotations?: Record<string, string>): O<Ingress> =>
  ({ metadata: { name: 'i', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z', annotations }, spec }) as O<Ingress>;
const errs = (o: O<Ingress>): string[] => def.validate!(o, ctx).map(fieldErrorString);
const svc = (name: string, port: { number?: number; name?: string }) => ({ service: { name, port } });

test('valid ingress (kubectl create ingress shape)', () => {
  const o = ing({ rules: [{ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Exact', backend: svc('svc1', { number: 8080 }) }] } }] });
  assert.deepEqual(errs(o), []);
  assert.deepEqual(errs(ing({ defaultBackend: svc('svc1', { name: 'http' }) })), []);
  assert.deepEqual(
    errs(
      ing({
        rules: [
          { host: '*.foo.com', http: { paths: [{ pathType: 'ImplementationSpecific', backend: { resource: { kind: 'Bucket', name: 'b', apiGroup: 'k8s.example.com' } } }] } },
        ],
      }),
    ),
    [],
  );
});

test('validation messages as upstream', () => {
  assert.deepEqual(errs(ing({})), ['spec: Invalid value: null: either `defaultBackend` or `rules` must be specified']);
  const p = (path: string, pathType: string | undefined, backend: object = svc('svc1', { number: 80 })) =>
    ing({ rules: [{ http: { paths: [{ path, pathType, backend } as never] } }] });
  assert.deepEqual(errs(p('/a', undefined)), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']);
  assert.deepEqual(errs(p('/a', 'Regex')), ['spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"']);
  assert.deepEqual(errs(p('a', 'Prefix')), ['spec.rules[0].http.paths[0].path: Invalid value: "a": must be an absolute path']);
  assert.deepEqual(errs(p('/a//b', 'Prefix')), ['spec.rules[0].http.paths[0].path: Invalid value: "/a//b": must not contain \'//\'']);
  assert.deepEqual(errs(p('/a/..', 'Exact')), ['spec.rules[0].http.paths[0].path: Invalid value: "/a/..": cannot end with \'/..\'']);
  assert.deepEqual(errs(p('/a', 'Exact', {})), ['spec.rules[0].http.paths[0].backend: Invalid value: "": resource or service backend is required']);
  assert.deepEqual(errs(p('/a', 'Exact', svc('svc1', {}))), ['spec.rules[0].http.paths[0].backend: Required value: port name or number is required']);
  assert.deepEqual(errs(p('/a', 'Exact', svc('svc1', { name: 'http', number: 80 }))), [
    'spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number',
  ]);
  assert.deepEqual(errs(p('/a', 'Exact', svc('svc1', { number: 70000 }))), [
    'spec.rules[0].http.paths[0].backend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive',
  ]);
  assert.deepEqual(errs(p('/a', 'Exact', { ...svc('s', { number: 1 }), resource: { kind: 'K', name: 'n' } })), [
    'spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends',
  ]);
  assert.deepEqual(errs(ing({ rules: [{ host: '1.2.3.4' }] })), ['spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address']);
  assert.match(errs(ing({ rules: [{ host: 'a.*.com' }] }))[0]!, /^spec\.rules\[0\]\.host: Invalid value: "a\.\*\.com": a wildcard DNS-1123 subdomain must start with/);
  assert.deepEqual(errs(ing({ rules: [{ host: 'a.com', http: { paths: [] } }] })), ['spec.rules[0].http.paths: Required value']);
  assert.deepEqual(errs(ing({ ingressClassName: 'nginx', defaultBackend: svc('s', { number: 1 }) }, { 'kubernetes.io/ingress.class': 'nginx' })), [
    'annotations.kubernetes.io/ingress.class: Invalid value: "nginx": can not be set when the class field is also set',
  ]);
});

test('printer and status', () => {
  const o = ing({ ingressClassName: 'nginx', tls: [{ hosts: ['a.com'] }], rules: [{ host: 'a.com' }, { host: 'b.com' }] });
  (o as { status?: unknown }).status = { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }] } };
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age'],
  );
  assert.deepEqual(def.table!.cells(o, new Date('2024-01-01T00:00:30Z')), ['i', 'nginx', 'a.com,b.com', '10.0.0.2,lb.e...', '80, 443', '30s']);
  assert.equal(formatIngressHosts([]), '*');
  assert.equal(formatIngressHosts([{ host: 'a' }, { host: 'b' }, { host: 'c' }, { host: 'd' }, {}]), 'a,b,c + 2 more...');
  assert.equal(formatIngressAddress(undefined), '');
  def.prepareForCreate!(o, ctx);
  assert.deepEqual(o.status, {});
  assert.equal(o.metadata.generation, 1);
  const st = ing({});
  (st as { status?: unknown }).status = { loadBalancer: { ingress: [{ ip: 'nope' }] } };
  assert.match(def.status!.validateUpdate!(st, st, ctx).map(fieldErrorString)[0]!, /^status\.loadBalancer\.ingress\[0\]\.ip: Invalid value: "nope": must be a valid IP address/);
});
