/**
 * The Debian packages the real-container, registry and etcd tests need
 * (scripts/install-deps.sh installs them), each with a file it provides, so a test can
 * say in one line which package is missing and how to install it: tests that need a
 * package fail without it, they never skip. scripts/test.mjs checks the same list
 * before a run.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A Debian package and a file that proves it is installed. */
interface Probe {
  /** a program looked up on PATH (plus /usr/sbin, /sbin) */
  program?: string;
  /** or absolute paths, any of which proves it */
  files?: readonly string[];
}

/** Every package of scripts/install-deps.sh, with its probe. */
export const PACKAGES = {
  containerd: { program: 'containerd' },
  runc: { program: 'runc' },
  'containernetworking-plugins': { files: ['/usr/lib/cni/bridge', '/opt/cni/bin/bridge', '/usr/libexec/cni/bridge'] },
  'busybox-static': { program: 'busybox' },
  umoci: { program: 'umoci' },
  gcc: { program: 'gcc' },
  'libc6-dev': { files: ['/usr/include/stdio.h'] },
  'docker-registry': { program: 'docker-registry' },
  'etcd-server': { program: 'etcd' },
  'etcd-client': { program: 'etcdctl' },
  iproute2: { program: 'ip' },
  iptables: { program: 'iptables' },
  mount: { program: 'losetup' },
  chromium: { program: 'chromium' },
} as const satisfies Record<string, Probe>;

/** A package name of {@link PACKAGES}. */
export type DebianPackage = keyof typeof PACKAGES;

/** What a real-container test needs: the runtime, the CNI plugins and the tools of the host network. */
export const CONTAINERD_PACKAGES: readonly DebianPackage[] = ['containerd', 'runc', 'containernetworking-plugins', 'iproute2', 'iptables'];
/** What a test etcd needs: the server, and etcdctl for reads and snapshots. */
export const ETCD_PACKAGES: readonly DebianPackage[] = ['etcd-server', 'etcd-client'];
/** What scripts/images/build.sh needs to build the offline test images. */
export const IMAGE_BUILD_PACKAGES: readonly DebianPackage[] = ['gcc', 'libc6-dev', 'busybox-static', 'umoci'];

function accessible(p: string, mode: number): boolean {
  try {
    accessSync(p, mode);
    return true;
  } catch {
    return false;
  }
}

function installed(probe: Probe): boolean {
  if (probe.files) return probe.files.some((f) => accessible(f, constants.R_OK));
  const dirs = (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).concat(['/usr/sbin', '/sbin']);
  return dirs.some((d) => d !== '' && accessible(join(d, probe.program!), constants.X_OK));
}

/** The packages of `names` (default: all of them) that are not installed, in the order given. */
export function missingPackages(names: readonly DebianPackage[] = Object.keys(PACKAGES) as DebianPackage[]): DebianPackage[] {
  return names.filter((n) => !installed(PACKAGES[n]));
}

/**
 * Throws when a package of `names` is missing.
 * @param what what needs them, e.g. "the test containerd"
 * @throws Error, one line: `<what> needs the Debian package(s) a b: install them with \`sudo scripts/install-deps.sh\``
 */
export function requirePackages(names: readonly DebianPackage[], what: string): void {
  const missing = missingPackages(names);
  if (missing.length) {
    throw new Error(`${what} needs the Debian package${missing.length > 1 ? 's' : ''} ${missing.join(' ')}: install with \`sudo scripts/install-deps.sh\``);
  }
}

/**
 * Throws unless this process runs as root (a private containerd, network namespaces and cgroups need it).
 * @throws Error, one line naming `what` and how to run the tests as root
 */
export function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) throw new Error(`${what} needs root (containerd, network namespaces, cgroups): run the tests as root, e.g. \`sudo npm test\``);
}
