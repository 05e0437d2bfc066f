import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodSpec, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { KObject, Obj, ObjectLookup } from '../../../api/resource.js';
import { StatusError } from '../../../apimachinery/errors.js';
import type { AdmissionAttributes, Operation } from '../types.js';
import { serviceAccount, SA_MOUNT_PATH } from './service-account.js';

/** ServiceAccounts by name in namespace `ns`; `appearsAfter` lookups return undefined first (the default account not created yet). */
function lookupOf(accounts: ServiceAccount[], appearsAfter = 0): ObjectLookup & { calls: number } {
  const l = {
    calls: 0,
    async get(r: { resource: string }, ns: string, name: string): Promise<KObject | undefined> {
      assert.equal(r.resource, 'serviceaccounts');
      l.calls++;
      if (l.calls <= appearsAfter) return undefined;
      return accounts.find((a) => a.metadata?.name === name && ns === 'ns') as KObject | undefined;
    },
    list: async () => [],
  };
  return l;
}

const sa = (name: string, extra: Partial<ServiceAccount> = {}): ServiceAccount => ({ metadata: { name, namespace: 'ns', ...extra.metadata }, ...extra }) as ServiceAccount;

function attrs(spec: PodSpec, o: { op?: Operation; sub?: string; annotations?: Record<string, string> } = {}): AdmissionAttributes {
  return {
    operation: o.op ?? 'CREATE',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    subresource: o.sub ?? '',
    namespace: 'ns',
    name: 'p',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', annotations: o.annotations }, spec } as Obj,
    user: { username: 'u', groups: [] },
    dryRun: false,
    warnings: [],
  };
}

async function forbidden(p: Promise<void>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.code, 403);
    return e.status.message ?? '';
  }
  assert.fail('expected 403');
}

const plugin = serviceAccount({ retries: 3, retryDelayMs: 0 });

describe('ServiceAccount admission', () => {
  it('defaults to the default account and mounts kube-api-access-* in init and regular containers, as upstream', async () => {
    const a = attrs({ initContainers: [{ name: 'i' }], containers: [{ name: 'c' }, { name: 'own', volumeMounts: [{ name: 'x', mountPath: SA_MOUNT_PATH }] }] });
    await plugin.admit!(a, lookupOf([sa('default')]));
    const spec = a.object!.spec as PodSpec;
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.serviceAccount, 'default');
    assert.equal(spec.volumes?.length, 1);
    const v = spec.volumes![0]!;
    assert.match(v.name, /^kube-api-access-[a-z0-9]{5}$/);
    assert.deepEqual(v.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    const mount = { name: v.name, readOnly: true, mountPath: SA_MOUNT_PATH };
    assert.deepEqual(spec.initContainers![0]!.volumeMounts, [mount]);
    assert.deepEqual(spec.containers[0]!.volumeMounts, [mount]);
    assert.deepEqual(spec.containers[1]!.volumeMounts, [{ name: 'x', mountPath: SA_MOUNT_PATH }], 'a container with its own mount at the path keeps it');
    await plugin.validate!(a, lookupOf([sa('default')]));
  });

  it('reuses a volume named kube-api-access-*; adds none when every container has its own mount', async () => {
    const a = attrs({ containers: [{ name: 'c' }], volumes: [{ name: 'kube-api-access-mine', emptyDir: {} }] });
    await plugin.admit!(a, lookupOf([sa('default')]));
    const spec = a.object!.spec as PodSpec;
    assert.deepEqual(spec.volumes, [{ name: 'kube-api-access-mine', emptyDir: {} }]);
    assert.equal(spec.containers[0]!.volumeMounts![0]!.name, 'kube-api-access-mine');
    const b = attrs({ containers: [{ name: 'c', volumeMounts: [{ name: 'x', mountPath: SA_MOUNT_PATH }] }] });
    await plugin.admit!(b, lookupOf([sa('default')]));
    assert.equal((b.object!.spec as PodSpec).volumes, undefined);
  });

  it('automount: the pod’s setting wins over the account’s', async () => {
    const off = sa('robot', { automountServiceAccountToken: false });
    const a = attrs({ serviceAccountName: 'robot', containers: [{ name: 'c' }] });
    await plugin.admit!(a, lookupOf([off]));
    assert.equal((a.object!.spec as PodSpec).volumes, undefined);
    const b = attrs({ serviceAccountName: 'robot', automountServiceAccountToken: true, containers: [{ name: 'c' }] });
    await plugin.admit!(b, lookupOf([off]));
    assert.equal((b.object!.spec as PodSpec).volumes?.length, 1);
    const c = attrs({ automountServiceAccountToken: false, containers: [{ name: 'c' }] });
    await plugin.admit!(c, lookupOf([sa('default')]));
    assert.equal((c.object!.spec as PodSpec).volumes, undefined);
  });

  it('a missing account is Forbidden with upstream’s message; the default account is waited for', async () => {
    const msg = await forbidden(plugin.admit!(attrs({ serviceAccountName: 'ghost', containers: [{ name: 'c' }] }), lookupOf([])));
    assert.equal(msg, 'pods "p" is forbidden: error looking up service account ns/ghost: serviceaccount "ghost" not found');
    const late = lookupOf([sa('default')], 2);
    await plugin.admit!(attrs({ containers: [{ name: 'c' }] }), late);
    assert.equal(late.calls, 3);
    const never = lookupOf([sa('default')], 3);
    assert.equal(
      await forbidden(plugin.admit!(attrs({ containers: [{ name: 'c' }] }), never)),
      'pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found',
    );
    const named = lookupOf([sa('robot')], 1);
    await forbidden(plugin.admit!(attrs({ serviceAccountName: 'robot', containers: [{ name: 'c' }] }), named));
    assert.equal(named.calls, 1, 'other accounts are looked up once');
  });

  it('copies the account’s imagePullSecrets unless the pod has some', async () => {
    const robot = sa('robot', { imagePullSecrets: [{ name: 'regcred' }] });
    const a = attrs({ serviceAccountName: 'robot', containers: [{ name: 'c' }] });
    await plugin.admit!(a, lookupOf([robot]));
    assert.deepEqual((a.object!.spec as PodSpec).imagePullSecrets, [{ name: 'regcred' }]);
    const b = attrs({ serviceAccountName: 'robot', imagePullSecrets: [{ name: 'own' }], containers: [{ name: 'c' }] });
    await plugin.admit!(b, lookupOf([robot]));
    assert.deepEqual((b.object!.spec as PodSpec).imagePullSecrets, [{ name: 'own' }]);
  });

  it('mirror pods are left alone, and may not use accounts, secrets or token projections', async () => {
    const mirror = { annotations: { 'kubernetes.io/config.mirror': 'x' } };
    const ok = attrs({ containers: [{ name: 'c' }] }, mirror);
    await plugin.admit!(ok, lookupOf([]));
    await plugin.validate!(ok, lookupOf([]));
    assert.equal((ok.object!.spec as PodSpec).serviceAccountName, undefined);
    const cases: [PodSpec, string][] = [
      [{ serviceAccountName: 'default', containers: [{ name: 'c' }] }, 'a mirror pod may not reference service accounts'],
      [{ containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }, 'a mirror pod may not reference secrets'],
      [{ containers: [{ name: 'c' }], volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 's' } }] } }] }, 'a mirror pod may not reference secrets'],
      [
        { containers: [{ name: 'c' }], volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] },
        'a mirror pod may not use ServiceAccountToken volume projections',
      ],
    ];
    for (const [spec, want] of cases) assert.equal(await forbidden(plugin.validate!(attrs(spec, mirror), lookupOf([]))), `pods "p" is forbidden: ${want}`);
  });

  it('kubernetes.io/enforce-mountable-secrets: pods may only use the secrets the account lists', async () => {
    const strict = sa('strict', {
      metadata: { name: 'strict', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } },
      secrets: [{ name: 'allowed' }],
      imagePullSecrets: [{ name: 'pull' }],
    });
    const l = lookupOf([strict]);
    const v = (spec: Omit<PodSpec, 'serviceAccountName'>): Promise<void> => plugin.validate!(attrs({ serviceAccountName: 'strict', ...spec } as PodSpec), l);
    await v({
      containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'allowed', key: 'k' } } }] }],
      volumes: [{ name: 'v', secret: { secretName: 'allowed' } }],
      imagePullSecrets: [{ name: 'pull' }],
    });
    const not = 'is not allowed because service account strict does not reference that secret';
    const cases: [Omit<PodSpec, 'serviceAccountName'>, string][] = [
      [{ containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'other' } }] }, `volume with secret.secretName="other" ${not}`],
      [
        { initContainers: [{ name: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }], containers: [{ name: 'c' }] },
        `init container i with envVar E referencing secret.secretName="other" ${not}`,
      ],
      [{ containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'other' } }] }] }, `container c with envFrom referencing secret.secretName="other" ${not}`],
      [
        { containers: [{ name: 'c' }], imagePullSecrets: [{ name: 'pull' }, { name: 'other' }] },
        'imagePullSecrets[1].name="other" is not allowed because service account strict does not reference that imagePullSecret',
      ],
    ];
    for (const [spec, want] of cases) assert.equal(await forbidden(v(spec)), `pods "p" is forbidden: ${want}`);
    // not enforced without the annotation
    await plugin.validate!(
      attrs({ serviceAccountName: 'default', containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'other' } }] }),
      lookupOf([sa('default')]),
    );
    // ephemeral containers added later are checked on pods/ephemeralcontainers updates
    const eph = attrs(
      { serviceAccountName: 'strict', containers: [{ name: 'c' }], ephemeralContainers: [{ name: 'debug', envFrom: [{ secretRef: { name: 'other' } }] }] },
      { op: 'UPDATE', sub: 'ephemeralcontainers' },
    );
    assert.equal(await forbidden(plugin.validate!(eph, l)), `pods "p" is forbidden: ephemeral container debug with envFrom referencing secret.secretName="other" ${not}`);
    // and a plain pod update is not checked
    await plugin.validate!(attrs({ serviceAccountName: 'strict', containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'other' } }] }, { op: 'UPDATE' }), l);
  });

  it('ignores other resources and subresources', async () => {
    const a = attrs({ containers: [{ name: 'c' }] }, { sub: 'status' });
    await plugin.admit!(a, lookupOf([]));
    await plugin.validate!(a, lookupOf([]));
    assert.equal((a.object!.spec as PodSpec).serviceAccountName, undefined);
  });
});
