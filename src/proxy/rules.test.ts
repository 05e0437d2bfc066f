import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { base32, endpointChain, serviceChains } from './names.js';
import { endpointsFor, servicePorts } from './model.js';
import { buildRules, probability, type ServicePortState } from './rules.js';

const svc = (name: string, spec: Service['spec'], status?: Service['status']): Service => ({ metadata: { name, namespace: 'ns1' }, spec, status });
const slice = (
  svcName: string,
  eps: { ip: string; node?: string; ready?: boolean; serving?: boolean; terminating?: boolean }[],
  port = 8080,
  portName?: string,
): EndpointSlice => ({
  metadata: { name: `${svcName}-abc`, namespace: 'ns1', labels: { 'kubernetes.io/service-name': svcName } },
  addressType: 'IPv4',
  ports: [{ name: portName, port, protocol: 'TCP' }],
  endpoints: eps.map((e) => ({
    addresses: [e.ip],
    nodeName: e.node,
    conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
  })),
});
function state(s: Service, slices: EndpointSlice[], node = 'node1'): ServicePortState[] {
  return servicePorts(s).map((info) => ({ info, endpoints: endpointsFor(info, slices, node) }));
}
const lines = (text: string, prefix: string) => text.split('\n').filter((l) => l.startsWith(prefix));

describe('kube-proxy chain names', () => {
  it('hash as upstream: SHA-256 → base32 → 16 characters', () => {
    assert.equal(serviceChains('default/kubernetes:https', 'tcp').svc, 'KUBE-SVC-NPX46M4PTMTKRN6Y');
    assert.equal(serviceChains('default/kubernetes:https', 'tcp').ext, 'KUBE-EXT-NPX46M4PTMTKRN6Y');
    assert.match(endpointChain('ns1/svc1:p80', 'tcp', '10.180.0.1:80'), /^KUBE-SEP-[A-Z2-7]{16}$/);
    assert.equal(base32(Buffer.from('foobar')), 'MZXW6YTBOI');
  });
  it('probabilities are 1/n with ten decimals', () => {
    assert.equal(probability(3), '0.3333333333');
    assert.equal(probability(2), '0.5000000000');
  });
});

describe('buildRules (iptables-restore input)', () => {
  it('ClusterIP: capture in KUBE-SERVICES, random spread over KUBE-SEP chains, masquerade of off-cluster sources and hairpin', () => {
    const s = svc('web', { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
    const st = state(s, [slice('web', [{ ip: '10.42.0.5' }, { ip: '10.42.0.6' }, { ip: '10.42.1.7' }], 8080, 'http')]);
    const r = buildRules(st, { clusterCIDR: '10.42.0.0/16' });
    const { svc: chain } = serviceChains('ns1/web:http', 'tcp');
    assert.ok(r.text.startsWith('*filter\n:KUBE-SERVICES - [0:0]\n'));
    assert.ok(r.text.includes(`\n*nat\n:KUBE-SERVICES - [0:0]\n:KUBE-NODEPORTS - [0:0]\n:KUBE-POSTROUTING - [0:0]\n:KUBE-MARK-MASQ - [0:0]\n`));
    assert.deepEqual(lines(r.text, '-A KUBE-SERVICES -m comment --comment "ns1/web:http cluster IP"'), [
      `-A KUBE-SERVICES -m comment --comment "ns1/web:http cluster IP" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j ${chain}`,
    ]);
    const sep = (ip: string) => endpointChain('ns1/web:http', 'tcp', `${ip}:8080`);
    assert.deepEqual(lines(r.text, `-A ${chain} `), [
      `-A ${chain} -m comment --comment "ns1/web:http cluster IP" -m tcp -p tcp -d 10.96.0.10 --dport 80 ! -s 10.42.0.0/16 -j KUBE-MARK-MASQ`,
      `-A ${chain} -m comment --comment "ns1/web:http -> 10.42.0.5:8080" -m statistic --mode random --probability 0.3333333333 -j ${sep('10.42.0.5')}`,
      `-A ${chain} -m comment --comment "ns1/web:http -> 10.42.0.6:8080" -m statistic --mode random --probability 0.5000000000 -j ${sep('10.42.0.6')}`,
      `-A ${chain} -m comment --comment "ns1/web:http -> 10.42.1.7:8080" -j ${sep('10.42.1.7')}`,
    ]);
    assert.deepEqual(lines(r.text, `-A ${sep('10.42.0.5')} `), [
      `-A ${sep('10.42.0.5')} -m comment --comment ns1/web:http -s 10.42.0.5 -j KUBE-MARK-MASQ`,
      `-A ${sep('10.42.0.5')} -m comment --comment ns1/web:http -m tcp -p tcp -j DNAT --to-destination 10.42.0.5:8080`,
    ]);
    assert.match(
      r.text,
      /^-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS$/m,
    );
    assert.match(r.text, /^-A KUBE-POSTROUTING -m mark ! --mark 0x4000\/0x4000 -j RETURN\n-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000\n/m);
    assert.equal(r.endpointChains, 3);
  });

  it('headless and ExternalName Services are not proxied', () => {
    assert.deepEqual(servicePorts(svc('h', { clusterIP: 'None', ports: [{ port: 80 }] })), []);
    assert.deepEqual(servicePorts(svc('e', { type: 'ExternalName', externalName: 'example.com' })), []);
  });

  it('no endpoints: the filter table REJECTs the ClusterIP and the NodePort; no nat chains', () => {
    const s = svc('np', { type: 'NodePort', clusterIP: '10.96.0.11', ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }] });
    const r = buildRules(state(s, []));
    assert.ok(r.text.includes('-A KUBE-SERVICES -m comment --comment "ns1/np has no endpoints" -m tcp -p tcp -d 10.96.0.11 --dport 80 -j REJECT'));
    assert.ok(r.text.includes('-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/np has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j REJECT'));
    assert.ok(!r.text.includes(serviceChains('ns1/np', 'tcp').svc));
  });

  it('NodePort and LoadBalancer go through KUBE-EXT (masquerade, then KUBE-SVC)', () => {
    const s = svc(
      'lb',
      { type: 'LoadBalancer', clusterIP: '10.96.0.12', ports: [{ port: 80, protocol: 'TCP', nodePort: 30081 }] },
      { loadBalancer: { ingress: [{ ip: '192.0.2.10', ipMode: 'VIP' }] } },
    );
    const c = serviceChains('ns1/lb', 'tcp');
    const r = buildRules(state(s, [slice('lb', [{ ip: '10.42.0.5' }])]));
    assert.ok(r.text.includes(`-A KUBE-NODEPORTS -m comment --comment ns1/lb -m tcp -p tcp --dport 30081 -j ${c.ext}`));
    assert.ok(r.text.includes(`-A KUBE-SERVICES -m comment --comment "ns1/lb loadbalancer IP" -m tcp -p tcp -d 192.0.2.10 --dport 80 -j ${c.ext}`));
    assert.deepEqual(lines(r.text, `-A ${c.ext} `), [
      `-A ${c.ext} -m comment --comment "masquerade traffic for ns1/lb external destinations" -j KUBE-MARK-MASQ`,
      `-A ${c.ext} -j ${c.svc}`,
    ]);
  });

  it('externalTrafficPolicy Local: KUBE-EXT short-circuits pods and the node, the rest goes to KUBE-SVL with local endpoints only', () => {
    const s = svc('loc', { type: 'NodePort', clusterIP: '10.96.0.13', externalTrafficPolicy: 'Local', ports: [{ port: 80, protocol: 'TCP', nodePort: 30082 }] });
    const c = serviceChains('ns1/loc', 'tcp');
    const st = state(s, [
      slice('loc', [
        { ip: '10.42.0.5', node: 'node1' },
        { ip: '10.42.1.5', node: 'node2' },
      ]),
    ]);
    const r = buildRules(st, { clusterCIDR: '10.42.0.0/16' });
    assert.deepEqual(lines(r.text, `-A ${c.ext} `), [
      `-A ${c.ext} -m comment --comment "pod traffic for ns1/loc external destinations" -s 10.42.0.0/16 -j ${c.svc}`,
      `-A ${c.ext} -m comment --comment "masquerade LOCAL traffic for ns1/loc external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      `-A ${c.ext} -m comment --comment "route LOCAL traffic for ns1/loc external destinations" -m addrtype --src-type LOCAL -j ${c.svc}`,
      `-A ${c.ext} -j ${c.svl}`,
    ]);
    assert.deepEqual(lines(r.text, `-A ${c.svl} `), [`-A ${c.svl} -m comment --comment "ns1/loc -> 10.42.0.5:8080" -j ${endpointChain('ns1/loc', 'tcp', '10.42.0.5:8080')}`]);
    assert.equal(lines(r.text, `-A ${c.svc} `).filter((l) => l.includes('KUBE-SEP-')).length, 2);
    // on a node without local endpoints: external traffic that is not short-circuited is dropped
    const r2 = buildRules(state(s, [slice('loc', [{ ip: '10.42.1.5', node: 'node2' }])]));
    assert.ok(r2.text.includes('-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/loc has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30082 -j DROP'));
    assert.deepEqual(r2.noLocalEndpoints, { internal: 0, external: 1 });
  });

  it('internalTrafficPolicy Local: the ClusterIP goes to KUBE-SVL, or is DROPped without local endpoints', () => {
    const s = svc('itp', { clusterIP: '10.96.0.14', internalTrafficPolicy: 'Local', ports: [{ port: 80, protocol: 'TCP' }] });
    const c = serviceChains('ns1/itp', 'tcp');
    const r = buildRules(
      state(s, [
        slice('itp', [
          { ip: '10.42.0.5', node: 'node1' },
          { ip: '10.42.1.5', node: 'node2' },
        ]),
      ]),
    );
    assert.ok(r.text.includes(`-d 10.96.0.14 --dport 80 -j ${c.svl}`));
    assert.ok(!r.text.includes(`:${c.svc} `));
    const r2 = buildRules(state(s, [slice('itp', [{ ip: '10.42.1.5', node: 'node2' }])]));
    assert.ok(r2.text.includes('-A KUBE-SERVICES -m comment --comment "ns1/itp has no local endpoints" -m tcp -p tcp -d 10.96.0.14 --dport 80 -j DROP'));
  });

  it('sessionAffinity ClientIP: recent-module checks first, endpoints record the client', () => {
    const s = svc('aff', {
      clusterIP: '10.96.0.15',
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
      ports: [{ port: 80, protocol: 'TCP' }],
    });
    const c = serviceChains('ns1/aff', 'tcp');
    const sep = endpointChain('ns1/aff', 'tcp', '10.42.0.5:8080');
    const r = buildRules(state(s, [slice('aff', [{ ip: '10.42.0.5' }, { ip: '10.42.0.6' }])]));
    assert.equal(lines(r.text, `-A ${c.svc} `)[0], `-A ${c.svc} -m comment --comment "ns1/aff -> 10.42.0.5:8080" -m recent --name ${sep} --rcheck --seconds 60 --reap -j ${sep}`);
    assert.ok(r.text.includes(`-A ${sep} -m comment --comment ns1/aff -m recent --name ${sep} --set -m tcp -p tcp -j DNAT --to-destination 10.42.0.5:8080`));
    const def = servicePorts(svc('d', { clusterIP: '10.96.0.16', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] }))[0]!;
    assert.equal(def.stickySeconds, 10800);
  });

  it('terminating endpoints are used only when no endpoint is ready, and only if still serving', () => {
    const s = svc('term', { clusterIP: '10.96.0.17', ports: [{ port: 80, protocol: 'TCP' }] });
    const c = serviceChains('ns1/term', 'tcp');
    const both = buildRules(state(s, [slice('term', [{ ip: '10.42.0.5' }, { ip: '10.42.0.6', ready: false, serving: true, terminating: true }])]));
    assert.equal(lines(both.text, `-A ${c.svc} `).filter((l) => l.includes('KUBE-SEP-')).length, 1);
    const onlyTerm = buildRules(
      state(s, [
        slice('term', [
          { ip: '10.42.0.6', ready: false, serving: true, terminating: true },
          { ip: '10.42.0.7', ready: false, serving: false, terminating: true },
        ]),
      ]),
    );
    assert.deepEqual(
      lines(onlyTerm.text, `-A ${c.svc} `).filter((l) => l.includes('KUBE-SEP-')),
      [`-A ${c.svc} -m comment --comment "ns1/term -> 10.42.0.6:8080" -j ${endpointChain('ns1/term', 'tcp', '10.42.0.6:8080')}`],
    );
    const none = buildRules(state(s, [slice('term', [{ ip: '10.42.0.7', ready: false, serving: false, terminating: true }])]));
    assert.ok(none.text.includes('"ns1/term has no endpoints"'));
  });

  it('stale service chains are flushed and deleted; other chains are left alone', () => {
    const r = buildRules([], { existingNatChains: ['KUBE-SVC-AAAAAAAAAAAAAAAA', 'KUBE-SEP-BBBBBBBBBBBBBBBB', 'DOCKER', 'KUBE-SERVICES'] });
    assert.ok(r.text.includes(':KUBE-SVC-AAAAAAAAAAAAAAAA - [0:0]\n'));
    assert.ok(r.text.includes('-X KUBE-SVC-AAAAAAAAAAAAAAAA\n-X KUBE-SEP-BBBBBBBBBBBBBBBB\n'));
    assert.ok(!r.text.includes('DOCKER'));
    assert.equal(r.deletedChains, 2);
  });

  it('--nodeport-addresses: one KUBE-NODEPORTS jump per matching node address', () => {
    const r = buildRules([], { nodePortIPs: ['192.0.2.1', '127.0.0.1'], localhostNodePorts: false });
    assert.deepEqual(lines(r.text, '-A KUBE-SERVICES '), [
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.0.2.1 -j KUBE-NODEPORTS',
    ]);
  });

  it('above 1,000 endpoints the per-endpoint comments are left out', () => {
    const eps = Array.from({ length: 1001 }, (_, i) => ({ ip: `10.42.${i >> 8}.${i & 255}` }));
    const s = svc('big', { clusterIP: '10.96.0.18', ports: [{ port: 80, protocol: 'TCP' }] });
    const r = buildRules(state(s, [slice('big', eps)]));
    const c = serviceChains('ns1/big', 'tcp');
    assert.ok(
      lines(r.text, `-A ${c.svc} `)
        .slice(0, 3)
        .every((l) => !l.includes('--comment "ns1/big ->')),
    );
    assert.equal(r.endpointChains, 1001);
  });
});
