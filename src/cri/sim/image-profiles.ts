/**
 * What the simulated runtime knows of well-known images, as data: plausible sizes
 * (compressed bytes, what containerd's ImageStatus reports), the process an image
 * runs by default (shown by `ps` when the pod gives no command), the few rootfs files
 * the simulated programs read (`/etc/passwd`, `/etc/group`, a web server's document
 * root) and, for nginx-like and httpd-like images, the HTTP server they run on :80,
 * which `curl localhost` / `wget localhost` inside the pod reach.
 *
 * Rows match the last path component of the repository (`docker.io/library/nginx` →
 * `nginx`) and, optionally, a tag prefix; the first matching row wins. Unknown
 * images: {@link DEFAULT_IMAGE_SIZE} bytes, no server.
 */
import { parseImageReference } from '../../util/image-reference.js';

/** An HTTP server an image runs. */
export interface SimHttpServer {
  port: number;
  /** directory served at `/` */
  docRoot: string;
  /** `Server` header, e.g. `nginx/1.14.2` */
  server: string;
  /** page styles of error answers */
  flavor: 'nginx' | 'httpd';
  /** program names (basename) that start the server when given as the command */
  binaries: string[];
}

export interface ImageProfile {
  /** compressed image size in bytes */
  size: number;
  /** the image's default command line (ENTRYPOINT + CMD), for `ps` */
  cmd: string;
  /** rootfs files (path → content) besides the common /etc/passwd and /etc/group */
  files: Record<string, string>;
  http?: SimHttpServer;
  /** programs beyond the shell's common set that the image has (`perl`) */
  programs: ReadonlySet<string>;
}

/** Size of an image no row knows (bytes). */
export const DEFAULT_IMAGE_SIZE = 10_000_000;

const PASSWD = [
  'root:x:0:0:root:/root:/bin/sh',
  'daemon:x:1:1:daemon:/usr/sbin:/bin/false',
  'bin:x:2:2:bin:/bin:/bin/false',
  'sys:x:3:3:sys:/dev:/bin/false',
  'www-data:x:33:33:www-data:/var/www:/bin/false',
  'nobody:x:65534:65534:nobody:/home:/bin/false',
];
const GROUP = ['root:x:0:', 'daemon:x:1:', 'bin:x:2:', 'sys:x:3:', 'www-data:x:33:', 'nogroup:x:65534:'];

const NGINX_INDEX = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and working.</p>
</body>
</html>
`;

interface Row {
  repo: string | RegExp;
  tag?: string;
  size: number;
  cmd?: string;
  users?: { passwd: string; group: string }[];
  files?: Record<string, string>;
  http?: (version: string) => SimHttpServer;
  programs?: string[];
}

const nginxHttp = (v: string): SimHttpServer => ({
  port: 80,
  docRoot: '/usr/share/nginx/html',
  server: `nginx/${v || '1.27.3'}`,
  flavor: 'nginx',
  binaries: ['nginx', 'nginx-debug', 'docker-entrypoint.sh', '/docker-entrypoint.sh'],
});
const httpdHttp = (v: string): SimHttpServer => ({
  port: 80,
  docRoot: '/usr/local/apache2/htdocs',
  server: `Apache/${v || '2.4.62'} (Unix)`,
  flavor: 'httpd',
  binaries: ['httpd', 'httpd-foreground', 'apache2'],
});

const nginxUser = [{ passwd: 'nginx:x:101:101:nginx user:/nonexistent:/bin/false', group: 'nginx:x:101:' }];
const nginxFiles = { '/usr/share/nginx/html/index.html': NGINX_INDEX, '/usr/share/nginx/html/50x.html': '<html><body><h1>An error occurred.</h1></body></html>\n' };

/** The table (first match wins). */
const ROWS: Row[] = [
  { repo: 'pause', size: 320_368, cmd: '/pause' },
  { repo: 'busybox', size: 1_232_000, cmd: 'sh' },
  { repo: 'nginx', tag: '1.14', size: 44_710_000, cmd: 'nginx -g daemon off;', users: nginxUser, files: nginxFiles, http: nginxHttp },
  { repo: /^nginx/, size: 72_100_000, cmd: 'nginx -g daemon off;', users: nginxUser, files: nginxFiles, http: nginxHttp },
  {
    repo: /^httpd/,
    size: 58_200_000,
    cmd: 'httpd -DFOREGROUND',
    files: { '/usr/local/apache2/htdocs/index.html': '<html><body><h1>It works!</h1></body></html>\n' },
    http: httpdHttp,
  },
  { repo: 'alpine', size: 3_650_000, cmd: '/bin/sh' },
  { repo: 'debian', size: 48_500_000, cmd: 'bash' },
  { repo: 'ubuntu', size: 29_750_000, cmd: '/bin/bash' },
  { repo: 'perl', size: 338_000_000, cmd: 'perl -de0', programs: ['perl'] },
  // interpreters present but not simulated: as main processes they run like servers
  { repo: 'python', size: 375_000_000, cmd: 'python3', programs: ['python', 'python3'] },
  { repo: 'node', size: 390_000_000, cmd: 'node', programs: ['node', 'nodejs'] },
  { repo: 'ruby', size: 355_000_000, cmd: 'irb', programs: ['ruby'] },
  { repo: 'php', size: 190_000_000, cmd: 'php -a', programs: ['php'] },
  { repo: 'redis', size: 45_100_000, cmd: 'redis-server' },
  { repo: 'agnhost', size: 51_300_000, cmd: '/agnhost' },
];

const cache = new Map<string, ImageProfile>();
const NO_PROGRAMS: ReadonlySet<string> = new Set();

/** The profile of `image` (any spelling: `nginx`, `docker.io/library/nginx:1.14.2`, an ID → defaults). */
export function imageProfile(image: string): ImageProfile {
  const hit = cache.get(image);
  if (hit) return hit;
  let base = '';
  let tag = '';
  try {
    const ref = parseImageReference(image);
    base = ref.path.slice(ref.path.lastIndexOf('/') + 1);
    tag = ref.tag;
  } catch {
    // an image ID or digest: no profile
  }
  const row = ROWS.find((r) => (typeof r.repo === 'string' ? r.repo === base : r.repo.test(base)) && (!r.tag || tag.startsWith(r.tag)));
  const version = /^\d+\.\d+(\.\d+)?/.exec(tag)?.[0] ?? '';
  const p: ImageProfile = {
    size: row?.size ?? DEFAULT_IMAGE_SIZE,
    cmd: row?.cmd ?? (base ? `/${base}` : 'sh'),
    files: {
      '/etc/passwd': `${[...PASSWD, ...(row?.users ?? []).map((u) => u.passwd)].join('\n')}\n`,
      '/etc/group': `${[...GROUP, ...(row?.users ?? []).map((u) => u.group)].join('\n')}\n`,
      ...row?.files,
    },
    ...(row?.http ? { http: row.http(version) } : {}),
    programs: row?.programs ? new Set(row.programs) : NO_PROGRAMS,
  };
  if (cache.size > 1000) cache.clear();
  cache.set(image, p);
  return p;
}
