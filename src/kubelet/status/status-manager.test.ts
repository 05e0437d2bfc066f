import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { R } from '../../client/types.js';
import { StatusManager } from './status-manager.js';

describe('StatusManager', () => {
  it("holds a static pod's status until its mirror pod exists, then writes it on resend (also after a hold that ended at once)", async () => {
    const client = new FakeClient();
    let mirrorUID: string | null = null;
    const sm = new StatusManager(client, undefined, () => mirrorUID);
    const staticPod: Pod = { metadata: { name: 'web-n', namespace: 'default', uid: 'static-uid' } };
    // the API server is away: no mirror pod, the writes are held
    await sm.setPodStatus(staticPod, { phase: 'Pending' });
    await sm.setPodStatus(staticPod, { phase: 'Running', podIP: '10.0.0.5' });
    assert.equal(sm.needsRetry('static-uid'), false, 'held, not failed');
    // the mirror pod appears
    const mirror = await client.create<KObject & Pod>(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-n', namespace: 'default' },
      spec: { containers: [] },
    });
    mirrorUID = mirror.metadata!.uid!;
    sm.resend('static-uid');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const got = client.peek<KObject & Pod>(R.pods, 'default', 'web-n');
    assert.equal(got?.status?.phase, 'Running');
    assert.equal(got?.status?.podIP, '10.0.0.5');
    // later changes go out as usual
    await sm.setPodStatus(staticPod, { phase: 'Running', podIP: '10.0.0.6' });
    assert.equal(client.peek<KObject & Pod>(R.pods, 'default', 'web-n')?.status?.podIP, '10.0.0.6');
  });
});
