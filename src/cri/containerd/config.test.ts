import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { containerdConfig, containerdPaths } from './config.js';
import { cidrFamily, cniConflist, CNIConfigError, detectCNIBinDir } from './cni.js';
import { authToml, hostsFiles, parseRegistries, RegistriesConfigError } from './registries.js';
import { layoutToArchive, normalizeRef, OCILayoutError } from './oci-archive.js';
import { makeTempDir } from '../../../test/support/tmp.js';

test('config.toml: version 2, private paths, and the settings this machine needs', () => {
  const paths = containerdPaths('/var/lib/k8ts');
  assert.equal(paths.socket, '/var/lib/k8ts/containerd/containerd.sock');
  const toml = containerdConfig({ paths, pauseImage: 'registry.k8s.io/pause:3.10', cniBinDir: '/usr/lib/cni', registryAuthToml: '' });
  for (const line of [
    'version = 2',
    'root = "/var/lib/k8ts/containerd/root"',
    'state = "/var/lib/k8ts/containerd/state"',
    'address = "/var/lib/k8ts/containerd/containerd.sock"',
    'sandbox_image = "registry.k8s.io/pause:3.10"',
    'restrict_oom_score_adj = true',
    'netns_mounts_under_state_dir = true',
    'snapshotter = "overlayfs"',
    'SystemdCgroup = false',
    'bin_dir = "/usr/lib/cni"',
    'conf_dir = "/var/lib/k8ts/containerd/cni/net.d"',
    'config_path = "/var/lib/k8ts/containerd/certs.d"',
    'stream_server_port = "0"',
  ])
    assert.ok(toml.includes(line), `config.toml has ${line}`);
  assert.ok(!/registry\.mirrors/.test(toml), 'no inline mirrors next to config_path (containerd rejects that)');
});

test('CNI conflist: bridge + host-local over the podCIDR + portmap, no masquerade', () => {
  const c = JSON.parse(cniConflist({ podCIDR: '10.42.3.0/24', bridgeName: 'k8ts0', ipamDataDir: '/d/networks' }));
  assert.equal(c.cniVersion, '1.0.0');
  assert.equal(c.name, 'k8ts');
  assert.deepEqual(
    c.plugins.map((p: { type: string }) => p.type),
    ['bridge', 'portmap'],
  );
  const br = c.plugins[0];
  assert.equal(br.bridge, 'k8ts0');
  assert.equal(br.ipMasq, false);
  assert.equal(br.isGateway, true);
  assert.deepEqual(br.ipam, { type: 'host-local', ranges: [[{ subnet: '10.42.3.0/24' }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: '/d/networks' });
  assert.deepEqual(c.plugins[1].capabilities, { portMappings: true });
  const v6 = JSON.parse(cniConflist({ podCIDR: 'fd00:42::/64' }));
  assert.deepEqual(v6.plugins[0].ipam.routes, [{ dst: '::/0' }]);
  assert.equal(cidrFamily('10.0.0.0/8'), 4);
  assert.throws(() => cniConflist({ podCIDR: '10.42.0.0' }), CNIConfigError);
  assert.throws(() => cniConflist({ podCIDR: '300.1.1.0/24' }), CNIConfigError);
  assert.throws(() => cniConflist({ podCIDR: '10.42.0.0/24', bridgeName: 'a-bridge-name-too-long' }), CNIConfigError);
});

test('CNI plugin dir: the first candidate with every needed plugin', () => {
  const d = makeTempDir();
  try {
    const partial = join(d.path, 'partial');
    const full = join(d.path, 'full');
    mkdirSync(partial);
    mkdirSync(full);
    writeFileSync(join(partial, 'bridge'), '');
    for (const p of ['bridge', 'host-local', 'portmap', 'loopback']) writeFileSync(join(full, p), '');
    assert.equal(detectCNIBinDir([join(d.path, 'none'), partial, full]), full);
    assert.throws(() => detectCNIBinDir([partial]), /host-local, portmap, loopback|install containernetworking-plugins/);
  } finally {
    d.remove();
  }
});

test('registries.yaml (k3s format) → certs.d hosts.toml files and auth tables', () => {
  const r = parseRegistries(`
mirrors:
  docker.io:
    endpoint: ["http://127.0.0.1:5000"]
  registry.k8s.io:
    endpoint:
      - "https://mirror.example:5443/"
  "*":
    endpoint: ["http://127.0.0.1:5000"]
configs:
  "mirror.example:5443":
    auth: { username: alice, password: "s3cr\\"t" }
    tls: { ca_file: /etc/ca.pem, cert_file: /c.pem, key_file: /k.pem }
  "private.example":
    tls: { insecure_skip_verify: true }
`);
  const files = hostsFiles(r);
  assert.deepEqual(Object.keys(files).sort(), [
    '_default/hosts.toml',
    'docker.io/hosts.toml',
    'mirror.example:5443/hosts.toml',
    'private.example/hosts.toml',
    'registry.k8s.io/hosts.toml',
  ]);
  // a host with TLS settings gets them for direct pulls too
  assert.equal(files['mirror.example:5443/hosts.toml'], 'server = "https://mirror.example:5443"\nca = "/etc/ca.pem"\nclient = [["/c.pem", "/k.pem"]]\n');
  assert.equal(files['docker.io/hosts.toml'], 'server = "https://registry-1.docker.io"\n\n[host."http://127.0.0.1:5000"]\n  capabilities = ["pull", "resolve"]\n');
  assert.equal(
    files['registry.k8s.io/hosts.toml'],
    'server = "https://registry.k8s.io"\n\n[host."https://mirror.example:5443"]\n  capabilities = ["pull", "resolve"]\n' +
      '  ca = "/etc/ca.pem"\n  client = [["/c.pem", "/k.pem"]]\n',
  );
  assert.ok(!files['_default/hosts.toml']!.includes('server ='));
  assert.equal(files['private.example/hosts.toml'], 'server = "https://private.example"\nskip_verify = true\n');
  assert.equal(authToml(r), '[plugins."io.containerd.grpc.v1.cri".registry.configs."mirror.example:5443".auth]\n  username = "alice"\n  password = "s3cr\\"t"\n');
  assert.deepEqual(parseRegistries(''), { mirrors: {}, configs: {} });
  assert.throws(() => parseRegistries('mirrors: {docker.io: {endpoint: "http://x"}}'), RegistriesConfigError);
  assert.throws(() => parseRegistries('mirrors: {docker.io: {endpoint: ["ftp://x"]}}'), /scheme must be http or https/);
  assert.throws(() => parseRegistries('configs: {x: {tls: {cert_file: /c.pem}}}'), /cert_file and key_file go together/);
  assert.throws(() => parseRegistries('configs: {x: {tls: {insecure_skip_verify: "yes"}}}'), RegistriesConfigError);
});

test('image references normalize as containerd stores them', () => {
  assert.deepEqual(normalizeRef('busybox'), { repo: 'docker.io/library/busybox', tag: 'latest', full: 'docker.io/library/busybox:latest' });
  assert.equal(normalizeRef('k8ts/busybox:1.36').full, 'docker.io/k8ts/busybox:1.36');
  assert.equal(normalizeRef('registry.k8s.io/pause:3.10').full, 'registry.k8s.io/pause:3.10');
  assert.equal(normalizeRef('localhost/pause:3.10').full, 'localhost/pause:3.10');
  assert.equal(normalizeRef('127.0.0.1:5000/k8ts/busybox:1.36').repo, '127.0.0.1:5000/k8ts/busybox');
  assert.equal(normalizeRef('127.0.0.1:5000/x').tag, 'latest');
  assert.throws(() => normalizeRef('busybox@sha256:abc'), OCILayoutError);
});

test('layoutToArchive: a valid tar holding the re-tagged manifest and the blobs', () => {
  const d = makeTempDir();
  try {
    const L = d.path;
    mkdirSync(join(L, 'blobs', 'sha256'), { recursive: true });
    const blob = 'a'.repeat(64);
    writeFileSync(join(L, 'blobs', 'sha256', blob), Buffer.alloc(700, 7));
    writeFileSync(join(L, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    writeFileSync(
      join(L, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: `sha256:${blob}`, size: 700, annotations: { 'org.opencontainers.image.ref.name': '3.10' } }],
      }),
    );
    const tar = layoutToArchive(L, '3.10', '9.9');
    assert.equal(tar.length % 512, 0);
    const list = spawnSync('tar', ['-tvf', '-'], { input: tar, encoding: 'utf8' });
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, /oci-layout/);
    assert.match(list.stdout, new RegExp(`700 .*blobs/sha256/${blob}`));
    const idx = spawnSync('tar', ['-xOf', '-', 'index.json'], { input: tar, encoding: 'utf8' });
    assert.equal(JSON.parse(idx.stdout).manifests[0].annotations['org.opencontainers.image.ref.name'], '9.9');
    assert.throws(() => layoutToArchive(L, 'nope', 'x'), /has no tag "nope" \(has: 3\.10\)/);
  } finally {
    d.remove();
  }
});
