import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeStaticPod } from './static-pod.js';
import { loadKubeletConfigFile } from './kubelet-config.js';

const POD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, image: nginx}]\n';

describe('static pod manifests', () => {
  test('defaults, name, namespace, hash UID stable for the same node, file and content', () => {
    const p = decodeStaticPod(POD, '/etc/k/web.yaml', 'node-a');
    assert.equal(p.metadata?.name, 'web-node-a');
    assert.equal(p.metadata?.namespace, 'default');
    assert.equal(p.spec?.nodeName, 'node-a');
    assert.equal(p.spec?.restartPolicy, 'Always', 'API defaults applied');
    assert.equal(p.spec?.containers[0]?.terminationMessagePath, '/dev/termination-log');
    assert.equal(p.metadata?.annotations?.['kubernetes.io/config.hash'], p.metadata?.uid);
    assert.equal(p.metadata?.annotations?.['kubernetes.io/config.source'], 'file');
    assert.equal(p.status?.phase, 'Pending');
    // key order in the file does not matter; node, path and content do
    const reordered = 'kind: Pod\napiVersion: v1\nspec:\n  containers: [{image: nginx, name: c}]\nmetadata: {name: web}\n';
    assert.equal(decodeStaticPod(reordered, '/etc/k/web.yaml', 'node-a').metadata?.uid, p.metadata?.uid);
    assert.notEqual(decodeStaticPod(POD, '/etc/k/other.yaml', 'node-a').metadata?.uid, p.metadata?.uid);
    assert.notEqual(decodeStaticPod(POD, '/etc/k/web.yaml', 'node-b').metadata?.uid, p.metadata?.uid);
    assert.notEqual(decodeStaticPod(POD.replace('image: nginx', 'image: nginx:2'), '/etc/k/web.yaml', 'node-a').metadata?.uid, p.metadata?.uid);
  });

  test('an existing NoExecute toleration of everything is kept once', () => {
    const p = decodeStaticPod(`${POD}  tolerations: [{operator: Exists, effect: NoExecute}, {key: a, operator: Exists}]\n`, '/f', 'n');
    assert.deepEqual(p.spec?.tolerations, [
      { operator: 'Exists', effect: 'NoExecute' },
      { key: 'a', operator: 'Exists' },
    ]);
  });

  test('what is not a valid Pod is refused with the reason', () => {
    assert.throws(
      () => decodeStaticPod('apiVersion: v1\nkind: Service\nmetadata: {name: s}\n', '/f', 'n'),
      /^Error: invalid pod: the file holds apiVersion "v1", kind "Service"; want v1 Pod$/,
    );
    assert.throws(() => decodeStaticPod('apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: []}\n', '/f', 'n'), {
      message: 'invalid pod: spec.containers: Required value',
    });
    assert.throws(
      () => decodeStaticPod('apiVersion: v1\nkind: Pod\nmetadata: {name: Web_1}\nspec: {containers: [{name: c, image: x}]}\n', '/f', 'n'),
      /^Error: invalid pod: metadata\.name: Invalid value: "Web_1-n"/,
    );
    assert.throws(() => decodeStaticPod('{{{', '/f', 'n'));
  });
});

describe('KubeletConfiguration (--kubelet-config)', () => {
  test('staticPodPath (relative to the file) and fileCheckFrequency; wrong kind or duration refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-kcfg-'));
    try {
      const f = join(dir, 'config.yaml');
      writeFileSync(f, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: manifests\nfileCheckFrequency: 5s\ncgroupDriver: systemd\n');
      assert.deepEqual(loadKubeletConfigFile(f), { staticPodPath: join(dir, 'manifests'), fileCheckFrequencyMs: 5000 });
      writeFileSync(f, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\n');
      assert.throws(() => loadKubeletConfigFile(f), new RegExp(`^Error: failed to load Kubelet config file ${f}, error: no kind "KubeProxyConfiguration"`));
      writeFileSync(f, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfileCheckFrequency: soon\n');
      assert.throws(() => loadKubeletConfigFile(f), { message: `failed to load Kubelet config file ${f}, error: fileCheckFrequency: time: invalid duration "soon"` });
      writeFileSync(f, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsyncFrequency: 1m30s\n');
      assert.deepEqual(loadKubeletConfigFile(f), { syncFrequencyMs: 90_000 });
      writeFileSync(f, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsyncFrequency: 10\n');
      assert.throws(() => loadKubeletConfigFile(f), { message: `failed to load Kubelet config file ${f}, error: syncFrequency: time: invalid duration "10"` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
