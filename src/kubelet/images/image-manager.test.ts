import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Secret } from 'kubernetes-types/core/v1.js';
import { CRIError, type AuthConfig, type PodSandboxConfig, type Runtime } from '../../cri/api.js';
import { FakeClock } from '../../util/fake-clock.js';
import { ImageManager, keyMatches } from './image-manager.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const dockerconfig = (auths: Record<string, unknown>): Secret => ({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) } });

function stubRuntime(accept: (auth?: AuthConfig) => boolean): { rt: Runtime; pulls: (AuthConfig | undefined)[] } {
  const pulls: (AuthConfig | undefined)[] = [];
  const rt = {
    imageStatus: async () => undefined,
    pullImage: async (_spec: unknown, auth?: AuthConfig) => {
      pulls.push(auth);
      if (!accept(auth)) throw new CRIError('Unknown', 'rpc error: code = Unknown desc = failed to pull and unpack image: 401 Unauthorized');
      return 'sha256:abc';
    },
  } as unknown as Runtime;
  return { rt, pulls };
}

const events: string[] = [];
const recorder = { event: (_o: unknown, _t: string, reason: string, msg: string) => void events.push(`${reason}: ${msg}`) };
const pod = (image: string, secrets: string[]): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'c', image, imagePullPolicy: 'Always' }], imagePullSecrets: secrets.map((name) => ({ name })) },
});

test('keyring keys: host, host/path prefix, scheme and /v1/ ignored', () => {
  assert.ok(keyMatches('127.0.0.1:5000', ['127.0.0.1:5000'], 'team/app'));
  assert.ok(keyMatches('http://127.0.0.1:5000/v2/', ['127.0.0.1:5000'], 'team/app'));
  assert.ok(keyMatches('127.0.0.1:5000/team', ['127.0.0.1:5000'], 'team/app'));
  assert.ok(!keyMatches('127.0.0.1:5000/other', ['127.0.0.1:5000'], 'team/app'));
  assert.ok(!keyMatches('127.0.0.1:5000/tea', ['127.0.0.1:5000'], 'team/app'));
  assert.ok(keyMatches('https://index.docker.io/v1/', ['docker.io', 'index.docker.io'], 'library/busybox'));
  assert.ok(!keyMatches('quay.io', ['docker.io'], 'library/busybox'));
});

test('imagePullSecrets: matching credentials tried in turn (auth decoded), none → anonymous', async () => {
  const secrets: Record<string, Secret> = {
    wrong: dockerconfig({ 'reg.example:5000': { username: 'bob', password: 'nope' } }),
    right: dockerconfig({ 'https://reg.example:5000/v2/': { auth: b64('alice:s3cret') } }),
    other: dockerconfig({ 'quay.io': { username: 'x', password: 'y' } }),
    broken: { data: { '.dockerconfigjson': b64('{not json') } },
  };
  const { rt, pulls } = stubRuntime((a) => a?.username === 'alice' && a.password === 's3cret');
  const im = new ImageManager(rt, recorder, new FakeClock(), async (_ns, n) => secrets[n]);
  const sb = {} as PodSandboxConfig;
  const p1 = pod('reg.example:5000/team/app:1.0', ['broken', 'other', 'wrong', 'right']);
  const r = await im.ensureImageExists(p1, p1.spec!.containers[0]!, sb);
  assert.deepEqual(r, { ok: true, imageRef: 'sha256:abc' });
  assert.deepEqual(pulls, [
    { username: 'bob', password: 'nope' },
    { username: 'alice', password: 's3cret' },
  ]);
  pulls.length = 0;
  const p2 = pod('reg.example:5000/team/app:1.0', ['other']);
  await im.ensureImageExists(p2, p2.spec!.containers[0]!, sb);
  assert.deepEqual(pulls, [undefined], 'no matching key: anonymous pull');
});

test('an image already present: the result carries the ImageStatus answer (its user), so nobody asks again', async () => {
  let calls = 0;
  const img = { id: 'sha256:def', repoTags: ['busybox:1.36'], repoDigests: [], size: 1, uid: 1000 };
  const rt = { imageStatus: async () => (calls++, img) } as unknown as Runtime;
  const im = new ImageManager(rt, recorder, new FakeClock());
  const p: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u2' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] } };
  assert.deepEqual(await im.ensureImageExists(p, p.spec!.containers[0]!, {} as PodSandboxConfig), { ok: true, imageRef: 'sha256:def', image: img });
  assert.equal(calls, 1);
});

test('prefetchStatus(): the early ImageStatus answer is used by ensureImageExists (no second call); a failed one is asked again', async () => {
  let calls = 0;
  let fail = false;
  const img = { id: 'sha256:def', repoTags: ['busybox:1.36'], repoDigests: [], size: 1 };
  const rt = {
    imageStatus: async (spec: { image: string }) => {
      calls++;
      if (fail) throw new CRIError('Unavailable', 'rpc error: code = Unavailable desc = down');
      assert.equal(spec.image, 'busybox:1.36');
      return img;
    },
  } as unknown as Runtime;
  const im = new ImageManager(rt, recorder, new FakeClock());
  const p: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u3' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] } };
  const c = p.spec!.containers[0]!;
  const early = im.prefetchStatus(c);
  assert.deepEqual(await im.ensureImageExists(p, c, {} as PodSandboxConfig, early), { ok: true, imageRef: 'sha256:def', image: img });
  assert.equal(calls, 1);
  fail = true;
  const failed = im.prefetchStatus(c);
  fail = false;
  assert.equal((await im.ensureImageExists(p, c, {} as PodSandboxConfig, failed)).ok, true);
  assert.equal(calls, 3, 'the failed early call is followed by a real one');
});
