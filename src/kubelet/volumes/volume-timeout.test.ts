import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseQuantity } from '../../apimachinery/quantity.js';
import { makeTempDir } from '../../../test/support/tmp.js';
import { FakeClock } from '../../util/fake-clock.js';
import { MountStepError } from './csi/errors.js';
import type { CSIVolumePlugin } from './csi/mounter.js';
import { VolumeManager, type VolumeError } from './volume-manager.js';

const deps = {
  getConfigMap: async () => undefined,
  getSecret: async () => undefined,
  runtimeValues: { nodeName: 'n', hostIPs: [], podIPs: [] },
  alloc: { memory: parseQuantity('1Gi') },
};

test('CSI volumes: the plugin’s event text; quiet waits; the 2m3s attach-and-mount timeout event', async () => {
  const d = makeTempDir();
  try {
    const clock = new FakeClock();
    let fail: MountStepError = new MountStepError('MountVolume.SetUp failed for volume "pv-1" : rpc error: code = Internal desc = boom');
    const csi = { handles: (v: { persistentVolumeClaim?: unknown }) => !!v.persistentVolumeClaim, setUp: async () => Promise.reject(fail), tearDownPod: async () => undefined };
    const vm = new VolumeManager(d.path, clock, undefined, false, csi as unknown as CSIVolumePlugin);
    const pod: Pod = {
      metadata: { uid: 'u1', name: 'p', namespace: 'default' },
      spec: {
        containers: [],
        volumes: [
          { name: 'scratch', emptyDir: {} },
          { name: 'data', persistentVolumeClaim: { claimName: 'c' } },
        ],
      },
    };
    const events: string[] = [];
    const onError = (e: VolumeError): void => void events.push(e.eventMessage ?? e.message);
    await assert.rejects(vm.mountPod(pod, deps, onError));
    assert.deepEqual(events, ['MountVolume.SetUp failed for volume "pv-1" : rpc error: code = Internal desc = boom']);
    // a wait (not attached yet) retries without an event
    fail = new MountStepError('MountVolume.WaitForAttach failed for volume "pv-1" : not yet', 'FailedMount', true);
    await clock.advance(1000);
    await assert.rejects(vm.mountPod(pod, deps, onError));
    assert.equal(events.length, 1);
    // past 2m3s of not being ready: the timeout event naming the unmounted volume, once per 2m3s
    await clock.advance(123_000);
    await assert.rejects(vm.mountPod(pod, deps, onError));
    assert.deepEqual(events.slice(1), [
      'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[]: context deadline exceeded',
    ]);
    await clock.advance(2000);
    await assert.rejects(vm.mountPod(pod, deps, onError));
    assert.equal(events.length, 2);
  } finally {
    d.remove();
  }
});
