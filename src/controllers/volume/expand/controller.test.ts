/** The expand controller: a bound claim asking for more gets upstream's ExternalExpanding warning. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../../api/resource.js';
import { R } from '../../../client/types.js';
import { startTestCluster, waitFor, type TestCluster } from '../../util/test-cluster.js';
import type { RunningController } from '../../util/context.js';
import { startExpandController } from './controller.js';

type PVC = PersistentVolumeClaim & KObject;

describe('expand controller', { timeout: 30_000 }, () => {
  let c: TestCluster;
  let ctrl: RunningController;
  before(async () => {
    c = await startTestCluster();
    ctrl = await startExpandController({ client: c.client, recorder: c.recorder, informers: c.informers });
  });
  after(async () => {
    await ctrl?.stop();
    await c?.stop();
  });

  it('records ExternalExpanding (Warning) when a bound claim’s request grows past its capacity', async () => {
    const pvc = await c.client.create<PVC>(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'grow', namespace: 'default' },
      spec: { volumeName: 'pv-grow', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await c.client.create(R.persistentvolumes, '', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-grow' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'grow', uid: pvc.metadata!.uid },
        csi: { driver: 'x.csi.k8ts.io', volumeHandle: 'h' },
      },
    });
    const bound = await c.client.update<PVC>(R.persistentvolumeclaims, 'default', { ...pvc, status: { phase: 'Bound', capacity: { storage: '1Gi' } } }, { subresource: 'status' });
    assert.equal(c.recorder.events.length, 0);
    await c.client.update(R.persistentvolumeclaims, 'default', { ...bound, spec: { ...bound.spec, resources: { requests: { storage: '2Gi' } } } });
    const e = await waitFor(() => c.recorder.events.find((x) => x.reason === 'ExternalExpanding'), 10_000, 'ExternalExpanding');
    assert.equal(e.type, 'Warning');
    assert.equal(e.message, 'waiting for an external controller to expand this PVC');
    assert.equal(e.obj.metadata?.name, 'grow');
  });
});
