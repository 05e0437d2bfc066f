/**
 * Published manifests from test/fixtures/manifests on the simulated runtime, with the
 * outcome test/fixtures/manifests/EXPECTED.md describes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { R } from '../client/types.js';
import { newHarness } from './testing/harness.js';

const DIR = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'manifests');

function manifest(name: string): Pod {
  const docs = parseAllDocuments(readFileSync(join(DIR, `${name}.yaml`), 'utf8'))
    .map((d) => d.toJSON() as Pod)
    .filter(Boolean);
  return docs[0];
}

describe('published manifests on the simulated runtime', () => {
  test('simple-pod: nginx 1/1 Running', async () => {
    const h = await newHarness();
    try {
      await h.createPod(manifest('simple-pod'));
      await h.until(() => h.pod('nginx')?.status?.phase === 'Running');
      assert.ok(h.pod('nginx')!.status!.conditions!.every((c) => c.status === 'True'));
    } finally {
      await h.close();
    }
  });

  test('two-container-pod: debian Completed, nginx running, phase Running, Ready False (1/2 NotReady)', async () => {
    const h = await newHarness();
    try {
      await h.createPod(manifest('two-container-pod'));
      await h.until(() => h.pod('two-containers')?.status?.containerStatuses?.find((c) => c.name === 'debian-container')?.state?.terminated !== undefined);
      await h.clock.advance(3000);
      const st = h.pod('two-containers')!.status!;
      assert.equal(st.phase, 'Running');
      const deb = st.containerStatuses!.find((c) => c.name === 'debian-container')!;
      assert.deepEqual([deb.state?.terminated?.reason, deb.state?.terminated?.exitCode, deb.restartCount], ['Completed', 0, 0]);
      assert.ok(st.containerStatuses!.find((c) => c.name === 'nginx-container')!.state?.running);
      assert.deepEqual(
        st.containerStatuses!.map((c) => c.name),
        ['debian-container', 'nginx-container'],
        'sorted by name as upstream',
      );
      assert.equal(st.conditions!.find((c) => c.type === 'Ready')!.status, 'False');
      const uid = h.pod('two-containers')!.metadata!.uid!;
      const html = readFileSync(join(h.dataDir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'shared-data', 'index.html'), 'utf8');
      assert.equal(html, 'Hello from the debian container\n');
    } finally {
      await h.close();
    }
  });

  test('init-containers: without outbound network wget fails: Init:Error, then Init:CrashLoopBackOff; nginx never starts', async () => {
    const h = await newHarness();
    try {
      await h.createPod(manifest('init-containers'));
      const init = () => h.pod('init-demo')?.status?.initContainerStatuses?.[0];
      await h.until(() => init()?.state?.terminated?.reason === 'Error' || init()?.lastState?.terminated?.reason === 'Error');
      assert.equal((init()?.state?.terminated ?? init()?.lastState?.terminated)?.exitCode, 1);
      await h.until(() => init()?.state?.waiting?.reason === 'CrashLoopBackOff', 60_000, 500);
      const st = h.pod('init-demo')!.status!;
      assert.equal(st.phase, 'Pending');
      assert.equal(st.containerStatuses![0].state?.waiting?.reason, 'PodInitializing');
      const started = h.events('init-demo').filter((e) => e.reason === 'Started');
      assert.deepEqual(
        started.map((e) => e.fieldPath),
        ['spec.initContainers{install}'],
        'only the init container starts',
      );
      assert.ok(started[0]!.count >= 2, 'and it is restarted');
    } finally {
      await h.close();
    }
  });

  test('liveness-exec: a restart every ~75 s at first, then the back-off outgrows the run time: CrashLoopBackOff between runs', async () => {
    const h = await newHarness();
    try {
      const pod = await h.createPod(manifest('liveness-exec'));
      const uid = pod.metadata!.uid!;
      const cs = () => h.pod('liveness-exec')?.status?.containerStatuses?.[0];
      const seen: string[] = [];
      // each run: healthy 30 s, 3 failed probes 5 s apart, then SIGTERM is ignored by sh
      // (PID 1) and the kill takes the 30 s grace period: an exit every ~75 s
      await h.until(
        () => {
          const w = cs()?.state?.waiting;
          if (w?.reason === 'CrashLoopBackOff' && !seen.includes(w.message!)) seen.push(w.message!);
          return seen.length >= 2;
        },
        900_000,
        1_000,
      );
      // restarts 1–5 come at once (each back-off, 10 s … 40 s, is shorter than a run);
      // the 6th kill meets an 80 s back-off counted from the previous exit
      assert.equal(seen[0], `back-off 1m20s restarting failed container=liveness pod=liveness-exec_default(${uid})`);
      assert.equal(seen[1], `back-off 2m40s restarting failed container=liveness pod=liveness-exec_default(${uid})`);
      assert.ok(cs()!.restartCount >= 5 && cs()!.restartCount <= 7, `restarts ${cs()!.restartCount}`);
      assert.equal(cs()!.lastState?.terminated?.exitCode, 137);
      const bo = h.events('liveness-exec').find((e) => e.reason === 'BackOff');
      assert.equal(bo?.message, `Back-off restarting failed container liveness in pod liveness-exec_default(${uid})`);
      assert.equal(bo?.type, 'Warning');
    } finally {
      await h.close();
    }
  });

  test('projected-secrets: ContainerCreating with FailedMount naming both secrets, Running once they exist', async () => {
    const h = await newHarness();
    try {
      const pod = manifest('projected-secrets');
      const name = pod.metadata!.name!;
      await h.createPod(pod);
      await h.clock.advance(2000);
      const fm = h.events(name).find((e) => e.reason === 'FailedMount');
      assert.match(fm!.message, /^MountVolume\.SetUp failed for volume "[^"]+" : \[secret "user" not found, secret "pass" not found\]$/);
      for (const [n, k, v] of [
        ['user', 'username.txt', 'admin'],
        ['pass', 'password.txt', 's3cr3t'],
      ]) {
        await h.client.create(R.secrets, 'default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: n }, data: { [k]: Buffer.from(v).toString('base64') } } as KObject);
      }
      await h.until(() => h.pod(name)?.status?.phase === 'Running', 200_000, 1000);
    } finally {
      await h.close();
    }
  });
});
