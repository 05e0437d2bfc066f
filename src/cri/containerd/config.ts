/**
 * containerd config.toml (version = 2) for a node-private containerd, as k3s does:
 * root, state and socket under `<dataDir>/containerd/`, the CRI plugin set up with the
 * settings this kind of machine needs (see docs/notes/containerd-cri.md).
 *
 * @see https://github.com/containerd/containerd/blob/v1.6.20/docs/cri/config.md
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/agent/templates/templates_linux.go
 */
import { join } from 'node:path';

/** Paths of a managed containerd under `<dataDir>/containerd/`. */
export interface ContainerdPaths {
  base: string;
  config: string;
  root: string;
  state: string;
  socket: string;
  log: string;
  certsDir: string;
  cniConfDir: string;
  cniIpamDir: string;
}

/** Lays the managed containerd's files out under `<dataDir>/containerd/`. */
export function containerdPaths(dataDir: string): ContainerdPaths {
  const base = join(dataDir, 'containerd');
  return {
    base,
    config: join(base, 'config.toml'),
    root: join(base, 'root'),
    state: join(base, 'state'),
    socket: join(base, 'containerd.sock'),
    log: join(base, 'containerd.log'),
    certsDir: join(base, 'certs.d'),
    cniConfDir: join(base, 'cni', 'net.d'),
    cniIpamDir: join(base, 'cni', 'networks'),
  };
}

export interface ContainerdConfigOptions {
  paths: ContainerdPaths;
  /** `sandbox_image`: must exactly name an image present in namespace k8s.io, or a pullable one */
  pauseImage: string;
  cniBinDir: string;
  /** auth tables from registries.ts `authToml` (may be empty) */
  registryAuthToml?: string;
  /** containerd log level; default "info" */
  logLevel?: string;
  /** CRI streaming server (exec/attach/port-forward) address; default 127.0.0.1 on a random port */
  streamServerAddress?: string;
  streamServerPort?: number;
}

const q = (s: string) => JSON.stringify(s);

/** Plugins that only log errors on a machine without their backing store. */
const DISABLED_PLUGINS = [
  'io.containerd.snapshotter.v1.aufs',
  'io.containerd.snapshotter.v1.btrfs',
  'io.containerd.snapshotter.v1.devmapper',
  'io.containerd.snapshotter.v1.zfs',
  'io.containerd.tracing.processor.v1.otlp',
  'io.containerd.internal.v1.tracing',
];

/** The config.toml text. */
export function containerdConfig(o: ContainerdConfigOptions): string {
  const p = o.paths;
  const cri = '[plugins."io.containerd.grpc.v1.cri"';
  return `# Written by k8ts: a node-private containerd. Changes are overwritten on restart.
version = 2
root = ${q(p.root)}
state = ${q(p.state)}
disabled_plugins = [${DISABLED_PLUGINS.map(q).join(', ')}]

[grpc]
  address = ${q(p.socket)}

[debug]
  level = ${q(o.logLevel ?? 'info')}

[plugins."io.containerd.internal.v1.opt"]
  path = ${q(join(p.root, 'opt'))}

${cri}]
  sandbox_image = ${q(o.pauseImage)}
  # the sandbox lacks CAP_SYS_RESOURCE: without this runc fails ("can't get final child's PID from pipe")
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_selinux = false
  stream_server_address = ${q(o.streamServerAddress ?? '127.0.0.1')}
  stream_server_port = ${q(String(o.streamServerPort ?? 0))}
  max_container_log_line_size = 16384

${cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

${cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

${cri}.containerd.runtimes.runc.options]
  SystemdCgroup = false

${cri}.cni]
  bin_dir = ${q(o.cniBinDir)}
  conf_dir = ${q(p.cniConfDir)}
  max_conf_num = 1

${cri}.registry]
  config_path = ${q(p.certsDir)}

${o.registryAuthToml ?? ''}`;
}
