/**
 * The stand-in images of `npm run registry:local`: for each image the published example
 * manifests (test/fixtures/manifests) name and we can imitate offline, the reference as the
 * manifest writes it, where it lives on a mirror, and what the stand-in really is. All
 * are built from busybox-static and our pause.c (scripts/images/build.sh); most are the
 * stand-ins the e2e tests use (test/e2e/containerd-images.ts), a few are small shell
 * programs of our own (scripts/images/extras.ts), the rest are copies of those under
 * more names (scripts/images/copy.ts).
 *
 * A mirror serves every registry it stands in for from one namespace: containerd asks
 * it for the repository path without the registry host (`registry.k8s.io/pause:3.10` →
 * `/v2/pause/manifests/3.10`; docker.io adds `library/` to single-name images).
 */
import { publishStandIns } from '../../test/e2e/containerd-images.js';
import { copyImage } from './copy.js';
import { publishExtras } from './extras.js';

/** One stand-in image. */
export interface StandIn {
  /** the reference as the manifests write it, e.g. `nginx:1.14.2` */
  ref: string;
  /** what runs instead of the real image */
  what: string;
  /**
   * `repo:tag` on the mirror this one is copied from (pushed by publishStandIns);
   * absent when publishStandIns pushes it under its own path already
   */
  copyOf?: string;
}

/** A normalized image reference: registry host, repository path, tag. */
export interface ImageName {
  registry: string;
  /** repository path below the registry (`library/nginx`, `pause`) */
  repo: string;
  tag: string;
}

/**
 * Splits a reference the way containerd's reference docker normalization does: a first
 * component with `.` or `:` (or `localhost`) is the registry, else docker.io with
 * `library/` for single-component names; the tag defaults to `latest`.
 * @throws Error for digest references (not needed here).
 * @see https://github.com/distribution/reference/blob/v0.6.0/normalize.go
 */
export function parseImageName(ref: string): ImageName {
  if (ref.includes('@')) throw new Error(`digest references are not supported: ${ref}`);
  let rest = ref;
  let registry = 'docker.io';
  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  if (first && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    registry = first === 'index.docker.io' ? 'docker.io' : first;
    rest = rest.slice(slash + 1);
  }
  const colon = rest.lastIndexOf(':');
  const [repo, tag] = colon > 0 && !rest.slice(colon).includes('/') ? [rest.slice(0, colon), rest.slice(colon + 1)] : [rest, 'latest'];
  return { registry, repo: registry === 'docker.io' && !repo.includes('/') ? `library/${repo}` : repo, tag };
}

/** `repo:tag` of `ref` on a mirror. */
export const mirrorPath = (ref: string): string => {
  const n = parseImageName(ref);
  return `${n.repo}:${n.tag}`;
};

const BUSYBOX = 'busybox-static with every applet, plus a printenv script';
const HTTPD80 = 'busybox httpd on :80';

/** Every stand-in, in the order they are listed to the user. */
export const STAND_INS: readonly StandIn[] = [
  { ref: 'nginx:1.14.2', what: `${HTTPD80} serving "Welcome to nginx!" from /usr/share/nginx/html` },
  { ref: 'nginx', what: `${HTTPD80} serving "Welcome to nginx!" from /usr/share/nginx/html` },
  { ref: 'busybox:1.28', what: BUSYBOX },
  { ref: 'docker.io/library/busybox', what: BUSYBOX, copyOf: 'library/busybox:1.28' },
  { ref: 'registry.k8s.io/busybox:1.27.2', what: BUSYBOX },
  { ref: 'debian', what: BUSYBOX },
  { ref: 'alpine:latest', what: BUSYBOX, copyOf: 'library/busybox:1.28' },
  { ref: 'ubuntu', what: BUSYBOX, copyOf: 'library/busybox:1.28' },
  { ref: 'redis', what: 'a redis-server script that idles until SIGTERM (speaks no Redis protocol)' },
  { ref: 'redis:5', what: 'a redis-server script that idles until SIGTERM (speaks no Redis protocol)', copyOf: 'library/redis:latest' },
  { ref: 'polinux/stress', what: 'a stress script that allocates --vm-bytes with dd' },
  { ref: 'gcr.io/google-samples/node-hello:1.0', what: 'busybox httpd on :8080 answering "Hello Kubernetes!"' },
  { ref: 'registry.k8s.io/goproxy:0.1', what: 'busybox httpd on :8080' },
  { ref: 'us-docker.pkg.dev/google-samples/containers/gke/gb-frontend:v5', what: `${HTTPD80} serving a placeholder page`, copyOf: 'k8ts/httpd:1.36' },
  { ref: 'registry.k8s.io/e2e-test-images/agnhost:2.40', what: 'only `liveness`: /healthz on :8080 is 200 for 10 s, then 500 (busybox nc)' },
  { ref: 'perl', what: 'only `print bpi(N)`: N digits of pi from busybox bc' },
  { ref: 'vish/stress', what: 'only `-cpus N`: N shell busy loops' },
  { ref: 'registry.k8s.io/pause:3.10', what: 'k8ts pause (scripts/images/pause.c)' },
  { ref: 'registry.k8s.io/pause:3.6', what: 'k8ts pause (scripts/images/pause.c)', copyOf: 'pause:3.10' },
  { ref: 'registry.k8s.io/pause:3.1', what: 'k8ts pause (scripts/images/pause.c)', copyOf: 'pause:3.10' },
  { ref: 'k8s.gcr.io/pause:2.0', what: 'k8ts pause (scripts/images/pause.c)', copyOf: 'pause:3.10' },
];

/**
 * Images the example manifests name that have no stand-in (their pods end in
 * ErrImagePull / ImagePullBackOff unless the real registry is reachable).
 */
export const WITHOUT_STAND_IN: readonly string[] = ['docker.io/library/bash', 'registry.k8s.io/etcd:3.5.1-0', 'k8s.gcr.io/fluentd-elasticsearch:1.20'];

/** The registries the stand-ins come from, sorted: each gets a mirror entry. */
export function mirroredRegistries(standIns: readonly StandIn[] = STAND_INS): string[] {
  return [...new Set(standIns.map((s) => parseImageName(s.ref).registry))].sort();
}

/**
 * Builds the images (scripts/images/build.sh, cached in .tmp/images) and pushes every
 * stand-in to `registry` (`host:port`) under its mirror path. Idempotent: blobs already
 * present are not uploaded again, manifests are byte-identical across runs.
 * @throws Error from build.sh (missing gcc/umoci/busybox-static) or PushError.
 */
export async function publishLocalStandIns(registry: string): Promise<void> {
  await publishStandIns(registry);
  await publishExtras(registry);
  for (const s of STAND_INS) if (s.copyOf) await copyImage(registry, s.copyOf, mirrorPath(s.ref));
}

/**
 * k3s-format registries.yaml that sends pulls for `registries` to `endpoint`
 * (`http://127.0.0.1:5000`) first; containerd falls back to the real registry for
 * images the mirror lacks.
 * @see https://docs.k3s.io/installation/private-registry
 */
export function registriesYaml(endpoint: string, registries: readonly string[] = mirroredRegistries()): string {
  const lines = [
    '# Written by `npm run registry:local`: pulls from these registries try the local',
    `# registry ${endpoint} first, which holds STAND-IN images built from busybox-static`,
    '# (not the real nginx, redis, …). Use: npm start -- --registries <this file>',
    'mirrors:',
  ];
  for (const r of registries) lines.push(`  ${JSON.stringify(r)}:`, `    endpoint: [${JSON.stringify(endpoint)}]`);
  return lines.join('\n') + '\n';
}
