import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KObject } from '../api/resource.js';
import { Informer } from './informer.js';
import { FakeClient } from './testing/fake-client.js';
import { R } from './types.js';

/** The transform under test: the object without metadata.managedFields. */
function dropManagedFields(o: KObject): KObject {
  delete o.metadata?.managedFields;
  return o;
}

const pod = (name: string): KObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

test('an informer transform applies to listed, added, modified and deleted objects before the store and the handlers see them', async () => {
  const c = new FakeClient();
  await c.create(R.pods, 'default', pod('listed'));
  const seen: string[] = [];
  const inf = new Informer(c, R.pods, { transform: dropManagedFields });
  inf.addEventHandler({
    add: (o) => seen.push(`add ${o.metadata?.name} ${o.metadata?.managedFields === undefined}`),
    update: (_old, o) => seen.push(`update ${o.metadata?.name} ${o.metadata?.managedFields === undefined}`),
    delete: (o) => seen.push(`delete ${o.metadata?.name} ${o.metadata?.managedFields === undefined}`),
  });
  inf.start();
  await inf.waitForSync();
  await c.create(R.pods, 'default', pod('watched'));
  const deleted = new Promise<void>((resolve) => inf.addEventHandler({ delete: () => resolve() }));
  await c.update(R.pods, 'default', { ...pod('watched'), metadata: { ...pod('watched').metadata, labels: { a: 'b' } } });
  await c.delete(R.pods, 'default', 'watched');
  await deleted;
  inf.stop();
  assert.deepEqual(seen, ['add listed true', 'add watched true', 'update watched true', 'delete watched true']);
  assert.equal(inf.getByName('default', 'listed')?.metadata?.managedFields, undefined);
});
