import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { R } from '../../client/types.js';
import { startTestCluster, type TestCluster } from '../../controllers/util/test-cluster.js';
import { cloneOrigin } from './cached-object.js';

describe('store: what a written object keeps alive', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('the cached object of an update no longer links to the version it was copied from (no chain of every version)', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'chain' }, data: { v: '0' } };
    await c.client.create(R.configmaps, 'default', cm);
    for (let i = 1; i <= 3; i++) {
      await c.client.patch(R.configmaps, 'default', 'chain', 'merge', { data: { v: String(i) } });
      const cur = c.api.store('', 'configmaps')!.peek('default', 'chain')!;
      assert.equal(cur.obj.data && (cur.obj.data as Record<string, string>).v, String(i));
      assert.equal(cloneOrigin(cur.obj), undefined, `version ${i} keeps its previous version alive`);
    }
    // a raw compare-and-swap update (pods/binding, the kwok lease renewer) changes the copy it gets
    const store = c.api.store('', 'configmaps')!;
    for (let i = 1; i <= 3; i++) {
      const written = await store.guaranteedUpdate('default', 'chain', (o) => {
        (o.data as Record<string, string>).v = `cas-${i}`;
        return o;
      });
      assert.equal(cloneOrigin(written.obj), undefined, `compare-and-swap version ${i} keeps its previous version alive`);
    }
    // an update through PUT as well
    const got = await c.client.get(R.configmaps, 'default', 'chain');
    await c.client.update(R.configmaps, 'default', { ...got, data: { v: 'put' } });
    const cur = c.api.store('', 'configmaps')!.peek('default', 'chain')!;
    assert.equal(cloneOrigin(cur.obj), undefined);
  });
});
