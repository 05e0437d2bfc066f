/**
 * NetworkPolicy semantics (kubernetes.io/docs/concepts/services-networking/network-policies/)
 * as PolicyView computes them, and the iptables chains rendered from them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { PolicyView, policyTypes, type Endpoint } from './policy.js';
import { chainPrefix, renderRules } from './iptables-rules.js';

const ep = (namespace: string, name: string, ip: string, labels: Record<string, string> = {}, ports: Endpoint['ports'] = []): Endpoint => ({ namespace, name, ip, labels, ports });
const web = ep('prod', 'web', '10.42.0.10', { app: 'web' }, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
const client = ep('prod', 'client', '10.42.0.11', { access: 'true' });
const other = ep('prod', 'other', '10.42.0.12', { app: 'other' });
const devPod = ep('dev', 'tool', '10.42.1.5', { access: 'true' }, [{ name: 'http', port: 9090, protocol: 'TCP' }]);
const view = new PolicyView(
  [web, client, other, devPod],
  [
    { name: 'prod', labels: { 'kubernetes.io/metadata.name': 'prod', team: 'a' } },
    { name: 'dev', labels: { 'kubernetes.io/metadata.name': 'dev', team: 'b' } },
  ],
);
const np = (name: string, spec: NetworkPolicy['spec'], ns = 'prod'): NetworkPolicy => ({ metadata: { name, namespace: ns }, spec });

test('policyTypes default: Ingress, plus Egress when egress rules exist', () => {
  assert.deepEqual(policyTypes(np('a', { podSelector: {} })), ['Ingress']);
  assert.deepEqual(policyTypes(np('a', { podSelector: {}, egress: [{}] })), ['Ingress', 'Egress']);
  assert.deepEqual(policyTypes(np('a', { podSelector: {}, policyTypes: ['Egress'] })), ['Egress']);
});

test('default deny-all ingress: every pod of the namespace isolated for ingress with nothing allowed; other namespaces untouched', () => {
  const f = view.filters([web, client, devPod], [np('default-deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] })]);
  assert.deepEqual(
    f.map((x) => [x.pod.name, x.ingress, x.egress]),
    [
      ['web', [], undefined],
      ['client', [], undefined],
    ],
  );
});

test('podSelector peers with a port: exactly the labelled pods of the policy namespace on that port', () => {
  const f = view.filters(
    [web],
    [
      np('allow', {
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { access: 'true' } } }], ports: [{ protocol: 'TCP', port: 80 }] }],
      }),
    ],
  );
  assert.deepEqual(f[0]!.ingress, [{ cidr: '10.42.0.11/32', protocol: 'TCP', port: 80, policy: 'prod/allow' }]);
});

test('namespaceSelector alone, both selectors in one peer, and in two peers', () => {
  const nsOnly = view.filters([web], [np('n', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'b' } } }] }] })]);
  assert.deepEqual(
    nsOnly[0]!.ingress!.map((m) => m.cidr),
    ['10.42.1.5/32'],
  );
  const both = view.filters([web], [np('b', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { access: 'true' } } }] }] })]);
  assert.deepEqual(
    both[0]!.ingress!.map((m) => m.cidr),
    ['10.42.0.11/32', '10.42.1.5/32'],
  );
  const either = view.filters(
    [web],
    [np('e', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'b' } } }, { podSelector: { matchLabels: { app: 'other' } } }] }] })],
  );
  assert.deepEqual(
    either[0]!.ingress!.map((m) => m.cidr),
    ['10.42.1.5/32', '10.42.0.12/32'],
    'peers in their order',
  );
  const byName = view.filters(
    [web],
    [np('m', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['dev'] }] } }] }] })],
  );
  assert.deepEqual(
    byName[0]!.ingress!.map((m) => m.cidr),
    ['10.42.1.5/32'],
  );
});

test('ipBlock with except, named ports (the destination pod’s), endPort ranges, UDP, empty from = any address', () => {
  const f = view.filters(
    [web],
    [
      np('p', {
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [
          { from: [{ ipBlock: { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] } }], ports: [{ port: 'http' }, { port: 'nope' }] },
          { ports: [{ protocol: 'UDP', port: 5000, endPort: 5010 }] },
        ],
      }),
    ],
  );
  assert.deepEqual(f[0]!.ingress, [
    { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'], protocol: 'TCP', port: 8080, policy: 'prod/p' },
    { protocol: 'UDP', port: 5000, endPort: 5010, policy: 'prod/p' },
  ]);
  // egress: a named port is each peer's own
  const e = view.filters(
    [client],
    [np('eg', { podSelector: { matchLabels: { access: 'true' } }, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: {} }], ports: [{ port: 'http' }] }] })],
  );
  assert.deepEqual(e[0]!.egress, [
    { cidr: '10.42.0.10/32', protocol: 'TCP', port: 8080, policy: 'prod/eg' },
    { cidr: '10.42.1.5/32', protocol: 'TCP', port: 9090, policy: 'prod/eg' },
  ]);
  assert.equal(e[0]!.ingress, undefined);
});

test('several policies: isolation in the union of their types, allowed flows the union of their rules', () => {
  const f = view.filters(
    [web],
    [
      np('deny-all', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
      np('allow-dns', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }] }),
    ],
  );
  assert.deepEqual(f[0]!.ingress, []);
  assert.deepEqual(f[0]!.egress, [{ protocol: 'UDP', port: 53, policy: 'prod/allow-dns' }]);
});

test('rendered chains: conntrack first, egress then ingress jumps, mark/drop per pod, except sub-chain, names within 28 characters', () => {
  const prefix = chainPrefix('node-a/10.42.0.0/24');
  const f = view.filters(
    [web],
    [
      np('p', {
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.42.0.12/32'] } }], ports: [{ port: 80 }] }],
      }),
    ],
  );
  const { chains, rules } = renderRules(prefix, f);
  assert.ok(
    chains.every((c) => c.startsWith(prefix) && c.length <= 28),
    chains.join(' '),
  );
  assert.equal(rules[0], `-A ${prefix}TOP -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN`);
  const [eg, ing, sub] = chains.slice(1);
  assert.match(rules[1]!, new RegExp(`^-A ${prefix}TOP -s 10\\.42\\.0\\.10/32 .* -j ${eg}$`));
  assert.match(rules[2]!, new RegExp(`^-A ${prefix}TOP -d 10\\.42\\.0\\.10/32 .* -j ${ing}$`));
  assert.deepEqual(
    rules.filter((r) => r.startsWith(`-A ${eg} `)),
    [`-A ${eg} -j MARK --set-xmark 0x0/0x20000`, `-A ${eg} -m mark ! --mark 0x20000/0x20000 -m comment --comment "default deny egress of prod/web" -j DROP`],
  );
  assert.deepEqual(
    rules.filter((r) => r.startsWith(`-A ${ing} `)),
    [
      `-A ${ing} -j MARK --set-xmark 0x0/0x10000`,
      `-A ${ing} -s 10.0.0.0/8 -p tcp -m tcp --dport 80 -m comment --comment "prod/p" -j ${sub}`,
      `-A ${ing} -m mark ! --mark 0x10000/0x10000 -m comment --comment "default deny ingress of prod/web" -j DROP`,
    ],
  );
  assert.deepEqual(
    rules.filter((r) => r.startsWith(`-A ${sub} `)),
    [`-A ${sub} -s 10.42.0.12/32 -j RETURN`, `-A ${sub} -j MARK --set-xmark 0x10000/0x10000`],
  );
  assert.deepEqual(renderRules(prefix, f), { chains, rules }, 'deterministic');
});

test('one flow: egress of the sender and ingress of the receiver must both allow it; ipBlock except; port ranges', async () => {
  const { flowAllowed, inCIDR } = await import('./policy.js');
  assert.ok(inCIDR('10.42.0.7', '10.42.0.0/24') && !inCIDR('10.42.1.7', '10.42.0.0/24') && inCIDR('1.2.3.4', '0.0.0.0/0'));
  const [dst] = view.filters(
    [web],
    [np('in', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.42.0.0/16', except: ['10.42.0.12/32'] } }], ports: [{ port: 8000, endPort: 9000 }] }] })],
  );
  assert.equal(flowAllowed(undefined, dst, '10.42.0.11', '10.42.0.10', 8080, 'TCP'), true);
  assert.equal(flowAllowed(undefined, dst, '10.42.0.12', '10.42.0.10', 8080, 'TCP'), false, 'except');
  assert.equal(flowAllowed(undefined, dst, '10.42.0.11', '10.42.0.10', 80, 'TCP'), false, 'port outside the range');
  assert.equal(flowAllowed(undefined, dst, '10.42.0.11', '10.42.0.10', 8080, 'UDP'), false, 'protocol');
  const [src] = view.filters([client], [np('out', { podSelector: {}, policyTypes: ['Egress'] })]);
  assert.equal(flowAllowed(src, undefined, '10.42.0.11', '10.42.0.10', 8080, 'TCP'), false, 'egress deny');
  assert.equal(flowAllowed(undefined, undefined, '10.42.0.11', '10.42.0.10', 1, 'TCP'), true, 'no isolation');
});
