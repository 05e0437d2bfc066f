/**
 * Pins the field numbers, enum values and RPC signatures of src/cri/remote/api.proto
 * to upstream CRI v1. The table below was checked field by field against
 * kubernetes/cri-api v0.32.0 pkg/apis/runtime/v1/api.proto: a wrong number would make
 * containerd read our requests as different fields, silently.
 *
 * @see https://github.com/kubernetes/cri-api/blob/v0.32.0/pkg/apis/runtime/v1/api.proto
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { PROTO_PATH } from './client.js';

/** message (or enum) → field (or value) name → number, as upstream. */
const UPSTREAM: Record<string, Record<string, number>> = {
  VersionRequest: { version: 1 },
  VersionResponse: { version: 1, runtime_name: 2, runtime_version: 3, runtime_api_version: 4 },
  KeyValue: { key: 1, value: 2 },
  Int64Value: { value: 1 },
  UInt64Value: { value: 1 },
  Protocol: { TCP: 0, UDP: 1, SCTP: 2 },
  MountPropagation: { PROPAGATION_PRIVATE: 0, PROPAGATION_HOST_TO_CONTAINER: 1, PROPAGATION_BIDIRECTIONAL: 2 },
  NamespaceMode: { POD: 0, CONTAINER: 1, NODE: 2, TARGET: 3 },
  DNSConfig: { servers: 1, searches: 2, options: 3 },
  PortMapping: { protocol: 1, container_port: 2, host_port: 3, host_ip: 4 },
  Mount: { container_path: 1, host_path: 2, readonly: 3, selinux_relabel: 4, propagation: 5 },
  NamespaceOption: { network: 1, pid: 2, ipc: 3, target_id: 4 },
  SecurityProfile: { profile_type: 1, localhost_ref: 2 },
  'SecurityProfile.ProfileType': { RuntimeDefault: 0, Unconfined: 1, Localhost: 2 },
  LinuxSandboxSecurityContext: { namespace_options: 1, run_as_user: 3, readonly_rootfs: 4, supplemental_groups: 5, privileged: 6, run_as_group: 8, seccomp: 9 },
  LinuxPodSandboxConfig: { cgroup_parent: 1, security_context: 2, sysctls: 3 },
  PodSandboxMetadata: { name: 1, uid: 2, namespace: 3, attempt: 4 },
  PodSandboxConfig: { metadata: 1, hostname: 2, log_directory: 3, dns_config: 4, port_mappings: 5, labels: 6, annotations: 7, linux: 8 },
  RunPodSandboxRequest: { config: 1, runtime_handler: 2 },
  RunPodSandboxResponse: { pod_sandbox_id: 1 },
  StopPodSandboxRequest: { pod_sandbox_id: 1 },
  StopPodSandboxResponse: {},
  RemovePodSandboxRequest: { pod_sandbox_id: 1 },
  RemovePodSandboxResponse: {},
  PodSandboxState: { SANDBOX_READY: 0, SANDBOX_NOTREADY: 1 },
  PodIP: { ip: 1 },
  PodSandboxNetworkStatus: { ip: 1, additional_ips: 2 },
  Namespace: { options: 2 },
  LinuxPodSandboxStatus: { namespaces: 1 },
  PodSandboxStatus: { id: 1, metadata: 2, state: 3, created_at: 4, network: 5, linux: 6, labels: 7, annotations: 8, runtime_handler: 9 },
  PodSandboxStatusRequest: { pod_sandbox_id: 1, verbose: 2 },
  PodSandboxStatusResponse: { status: 1, info: 2 },
  PodSandboxStateValue: { state: 1 },
  PodSandboxFilter: { id: 1, state: 2, label_selector: 3 },
  ListPodSandboxRequest: { filter: 1 },
  PodSandbox: { id: 1, metadata: 2, state: 3, created_at: 4, labels: 5, annotations: 6, runtime_handler: 7 },
  ListPodSandboxResponse: { items: 1 },
  ImageSpec: { image: 1, annotations: 2, user_specified_image: 18, runtime_handler: 19 },
  LinuxContainerResources: { cpu_period: 1, cpu_quota: 2, cpu_shares: 3, memory_limit_in_bytes: 4, oom_score_adj: 5, cpuset_cpus: 6, cpuset_mems: 7 },
  Capability: { add_capabilities: 1, drop_capabilities: 2 },
  LinuxContainerSecurityContext: {
    capabilities: 1,
    privileged: 2,
    namespace_options: 3,
    run_as_user: 5,
    run_as_username: 6,
    readonly_rootfs: 7,
    supplemental_groups: 8,
    no_new_privs: 11,
    run_as_group: 12,
    masked_paths: 13,
    readonly_paths: 14,
    seccomp: 15,
  },
  LinuxContainerConfig: { resources: 1, security_context: 2 },
  ContainerMetadata: { name: 1, attempt: 2 },
  Device: { container_path: 1, host_path: 2, permissions: 3 },
  ContainerConfig: {
    metadata: 1,
    image: 2,
    command: 3,
    args: 4,
    working_dir: 5,
    envs: 6,
    mounts: 7,
    devices: 8,
    labels: 9,
    annotations: 10,
    log_path: 11,
    stdin: 12,
    stdin_once: 13,
    tty: 14,
    linux: 15,
  },
  CreateContainerRequest: { pod_sandbox_id: 1, config: 2, sandbox_config: 3 },
  CreateContainerResponse: { container_id: 1 },
  StartContainerRequest: { container_id: 1 },
  StartContainerResponse: {},
  StopContainerRequest: { container_id: 1, timeout: 2 },
  StopContainerResponse: {},
  RemoveContainerRequest: { container_id: 1 },
  RemoveContainerResponse: {},
  ContainerState: { CONTAINER_CREATED: 0, CONTAINER_RUNNING: 1, CONTAINER_EXITED: 2, CONTAINER_UNKNOWN: 3 },
  ContainerStateValue: { state: 1 },
  ContainerFilter: { id: 1, state: 2, pod_sandbox_id: 3, label_selector: 4 },
  ListContainersRequest: { filter: 1 },
  Container: { id: 1, pod_sandbox_id: 2, metadata: 3, image: 4, image_ref: 5, state: 6, created_at: 7, labels: 8, annotations: 9, image_id: 10 },
  ListContainersResponse: { containers: 1 },
  ContainerResources: { linux: 1 },
  ContainerStatus: {
    id: 1,
    metadata: 2,
    state: 3,
    created_at: 4,
    started_at: 5,
    finished_at: 6,
    exit_code: 7,
    image: 8,
    image_ref: 9,
    reason: 10,
    message: 11,
    labels: 12,
    annotations: 13,
    mounts: 14,
    log_path: 15,
    resources: 16,
    image_id: 17,
  },
  ContainerStatusRequest: { container_id: 1, verbose: 2 },
  ContainerStatusResponse: { status: 1, info: 2 },
  ReopenContainerLogRequest: { container_id: 1 },
  ReopenContainerLogResponse: {},
  ExecSyncRequest: { container_id: 1, cmd: 2, timeout: 3 },
  ExecSyncResponse: { stdout: 1, stderr: 2, exit_code: 3 },
  ExecRequest: { container_id: 1, cmd: 2, tty: 3, stdin: 4, stdout: 5, stderr: 6 },
  ExecResponse: { url: 1 },
  AttachRequest: { container_id: 1, stdin: 2, tty: 3, stdout: 4, stderr: 5 },
  AttachResponse: { url: 1 },
  PortForwardRequest: { pod_sandbox_id: 1, port: 2 },
  PortForwardResponse: { url: 1 },
  NetworkConfig: { pod_cidr: 1 },
  RuntimeConfig: { network_config: 1 },
  UpdateRuntimeConfigRequest: { runtime_config: 1 },
  UpdateRuntimeConfigResponse: {},
  RuntimeCondition: { type: 1, status: 2, reason: 3, message: 4 },
  RuntimeStatus: { conditions: 1 },
  StatusRequest: { verbose: 1 },
  StatusResponse: { status: 1, info: 2 },
  ImageFilter: { image: 1 },
  ListImagesRequest: { filter: 1 },
  Image: { id: 1, repo_tags: 2, repo_digests: 3, size: 4, uid: 5, username: 6, spec: 7, pinned: 8 },
  ListImagesResponse: { images: 1 },
  ImageStatusRequest: { image: 1, verbose: 2 },
  ImageStatusResponse: { image: 1, info: 2 },
  AuthConfig: { username: 1, password: 2, auth: 3, server_address: 4, identity_token: 5, registry_token: 6 },
  PullImageRequest: { image: 1, auth: 2, sandbox_config: 3 },
  PullImageResponse: { image_ref: 1 },
  RemoveImageRequest: { image: 1 },
  RemoveImageResponse: {},
  ImageFsInfoRequest: {},
  FilesystemIdentifier: { mountpoint: 1 },
  FilesystemUsage: { timestamp: 1, fs_id: 2, used_bytes: 3, inodes_used: 4 },
  ImageFsInfoResponse: { image_filesystems: 1, container_filesystems: 2 },
};

/** RPC → [request, response], as upstream. */
const RPCS: Record<string, Record<string, [string, string]>> = {
  RuntimeService: {
    Version: ['VersionRequest', 'VersionResponse'],
    RunPodSandbox: ['RunPodSandboxRequest', 'RunPodSandboxResponse'],
    StopPodSandbox: ['StopPodSandboxRequest', 'StopPodSandboxResponse'],
    RemovePodSandbox: ['RemovePodSandboxRequest', 'RemovePodSandboxResponse'],
    PodSandboxStatus: ['PodSandboxStatusRequest', 'PodSandboxStatusResponse'],
    ListPodSandbox: ['ListPodSandboxRequest', 'ListPodSandboxResponse'],
    CreateContainer: ['CreateContainerRequest', 'CreateContainerResponse'],
    StartContainer: ['StartContainerRequest', 'StartContainerResponse'],
    StopContainer: ['StopContainerRequest', 'StopContainerResponse'],
    RemoveContainer: ['RemoveContainerRequest', 'RemoveContainerResponse'],
    ListContainers: ['ListContainersRequest', 'ListContainersResponse'],
    ContainerStatus: ['ContainerStatusRequest', 'ContainerStatusResponse'],
    ReopenContainerLog: ['ReopenContainerLogRequest', 'ReopenContainerLogResponse'],
    ExecSync: ['ExecSyncRequest', 'ExecSyncResponse'],
    Exec: ['ExecRequest', 'ExecResponse'],
    Attach: ['AttachRequest', 'AttachResponse'],
    PortForward: ['PortForwardRequest', 'PortForwardResponse'],
    UpdateRuntimeConfig: ['UpdateRuntimeConfigRequest', 'UpdateRuntimeConfigResponse'],
    Status: ['StatusRequest', 'StatusResponse'],
  },
  ImageService: {
    ListImages: ['ListImagesRequest', 'ListImagesResponse'],
    ImageStatus: ['ImageStatusRequest', 'ImageStatusResponse'],
    PullImage: ['PullImageRequest', 'PullImageResponse'],
    RemoveImage: ['RemoveImageRequest', 'RemoveImageResponse'],
    ImageFsInfo: ['ImageFsInfoRequest', 'ImageFsInfoResponse'],
  },
};

const root = new protobuf.Root().loadSync(PROTO_PATH, { keepCase: true });
const pkg = root.lookup('runtime.v1') as protobuf.Namespace;

test('api.proto declares package runtime.v1 (the CRI v1 service names)', () => {
  assert.ok(root.lookupService('runtime.v1.RuntimeService'));
  assert.ok(root.lookupService('runtime.v1.ImageService'));
});

test('every message and enum of api.proto has upstream numbers, and nothing else', () => {
  const seen = new Set<string>();
  const visit = (ns: protobuf.NamespaceBase, prefix: string) => {
    for (const n of ns.nestedArray) {
      const name = prefix + n.name;
      if (n instanceof protobuf.Type) {
        seen.add(name);
        const want = UPSTREAM[name];
        assert.ok(want, `message ${name} is not in the upstream table`);
        const got = Object.fromEntries(n.fieldsArray.map((f) => [f.name, f.id]));
        assert.deepEqual(got, want, `field numbers of ${name}`);
        visit(n, name + '.');
      } else if (n instanceof protobuf.Enum) {
        seen.add(name);
        assert.deepEqual({ ...n.values }, UPSTREAM[name], `values of enum ${name}`);
      }
    }
  };
  visit(pkg, '');
  assert.deepEqual([...seen].sort(), Object.keys(UPSTREAM).sort());
});

test('field types that matter on the wire (int64 timestamps, bytes, maps, wrappers)', () => {
  const field = (msg: string, f: string) => root.lookupType(`runtime.v1.${msg}`).fields[f]!;
  assert.equal(field('ContainerStatus', 'created_at').type, 'int64');
  assert.equal(field('ContainerStatus', 'exit_code').type, 'int32');
  assert.equal(field('ExecSyncResponse', 'stdout').type, 'bytes');
  assert.equal(field('Image', 'size').type, 'uint64');
  assert.equal(field('StopContainerRequest', 'timeout').type, 'int64');
  assert.ok((field('PodSandboxConfig', 'labels') as unknown as protobuf.MapField).map);
  assert.equal(field('LinuxContainerSecurityContext', 'run_as_user').type, 'Int64Value');
  assert.equal(field('ContainerFilter', 'state').type, 'ContainerStateValue');
  assert.ok(field('ContainerConfig', 'envs').repeated);
});

test('RPC names and request/response types are upstream', () => {
  for (const [svc, rpcs] of Object.entries(RPCS)) {
    const s = root.lookupService(`runtime.v1.${svc}`);
    const got = Object.fromEntries(s.methodsArray.map((m) => [m.name, [m.requestType, m.responseType]]));
    assert.deepEqual(got, rpcs, svc);
    for (const m of s.methodsArray) assert.ok(!m.requestStream && !m.responseStream, `${svc}.${m.name} is unary`);
  }
});
