#!/usr/bin/env node
// Re-captures the protobuf request bodies the real kubectl sends, into this folder.
//
//   node src/apiserver/protobuf/testdata/capture.mjs [kubectl]
//
// Starts an HTTPS server on 127.0.0.1 (self-signed certificate made with openssl, in a
// temporary folder) and runs each kubectl command below against it with a bearer token
// (kubectl sends no credentials over plain http). The server says it is v1.32, so the
// preinstalled kubectl dispatcher runs kubectl 1.32, which POSTs protobuf: the body is
// saved as `<name>.pb`, its request line and headers as `<name>.request.json`.
//
// The JSON the body must decode to is saved as `<name>.expected.json`, from a second run:
//  - `create` commands: the same kubectl 1.32 command with `--dry-run=client -o json`
//    (the same object, printed with Go's JSON encoding);
//  - `auth` commands (no dry run): the body kubectl 1.31 POSTs, which is JSON (the server
//    then says it is v1.31).
// `deleteoptions_*` are not made here: they are the DELETE bodies of
// `kubectl drain <node> --pod-selector=… --force --disable-eviction [--grace-period=N | --dry-run=server] -v=9`
// against `k8ts server` (kubectl prints the protobuf body as a hex dump); their
// `.request.json` names the command.
//
// The server answers minimal legacy discovery and POSTs with 201 and a small JSON object
// so kubectl prints success.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const kubectl = process.argv[2] ?? 'kubectl';
const tmp = mkdtempSync(join(tmpdir(), 'k8ts-capture-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(tmp, 'key.pem'),
  '-out', join(tmp, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
  { stdio: 'ignore' });
const BLOB = join(tmp, 'blob.bin');
writeFileSync(BLOB, Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80, 0x7f]));

/** name → kubectl arguments; `auth` commands take their expected JSON from kubectl 1.31. */
const commands = {
  configmap: ['create', 'configmap', 'cm1', '--from-literal=a=b', '--from-literal=c=d'],
  configmap_file: ['create', 'configmap', 'cm2', `--from-file=blob=${BLOB}`, '--from-literal=x=y'],
  secret: ['create', 'secret', 'generic', 's1', '--from-literal=user=admin', '--from-literal=pass=s3cr3t'],
  secret_docker: ['create', 'secret', 'docker-registry', 'reg1', '--docker-server=registry.example.com', '--docker-username=u', '--docker-password=p', '--docker-email=u@example.com'],
  namespace: ['create', 'namespace', 'ns1'],
  deployment: ['create', 'deployment', 'd', '--image=nginx', '--replicas=2', '--port=80'],
  deployment_zero: ['create', 'deployment', 'z', '--image=nginx:1.27', '--replicas=0', '--', 'nginx', '-g', 'daemon off;'],
  job: ['create', 'job', 'j1', '--image=busybox', '--', 'echo', 'hello'],
  cronjob: ['create', 'cronjob', 'cj1', '--image=busybox', '--schedule=*/5 * * * *', '--restart=Never', '--', 'date'],
  service: ['create', 'service', 'clusterip', 'svc1', '--tcp=80:8080', '--tcp=443:https'],
  service_headless: ['create', 'service', 'clusterip', 'hl1', '--clusterip=None'],
  service_nodeport: ['create', 'service', 'nodeport', 'np1', '--tcp=80:8080', '--node-port=30080'],
  service_externalname: ['create', 'service', 'externalname', 'en1', '--external-name=example.com'],
  service_loadbalancer: ['create', 'service', 'loadbalancer', 'lb1', '--tcp=5678:8080'],
  serviceaccount: ['create', 'serviceaccount', 'sa1'],
  quota: ['create', 'quota', 'q1', '--hard=cpu=1,memory=1Gi,pods=2', '--scopes=BestEffort'],
  role: ['create', 'role', 'r1', '--verb=get,list', '--resource=pods,deployments.apps', '--resource-name=x'],
  rolebinding: ['create', 'rolebinding', 'rb1', '--role=r1', '--user=alice', '--group=devs', '--serviceaccount=default:sa1'],
  clusterrole: ['create', 'clusterrole', 'cr1', '--verb=get', '--non-resource-url=/healthz'],
  clusterrolebinding: ['create', 'clusterrolebinding', 'crb1', '--clusterrole=cr1', '--user=bob'],
  pdb: ['create', 'poddisruptionbudget', 'pdb1', '--selector=app=x', '--min-available=50%'],
  priorityclass: ['create', 'priorityclass', 'pc1', '--value=1000', '--description=high', '--preemption-policy=Never'],
  ingress: ['create', 'ingress', 'ing1', '--class=nginx', '--rule=foo.example.com/bar*=svc1:8080,tls=my-cert', '--default-backend=defsvc:http'],
  token: ['create', 'token', 'sa1', '--duration=10m', '--audience=api', '--bound-object-kind=Pod', '--bound-object-name=p1', '--bound-object-uid=0a1b2c3d-0000-4000-8000-000000000001'],
  selfsubjectaccessreview: ['auth', 'can-i', 'get', 'pods'],
  selfsubjectaccessreview_subresource: ['auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'kube-system'],
  selfsubjectaccessreview_nonresource: ['auth', 'can-i', 'get', '/healthz'],
  selfsubjectrulesreview: ['auth', 'can-i', '--list', '-n', 'ns1'],
  selfsubjectreview: ['auth', 'whoami'],
};

const kinds = {
  configmaps: 'ConfigMap', secrets: 'Secret', namespaces: 'Namespace', deployments: 'Deployment', jobs: 'Job',
  cronjobs: 'CronJob', services: 'Service', selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview', selfsubjectreviews: 'SelfSubjectReview',
  serviceaccounts: 'ServiceAccount', token: 'TokenRequest', resourcequotas: 'ResourceQuota', roles: 'Role',
  rolebindings: 'RoleBinding', clusterroles: 'ClusterRole', clusterrolebindings: 'ClusterRoleBinding',
  poddisruptionbudgets: 'PodDisruptionBudget', priorityclasses: 'PriorityClass', ingresses: 'Ingress',
};

let current = '';
let minor = '32';
/** what a POST body is saved as: 'pb' (the protobuf capture) or 'expected' (kubectl 1.31 JSON) */
let saveAs = 'pb';
const json = (res, code, body) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const pretty = (text) => JSON.stringify(JSON.parse(text), null, 2) + '\n';

const server = createServer({ key: readFileSync(join(tmp, 'key.pem')), cert: readFileSync(join(tmp, 'cert.pem')) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url, 'https://x');
    if (url.pathname === '/version') {
      return json(res, 200, { major: '1', minor, gitVersion: `v1.${minor}.0`, platform: 'linux/amd64' });
    }
    if (url.pathname === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (url.pathname === '/apis') {
      const gv = { groupVersion: 'apps/v1', version: 'v1' };
      return json(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: 'apps', versions: [gv], preferredVersion: gv }] });
    }
    if (url.pathname === '/apis/apps/v1') {
      return json(res, 200, { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [
        { name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs: ['get', 'list', 'create'] },
      ] });
    }
    if (url.pathname === '/api/v1') {
      return json(res, 200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [
        { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'create'] },
        { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
      ] });
    }
    if (req.method === 'POST') {
      const body = Buffer.concat(chunks);
      if (saveAs === 'pb') {
        writeFileSync(join(here, `${current}.pb`), body);
        writeFileSync(join(here, `${current}.request.json`), JSON.stringify({
          method: req.method, url: req.url, contentType: req.headers['content-type'], accept: req.headers.accept,
          userAgent: req.headers['user-agent'], command: req.headers['kubectl-command'],
        }, null, 2) + '\n');
      } else {
        writeFileSync(join(here, `${current}.expected.json`), pretty(body.toString()));
      }
      const parts = url.pathname.split('/').filter(Boolean);
      const resource = parts.at(-1) ?? '';
      const apiVersion = resource === 'token' ? 'authentication.k8s.io/v1' : parts[0] === 'apis' ? `${parts[1]}/${parts[2]}` : 'v1';
      return json(res, 201, {
        kind: kinds[resource] ?? 'Unknown', apiVersion, metadata: { name: 'captured', namespace: 'default' },
        status: { allowed: true, userInfo: { username: 'capture' }, resourceRules: [], nonResourceRules: [], incomplete: false, token: 'captured-token' },
      });
    }
    json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
  });
});

const run = (args) =>
  new Promise((resolve) => {
    execFile(kubectl, args, { env: { ...process.env, KUBECONFIG: '/dev/null' } }, (err, stdout, stderr) =>
      resolve({ ok: !err, stdout, stderr }));
  });

server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  const common = (m) => [`--server=https://127.0.0.1:${port}`, '--insecure-skip-tls-verify', '--token=capture-token',
    `--cache-dir=${join(tmp, `cache-${m}`)}`]; // a cache per version: the dispatcher caches by server
  try {
    for (const [name, args] of Object.entries(commands)) {
      current = name;
      minor = '32';
      saveAs = 'pb';
      const r = await run([...common('32'), ...args]);
      console.log(`${name}: ${r.ok ? 'ok' : 'FAILED'} ${r.stdout.trim()} ${r.stderr.trim()}`);
      saveAs = 'expected';
      if (args[0] === 'create' && name !== 'token') {
        const [sub, ...rest] = args.slice(1);
        const dashdash = rest.indexOf('--');
        const flags = ['--dry-run=client', '-o', 'json'];
        const withFlags = dashdash < 0 ? [...rest, ...flags] : [...rest.slice(0, dashdash), ...flags, ...rest.slice(dashdash)];
        const d = await run([...common('32'), 'create', sub, ...withFlags]);
        if (d.ok) writeFileSync(join(here, `${name}.expected.json`), pretty(d.stdout));
        else console.log(`  dry run FAILED: ${d.stderr.trim()}`);
      } else {
        minor = '31';
        const o = await run([...common('31'), ...args]);
        if (!o.ok) console.log(`  kubectl 1.31 FAILED: ${o.stderr.trim()}`);
      }
    }
  } finally {
    server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
