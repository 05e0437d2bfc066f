import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { GroupVersionResource, KObject, Obj, ObjectLookup } from '../../../api/resource.js';
import { StatusError } from '../../../apimachinery/errors.js';
import type { AdmissionAttributes } from '../types.js';
import { evaluatePod, violationText } from './pod-security-checks.js';
import { podSecurity } from './pod-security.js';

const restricted = (spec: Partial<PodSpec>) => evaluatePod('restricted', {}, { containers: [{ name: 'c' }], ...spec } as PodSpec);
const compliantContainer = { name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } };
const compliantPod: PodSpec = { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers: [compliantContainer] };

describe('Pod Security Standards checks', () => {
  it('restricted: the four defaults of a bare container, in check-ID order', () => {
    assert.deepEqual(
      restricted({}).map((r) => r.reason),
      ['allowPrivilegeEscalation != false', 'unrestricted capabilities', 'runAsNonRoot != true', 'seccompProfile'],
    );
    assert.deepEqual(evaluatePod('restricted', {}, compliantPod), []);
  });

  it('messages name containers, pluralise, and distinguish explicit from implicit', () => {
    const two = evaluatePod('restricted', {}, { containers: [{ name: 'a' }, { name: 'b' }] });
    assert.equal(two[0]!.detail, 'containers "a", "b" must set securityContext.allowPrivilegeEscalation=false');
    const explicit = evaluatePod('restricted', {}, { ...compliantPod, securityContext: { runAsNonRoot: false, seccompProfile: { type: 'Unconfined' } } });
    assert.equal(
      violationText(explicit),
      'runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false), seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
    );
    const caps = evaluatePod(
      'restricted',
      {},
      {
        ...compliantPod,
        containers: [
          { ...compliantContainer, securityContext: { ...compliantContainer.securityContext, capabilities: { drop: ['ALL'], add: ['SYS_ADMIN', 'NET_BIND_SERVICE'] } } },
        ],
      },
    );
    assert.equal(violationText(caps), 'unrestricted capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)');
    const vols = evaluatePod(
      'restricted',
      {},
      {
        ...compliantPod,
        volumes: [
          { name: 'h', hostPath: { path: '/' } },
          { name: 'e', emptyDir: {} },
        ],
      },
    );
    assert.equal(violationText(vols), 'restricted volume types (volumes ["h"] have restricted types)');
  });

  it('baseline: privileged, host namespaces, ports, hostPath, capabilities, sysctls', () => {
    const v = evaluatePod(
      'baseline',
      {},
      {
        hostNetwork: true,
        hostIPC: true,
        securityContext: {
          sysctls: [
            { name: 'kernel.msgmax', value: '1' },
            { name: 'net.ipv4.tcp_syncookies', value: '1' },
          ],
        },
        volumes: [
          { name: 'a', hostPath: { path: '/a' } },
          { name: 'b', hostPath: { path: '/b' } },
        ],
        containers: [
          {
            name: 'c',
            ports: [
              { containerPort: 1, hostPort: 80 },
              { containerPort: 2, hostPort: 443 },
            ],
            securityContext: { privileged: true, capabilities: { add: ['NET_RAW', 'CHOWN'] } },
          },
        ],
      },
    );
    assert.equal(
      violationText(v),
      'non-default capabilities (container "c" must not include "NET_RAW" in securityContext.capabilities.add), host namespaces (hostNetwork=true, hostIPC=true), hostPath volumes (volumes "a", "b"), hostPort (container "c" uses hostPorts 80, 443), privileged (container "c" must not set securityContext.privileged=true), forbidden sysctls (kernel.msgmax)',
    );
    assert.deepEqual(evaluatePod('baseline', {}, { containers: [{ name: 'plain' }] }), []);
    assert.deepEqual(evaluatePod('privileged', {}, { hostPID: true, containers: [{ name: 'x' }] }), []);
  });
});

describe('PodSecurity admission', () => {
  const namespaces: Record<string, Record<string, string>> = {
    strict: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.30' },
    warn: { 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/audit': 'restricted' },
  };
  const lookup: ObjectLookup = {
    async get(r: GroupVersionResource, _ns: string, name: string) {
      return r.resource === 'namespaces' && namespaces[name] ? ({ metadata: { name, labels: namespaces[name] } } as KObject) : undefined;
    },
    async list() {
      return [];
    },
  };
  const attrs = (ns: string, spec: PodSpec, resource = 'pods', group = ''): AdmissionAttributes => ({
    operation: 'CREATE',
    resource: { group, version: 'v1', resource },
    kind: { group, version: 'v1', kind: resource === 'pods' ? 'Pod' : 'Deployment' },
    subresource: '',
    namespace: ns,
    name: 'p',
    object: (resource === 'pods' ? { metadata: { name: 'p' }, spec } : { metadata: { name: 'p' }, spec: { template: { spec } } }) as Obj,
    user: { username: 'u', groups: [] },
    dryRun: false,
    warnings: [],
  });
  const plugin = podSecurity();

  it('enforce rejects with the versioned policy in the message', async () => {
    await assert.rejects(plugin.validate!(attrs('strict', { containers: [{ name: 'c' }] }), lookup), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 403);
      assert.match(e.message, /^pods "p" is forbidden: violates PodSecurity "restricted:v1.30": allowPrivilegeEscalation != false/);
      return true;
    });
    await plugin.validate!(attrs('strict', compliantPod), lookup);
  });

  it('warn adds a warning, workloads are only warned about, unlabelled namespaces are privileged', async () => {
    const a = attrs('warn', { hostPID: true, containers: [{ name: 'c' }] });
    await plugin.validate!(a, lookup);
    assert.deepEqual(a.warnings, ['would violate PodSecurity "baseline:latest": host namespaces (hostPID=true)']);
    const d = attrs('strict', { containers: [{ name: 'c' }] }, 'deployments', 'apps');
    await plugin.validate!(d, lookup);
    assert.deepEqual(d.warnings, []);
    const free = attrs('elsewhere', { hostPID: true, containers: [{ name: 'c', securityContext: { privileged: true } }] });
    await plugin.validate!(free, lookup);
    assert.deepEqual(free.warnings, []);
  });
});

describe('PodSecurity namespace labels', () => {
  it('refuses unparsable levels and versions with 422', async () => {
    const plugin = podSecurity();
    const lookup: ObjectLookup = { get: async () => undefined, list: async () => [] };
    const ns = (labels: Record<string, string>): AdmissionAttributes => ({
      operation: 'CREATE',
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      subresource: '',
      namespace: '',
      name: 'x',
      object: { metadata: { name: 'x', labels } } as Obj,
      user: { username: 'u', groups: [] },
      dryRun: false,
      warnings: [],
    });
    await assert.rejects(plugin.validate!(ns({ 'pod-security.kubernetes.io/enforce': 'strict' }), lookup), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 422);
      assert.equal(e.message, 'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
      return true;
    });
    await plugin.validate!(ns({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.32' }), lookup);
  });
});
