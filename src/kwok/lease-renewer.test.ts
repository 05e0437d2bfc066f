import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from '../api/resource.js';
import { renewedLease, storeLeaseRenewer } from './lease-renewer.js';

const lease = (): Obj =>
  ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: 'kwok-node-0',
      namespace: 'kube-node-lease',
      resourceVersion: '7',
      managedFields: [
        {
          manager: 'kwok',
          operation: 'Update',
          apiVersion: 'coordination.k8s.io/v1',
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:holderIdentity': {}, 'f:renewTime': {} } },
        },
        {
          manager: 'kubectl-label',
          operation: 'Update',
          apiVersion: 'coordination.k8s.io/v1',
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': {} } },
        },
      ],
    },
    spec: { holderIdentity: 'someone', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z' },
  }) as Obj;

describe('kwok: lease renewals through the store', () => {
  it("moves renewTime, keeps the kubelet's holder and duration, stamps only the renewing manager's entry", () => {
    const l = renewedLease(lease(), 'kwok-node-0', '2026-01-01T00:01:00.123456Z', new Date('2026-01-01T00:01:00.123Z'), 40);
    assert.deepEqual(l.spec, { holderIdentity: 'kwok-node-0', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:01:00.123456Z' });
    assert.deepEqual(
      l.metadata.managedFields?.map((m) => [m.manager, m.time]),
      [
        ['kwok', '2026-01-01T00:01:00Z'],
        ['kubectl-label', '2026-01-01T00:00:00Z'],
      ],
    );
  });
  it('writes through guaranteedUpdate of kube-node-lease/<node> and passes its errors on', async () => {
    const calls: string[] = [];
    let stored: Obj | undefined;
    const r = storeLeaseRenewer({
      async guaranteedUpdate(ns, name, fn) {
        calls.push(`${ns}/${name}`);
        if (name === 'gone') throw new Error('leases.coordination.k8s.io "gone" not found');
        stored = fn(lease());
        return stored;
      },
    });
    await r.renew('kwok-node-0', '2026-01-01T00:01:00.000000Z', new Date(0), 40);
    assert.equal((stored!.spec as { renewTime: string }).renewTime, '2026-01-01T00:01:00.000000Z');
    await assert.rejects(r.renew('gone', 'x', new Date(0), 40), /"gone" not found/);
    assert.deepEqual(calls, ['kube-node-lease/kwok-node-0', 'kube-node-lease/gone']);
  });
});
