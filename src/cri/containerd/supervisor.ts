/**
 * Runs a node-private containerd as a child process, as k3s does: writes its
 * config.toml, CNI conflist and registry hosts files under `<dataDir>/containerd/`,
 * starts it, waits for its socket, restarts it when it dies, stops it on shutdown.
 * Containers keep running across a containerd restart (their shims are separate
 * processes), which is how upstream nodes behave too.
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/agent/containerd/containerd.go
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { cniConflist, detectCNIBinDir } from './cni.js';
import { containerdConfig, containerdPaths, type ContainerdPaths } from './config.js';
import { hasImage, importLayout } from './images.js';
import { authToml, hostsFiles, parseRegistries } from './registries.js';

/** Thrown when containerd cannot be set up or does not come up. */
export class ManagedContainerdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManagedContainerdError';
  }
}

export interface ManagedContainerdOptions {
  /** the node's data dir; containerd's files go to `<dataDir>/containerd/` */
  dataDir: string;
  /** the node's podCIDR, e.g. "10.42.0.0/24" (CNI host-local range) */
  podCIDR: string;
  /** sandbox (pause) image, e.g. "registry.k8s.io/pause:3.10" */
  pauseImage: string;
  /** k3s-style registries.yaml (mirrors, auth, TLS); see registries.ts */
  registriesFile?: string;
  /**
   * An OCI image layout directory (scripts/images/build.sh's `pause`) imported as
   * `pauseImage` when containerd does not have that image, so sandboxes start offline.
   */
  pauseImageLayout?: string;
  /** containerd binary; default: `containerd` on PATH */
  containerdBin?: string;
  /** ctr binary (image import); default: `ctr` on PATH */
  ctrBin?: string;
  /** CNI plugin dir; default: detected among /opt/cni/bin, /usr/lib/cni, /usr/libexec/cni */
  cniBinDir?: string;
  /** Linux bridge for pods; default "k8ts0" */
  bridgeName?: string;
  /** CNI network name; default "k8ts" */
  networkName?: string;
  /**
   * A network namespace file (e.g. /run/netns/<name>) to run containerd in, so its CNI
   * bridge and pods live there (`nsenter --net=…`; the test harness's node namespaces);
   * default: this process's namespace
   */
  netnsPath?: string;
  /** containerd log level; default "info" */
  logLevel?: string;
  /** how long to wait for the socket at each start, ms; default 30 000 */
  readyTimeoutMs?: number;
  /** first restart delay after a crash, ms (doubles to 30 s, resets after 60 s up); default 500 */
  restartDelayMs?: number;
  /** told about starts, exits and restarts */
  onEvent?: (e: { type: 'started' | 'exited' | 'restarting'; pid?: number; code?: number | null; signal?: string | null; message?: string }) => void;
}

export interface ManagedContainerd {
  /** CRI endpoint, `unix://<dataDir>/containerd/containerd.sock` */
  endpoint: string;
  paths: ContainerdPaths;
  /** PID of the current containerd process (changes on restart) */
  readonly pid: number | undefined;
  /** how many times it was restarted after dying */
  readonly restarts: number;
  /** SIGTERM, then SIGKILL after 10 s; no restart afterwards. Containers' shims stay. */
  stop(): Promise<void>;
}

/** Resolves a program on PATH (or checks an explicit path). */
export function findExecutable(name: string): string | undefined {
  const dirs = name.includes('/') ? [''] : (process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin').split(delimiter).concat(['/usr/sbin', '/sbin']);
  for (const d of dirs) {
    const p = d ? join(d, name) : name;
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return undefined;
}

function waitForSocket(path: string, deadline: number, child: ChildProcess, logPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tail = () => {
      try {
        return readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n');
      } catch {
        return '';
      }
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new ManagedContainerdError(`containerd exited (${code}) before its socket was ready; log tail:\n${tail()}`));
    };
    child.once('exit', onExit);
    let timer: NodeJS.Timeout;
    const attempt = () => {
      const s = connect(path);
      s.once('connect', () => {
        s.destroy();
        child.off('exit', onExit);
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) {
          child.off('exit', onExit);
          reject(new ManagedContainerdError(`containerd socket ${path} not ready in time; log tail:\n${tail()}`));
        } else timer = setTimeout(attempt, 25);
      });
    };
    attempt();
  });
}

/** Writes config.toml, CNI conflist and certs.d hosts files. @throws on bad inputs */
export function writeContainerdFiles(o: ManagedContainerdOptions): { paths: ContainerdPaths; cniBinDir: string } {
  const paths = containerdPaths(o.dataDir);
  const cniBinDir = o.cniBinDir ?? detectCNIBinDir();
  const regs = o.registriesFile ? parseRegistries(readFileSync(o.registriesFile, 'utf8')) : { mirrors: {}, configs: {} };
  for (const d of [paths.base, paths.root, paths.state, paths.cniConfDir, paths.cniIpamDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
  // certs.d is regenerated whole: stale mirrors must not survive a config change.
  rmSync(paths.certsDir, { recursive: true, force: true });
  mkdirSync(paths.certsDir, { recursive: true });
  for (const [rel, text] of Object.entries(hostsFiles(regs))) {
    const f = join(paths.certsDir, rel);
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, text);
  }
  // containerd loads the first conflist of conf_dir in name order, only at start.
  for (const f of readdirSync(paths.cniConfDir)) rmSync(join(paths.cniConfDir, f), { force: true });
  writeFileSync(
    join(paths.cniConfDir, '10-k8ts.conflist'),
    cniConflist({ podCIDR: o.podCIDR, bridgeName: o.bridgeName, networkName: o.networkName, ipamDataDir: paths.cniIpamDir }),
  );
  writeFileSync(paths.config, containerdConfig({ paths, pauseImage: o.pauseImage, cniBinDir, registryAuthToml: authToml(regs), logLevel: o.logLevel }), { mode: 0o600 });
  return { paths, cniBinDir };
}

/**
 * Starts a supervised private containerd and resolves once its socket accepts
 * connections (and the pause image is present when `pauseImageLayout` is given).
 * @throws ManagedContainerdError when containerd or runc is not installed, when not
 *   root, or when containerd does not come up; CNIConfigError / RegistriesConfigError
 *   for bad network or registry settings.
 */
export async function startManagedContainerd(o: ManagedContainerdOptions): Promise<ManagedContainerd> {
  const bin = findExecutable(o.containerdBin ?? 'containerd');
  if (!bin) throw new ManagedContainerdError('containerd is not installed (no `containerd` on PATH; run scripts/install-deps.sh)');
  if (!findExecutable('runc')) throw new ManagedContainerdError('runc is not installed (run scripts/install-deps.sh)');
  if (process.getuid?.() !== 0) throw new ManagedContainerdError('a managed containerd needs root');
  const { paths } = writeContainerdFiles(o);
  const readyTimeout = o.readyTimeoutMs ?? 30_000;
  const baseDelay = o.restartDelayMs ?? 500;
  const emit = o.onEvent ?? (() => {});

  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;
  let delay = baseDelay;
  let restartTimer: NodeJS.Timeout | undefined;

  const launch = (): ChildProcess => {
    const fd = openSync(paths.log, 'a');
    try {
      const argv = o.netnsPath ? ['nsenter', `--net=${o.netnsPath}`, '--', bin, '--config', paths.config] : [bin, '--config', paths.config];
      const c = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', fd, fd] });
      c.on('error', (err) => emit({ type: 'exited', message: err.message }));
      return c;
    } finally {
      closeSync(fd);
    }
  };

  const supervise = (c: ChildProcess) => {
    const startedAt = Date.now();
    c.once('exit', (code, signal) => {
      if (child === c) child = undefined;
      emit({ type: 'exited', pid: c.pid, code, signal });
      if (stopping) return;
      if (Date.now() - startedAt > 60_000) delay = baseDelay;
      emit({ type: 'restarting', message: `in ${delay} ms` });
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (stopping) return;
        restarts++;
        const n = launch();
        child = n;
        supervise(n);
        waitForSocket(paths.socket, Date.now() + readyTimeout, n, paths.log).then(
          () => emit({ type: 'started', pid: n.pid }),
          (err: Error) => emit({ type: 'exited', pid: n.pid, message: err.message }),
        );
      }, delay);
      delay = Math.min(delay * 2, 30_000);
    });
  };

  rmSync(paths.socket, { force: true });
  const first = launch();
  child = first;
  try {
    await waitForSocket(paths.socket, Date.now() + readyTimeout, first, paths.log);
  } catch (err) {
    stopping = true;
    first.kill('SIGKILL');
    throw err;
  }
  supervise(first);
  emit({ type: 'started', pid: first.pid });

  const handle: ManagedContainerd = {
    endpoint: `unix://${paths.socket}`,
    paths,
    get pid() {
      return child?.pid;
    },
    get restarts() {
      return restarts;
    },
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => c.kill('SIGKILL'), 10_000);
        c.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        c.kill('SIGTERM');
      });
    },
  };

  if (o.pauseImageLayout) {
    try {
      if (!(await hasImage(paths.socket, o.pauseImage, o.ctrBin))) await importLayout(paths.socket, o.pauseImageLayout, o.pauseImage, undefined, o.ctrBin);
    } catch (err) {
      await handle.stop();
      throw new ManagedContainerdError(`importing pause image ${o.pauseImage} from ${o.pauseImageLayout}: ${(err as Error).message}`);
    }
  }
  return handle;
}
