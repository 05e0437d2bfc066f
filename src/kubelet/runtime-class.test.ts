import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../api/resource.js';
import { newHarness } from './testing/harness.js';

const RC = { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false } as const;

test('the kubelet passes the RuntimeClass handler to RunPodSandbox; an unknown class fails the sandbox with upstream event text', async () => {
  const h = await newHarness();
  try {
    await h.client.create(RC, '', { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler: 'runsc' } as KObject);
    await h.createPod({ metadata: { name: 'sandboxed' }, spec: { runtimeClassName: 'gvisor', containers: [{ name: 'c', image: 'nginx' }] } });
    await h.until(() => h.pod('sandboxed')?.status?.phase === 'Running');
    const sandboxes = await h.runtime.listPodSandbox();
    assert.deepEqual(
      sandboxes.filter((s) => s.metadata.name === 'sandboxed').map((s) => s.runtimeHandler),
      ['runsc'],
    );

    await h.createPod({ metadata: { name: 'unknown-class' }, spec: { runtimeClassName: 'missing', containers: [{ name: 'c', image: 'nginx' }] } });
    await h.until(() => h.events('unknown-class').some((e) => e.reason === 'FailedCreatePodSandBox'));
    assert.equal(
      h.events('unknown-class').find((e) => e.reason === 'FailedCreatePodSandBox')?.message,
      'Failed to create pod sandbox: runtimeclass.node.k8s.io "missing" not found',
    );
    assert.equal((await h.runtime.listPodSandbox()).filter((s) => s.metadata.name === 'unknown-class').length, 0);
  } finally {
    await h.close();
  }
});
