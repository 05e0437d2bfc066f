/**
 * The CRI client without containerd: endpoint parsing, gRPC error mapping, and the
 * exact wire messages RemoteRuntime sends/decodes, checked against an in-process
 * gRPC server speaking api.proto on a unix socket.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { CRIError } from '../api.js';
import { criTarget, PROTO_PATH, toCRIError } from './client.js';
import { RemoteRuntime } from './remote.js';
import { makeTempDir, type TempDir } from '../../../test/support/tmp.js';

test('criTarget accepts unix endpoints and bare paths only', () => {
  assert.equal(criTarget('unix:///run/containerd/containerd.sock'), 'unix:///run/containerd/containerd.sock');
  assert.equal(criTarget('unix:/run/c.sock'), 'unix:///run/c.sock');
  assert.equal(criTarget('/run/c.sock'), 'unix:///run/c.sock');
  assert.throws(
    () => criTarget('tcp://127.0.0.1:1234'),
    (e: unknown) => e instanceof CRIError && e.code === 'InvalidArgument',
  );
  assert.throws(() => criTarget('unix://relative.sock'), CRIError);
});

test('gRPC status codes map to CRIError codes with upstream-style messages', () => {
  const mk = (code: grpc.status, details: string) => Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
  assert.deepEqual(
    [
      grpc.status.NOT_FOUND,
      grpc.status.ALREADY_EXISTS,
      grpc.status.INVALID_ARGUMENT,
      grpc.status.UNAVAILABLE,
      grpc.status.DEADLINE_EXCEEDED,
      grpc.status.UNIMPLEMENTED,
      grpc.status.INTERNAL,
    ].map((c) => toCRIError(mk(c, 'x')).code),
    ['NotFound', 'AlreadyExists', 'InvalidArgument', 'Unavailable', 'DeadlineExceeded', 'Unimplemented', 'Unknown'],
  );
  assert.equal(toCRIError(mk(grpc.status.NOT_FOUND, 'container "a" not found')).message, 'rpc error: code = NotFound desc = container "a" not found');
  assert.equal(toCRIError(new Error('boom')).code, 'Unknown');
});

// ------------------------------------------------------------ wire messages via a fake server

let dir: TempDir;
let server: grpc.Server;
let rt: RemoteRuntime;
const seen: Record<string, unknown> = {};

before(async () => {
  dir = makeTempDir('k8ts-cri-fake-');
  const def = protoLoader.loadSync(PROTO_PATH, { keepCase: true, longs: String, enums: String, defaults: false });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { runtime: { v1: Record<string, { service: grpc.ServiceDefinition }> } };
  server = new grpc.Server();
  type Call = grpc.ServerUnaryCall<Record<string, unknown>, unknown>;
  const rec = (name: string, reply: (req: Record<string, unknown>) => unknown) => (call: Call, cb: grpc.sendUnaryData<unknown>) => {
    seen[name] = call.request;
    cb(null, reply(call.request));
  };
  server.addService(pkg.runtime.v1.RuntimeService!.service, {
    CreateContainer: rec('CreateContainer', () => ({ container_id: 'c1' })),
    ListContainers: rec('ListContainers', () => ({
      containers: [
        {
          id: 'c1',
          pod_sandbox_id: 's1',
          metadata: { name: 'app', attempt: 2 },
          image: { image: 'busybox' },
          image_ref: 'sha256:ab',
          state: 'CONTAINER_EXITED',
          created_at: '1700000000123456789',
          labels: { a: 'b' },
        },
      ],
    })),
    ContainerStatus: (_call: Call, cb: grpc.sendUnaryData<unknown>) =>
      cb({ code: grpc.status.NOT_FOUND, details: 'an error occurred when try to find container "zz": not found' } as grpc.ServiceError),
    ExecSync: rec('ExecSync', () => ({ stdout: Buffer.from('out'), stderr: Buffer.from(''), exit_code: 7 })),
  });
  server.addService(pkg.runtime.v1.ImageService!.service, {
    ImageStatus: rec('ImageStatus', () => ({})),
    ListImages: rec('ListImages', () => ({ images: [{ id: 'sha256:ab', repo_tags: ['busybox:1.36'], size: '2130989', uid: { value: '0' } }] })),
  });
  const sock = join(dir.path, 'cri.sock');
  await new Promise<void>((res, rej) => server.bindAsync(`unix://${sock}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? rej(e) : res())));
  rt = await RemoteRuntime.connect(`unix://${sock}`);
});

after(async () => {
  await rt?.close();
  await new Promise<void>((r) => server.tryShutdown(() => r()));
  dir?.remove();
});

test('CreateContainer: wrappers, enums and snake_case fields as upstream expects', async () => {
  const sandbox = {
    metadata: { name: 'p', uid: 'u', namespace: 'ns', attempt: 0 },
    hostname: 'p',
    logDirectory: '/logs',
    portMappings: [{ protocol: 'UDP' as const, containerPort: 53, hostPort: 5353, hostIp: '' }],
    labels: {},
    annotations: {},
    linux: { cgroupParent: '/k/podu', securityContext: { runAsUser: 0, namespaceOptions: { pid: 'CONTAINER' as const } } },
  };
  const id = await rt.createContainer(
    's1',
    {
      metadata: { name: 'app', attempt: 1 },
      image: { image: 'busybox' },
      command: ['sh'],
      args: ['-c', 'true'],
      workingDir: '/w',
      envs: [{ key: 'A', value: '1' }],
      mounts: [{ containerPath: '/d', hostPath: '/h', readonly: true, propagation: 'PROPAGATION_HOST_TO_CONTAINER' }],
      labels: { l: 'v' },
      annotations: {},
      logPath: 'app/1.log',
      stdin: false,
      stdinOnce: false,
      tty: false,
      linux: {
        resources: { memoryLimitInBytes: 64 * 1024 * 1024, cpuShares: 512 },
        securityContext: { runAsUser: 1000, runAsGroup: 0, capabilities: { dropCapabilities: ['ALL'] } },
      },
    },
    sandbox,
  );
  assert.equal(id, 'c1');
  const req = seen.CreateContainer as any;
  assert.equal(req.pod_sandbox_id, 's1');
  assert.deepEqual(req.config.metadata, { name: 'app', attempt: 1 });
  assert.deepEqual(req.config.envs, [{ key: 'A', value: '1' }]);
  assert.equal(req.config.mounts[0].propagation, 'PROPAGATION_HOST_TO_CONTAINER');
  assert.equal(req.config.log_path, 'app/1.log');
  assert.equal(req.config.linux.resources.memory_limit_in_bytes, String(64 * 1024 * 1024));
  assert.deepEqual(req.config.linux.security_context.run_as_user, { value: '1000' });
  assert.deepEqual(req.config.linux.security_context.run_as_group, { value: '0' }, 'uid/gid 0 is sent, not dropped');
  assert.deepEqual(req.config.linux.security_context.capabilities.drop_capabilities, ['ALL']);
  assert.equal(req.sandbox_config.linux.cgroup_parent, '/k/podu');
  assert.deepEqual(req.sandbox_config.linux.security_context.run_as_user, { value: '0' });
  assert.equal(req.sandbox_config.linux.security_context.namespace_options.pid, 'CONTAINER');
  assert.deepEqual(req.sandbox_config.port_mappings[0], { protocol: 'UDP', container_port: 53, host_port: 5353, host_ip: '' });
});

test('ListContainers: state filter in its wrapper; int64 ns timestamps decoded as numbers', async () => {
  const list = await rt.listContainers({ state: 'CONTAINER_EXITED', labelSelector: { a: 'b' } });
  const req = seen.ListContainers as any;
  assert.deepEqual(req.filter.state, { state: 'CONTAINER_EXITED' });
  assert.deepEqual(req.filter.label_selector, { a: 'b' });
  assert.equal(list.length, 1);
  const c = list[0]!;
  assert.equal(c.state, 'CONTAINER_EXITED');
  assert.equal(c.podSandboxId, 's1');
  assert.deepEqual(c.metadata, { name: 'app', attempt: 2 });
  // biome-ignore lint/correctness/noPrecisionLoss: the int64 the fake server sent, compared within float precision
  assert.ok(Math.abs(c.createdAt - 1700000000123456789) < 1024, 'ns timestamp within float precision');
});

test('errors, bytes, absent messages and uint64 sizes', async () => {
  await assert.rejects(rt.containerStatus('zz'), (e: unknown) => e instanceof CRIError && e.code === 'NotFound' && /not found$/.test(e.message));
  const r = await rt.execSync('c1', ['sh'], 5);
  assert.deepEqual([r.stdout.toString(), r.stderr.length, r.exitCode], ['out', 0, 7]);
  assert.equal((seen.ExecSync as any).timeout, '5');
  assert.equal(await rt.imageStatus({ image: 'nope' }), undefined, 'an ImageStatus without image means absent');
  const imgs = await rt.listImages();
  assert.deepEqual(imgs, [{ id: 'sha256:ab', repoTags: ['busybox:1.36'], repoDigests: [], size: 2130989, pinned: false, uid: 0 }]);
});
