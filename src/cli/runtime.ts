/**
 * `k8ts runtime ps|pods|images|logs`: crictl-style inspection of a CRI runtime over
 * its socket (cri-tools is not packaged in Debian). The endpoint is
 * `--runtime-endpoint`, else `$CONTAINER_RUNTIME_ENDPOINT`, else the managed
 * containerd of `--data-dir` (`unix://<data-dir>/containerd/containerd.sock`).
 *
 * @see https://github.com/kubernetes-sigs/cri-tools/blob/master/docs/crictl.md
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { CRILabels, type Container, type Image, type PodSandbox, type Runtime } from '../cri/api.js';
import { containerdPaths } from '../cri/containerd/config.js';
import { RemoteRuntime } from '../cri/remote/remote.js';
import { parseRFC3339 } from '../apimachinery/time.js';
import { readLogs } from '../kubelet/logs/read.js';

/** The endpoint to use (see module doc). */
export function runtimeEndpoint(o: { runtimeEndpoint?: string; dataDir?: string }, env: NodeJS.ProcessEnv = process.env): string {
  if (o.runtimeEndpoint) return o.runtimeEndpoint;
  if (env['CONTAINER_RUNTIME_ENDPOINT']) return env['CONTAINER_RUNTIME_ENDPOINT'];
  return `unix://${containerdPaths(resolve(o.dataDir ?? './data')).socket}`;
}

/** "About a minute ago", "3 hours ago" … as crictl prints CREATED (from ns since epoch). */
export function ago(createdNs: number, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - createdNs / 1e6) / 1000));
  if (s < 1) return 'Less than a second ago';
  if (s < 60) return `${s} second${s === 1 ? '' : 's'} ago`;
  const m = Math.floor(s / 60);
  if (m === 1) return 'About a minute ago';
  if (m < 60) return `${m} minutes ago`;
  const h = Math.floor(m / 60);
  if (h === 1) return 'About an hour ago';
  if (h < 48) return `${h} hours ago`;
  const d = Math.floor(h / 24);
  if (d < 14) return `${d} days ago`;
  return `${Math.floor(d / 7)} weeks ago`;
}

/** Left-aligned columns separated by at least three spaces (crictl's tabwriter look). */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 3)))
      .join('')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

const short = (id: string): string => id.replace(/^sha256:/, '').slice(0, 13);
const state = (s: string): string => s.replace(/^(CONTAINER|SANDBOX)_/, '');

function humanSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0).replace(/\.?0+$/, '')}${units[i]}`;
}

/** `ps` rows: CONTAINER IMAGE CREATED STATE NAME ATTEMPT POD ID POD */
export function formatContainers(cs: Container[], pods: Map<string, PodSandbox>, nowMs: number): string {
  const rows = [...cs]
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((c) => [
      short(c.id),
      short(c.imageRef || c.image.image),
      ago(c.createdAt, nowMs),
      state(c.state),
      c.metadata.name,
      String(c.metadata.attempt),
      short(c.podSandboxId),
      pods.get(c.podSandboxId)?.metadata.name ?? c.labels[CRILabels.podName] ?? 'unknown',
    ]);
  return table(['CONTAINER', 'IMAGE', 'CREATED', 'STATE', 'NAME', 'ATTEMPT', 'POD ID', 'POD'], rows);
}

/** `pods` rows: POD ID CREATED STATE NAME NAMESPACE ATTEMPT RUNTIME */
export function formatPods(ps: PodSandbox[], nowMs: number): string {
  const rows = [...ps]
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((p) => [short(p.id), ago(p.createdAt, nowMs), state(p.state), p.metadata.name, p.metadata.namespace, String(p.metadata.attempt), p.runtimeHandler || '(default)']);
  return table(['POD ID', 'CREATED', 'STATE', 'NAME', 'NAMESPACE', 'ATTEMPT', 'RUNTIME'], rows);
}

/** `images` rows: IMAGE TAG IMAGE ID SIZE (one row per tag; untagged images show <none>). */
export function formatImages(imgs: Image[]): string {
  const rows: string[][] = [];
  for (const i of imgs) {
    const tags = i.repoTags.length ? i.repoTags : i.repoDigests.map((d) => `${d.split('@')[0]}:<none>`);
    for (const t of tags.length ? tags : ['<none>:<none>']) {
      const at = t.lastIndexOf(':');
      rows.push([t.slice(0, at), t.slice(at + 1), short(i.id), humanSize(i.size)]);
    }
  }
  rows.sort((a, b) => a[0]!.localeCompare(b[0]!) || a[1]!.localeCompare(b[1]!));
  return table(['IMAGE', 'TAG', 'IMAGE ID', 'SIZE'], rows);
}

/** Finds the container whose ID starts with `prefix`. @throws Error when none or several match */
export async function resolveContainer(rt: Runtime, prefix: string): Promise<Container> {
  const all = await rt.listContainers();
  const hits = all.filter((c) => c.id.startsWith(prefix));
  if (hits.length === 1) return hits[0]!;
  if (hits.length === 0) throw new Error(`container "${prefix}" not found`);
  throw new Error(`container ID "${prefix}" is ambiguous (${hits.length} containers match)`);
}

type Common = { runtimeEndpoint?: string; dataDir?: string; timeout?: string };

async function withRuntime<T>(o: Common, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const endpoint = runtimeEndpoint(o);
  const rt = await RemoteRuntime.connect(endpoint, { waitMs: 3000, requestTimeoutMs: Number(o.timeout ?? 10) * 1000 }).catch((e: unknown) => {
    throw new Error(`cannot connect to the runtime at ${endpoint}: ${(e as Error).message}`);
  });
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

function run(action: () => Promise<void>): Promise<void> {
  return action().catch((e: unknown) => {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  });
}

/** The `runtime` subcommand with ps, pods, images and logs (wire it with `program.addCommand(runtimeCommand())`). */
export function runtimeCommand(): Command {
  const cmd = new Command('runtime')
    .description('inspect the container runtime over CRI (like crictl): ps, pods, images, logs')
    .option('-r, --runtime-endpoint <endpoint>', 'CRI endpoint (default $CONTAINER_RUNTIME_ENDPOINT, else the managed containerd of --data-dir)')
    .option('--data-dir <dir>', 'data directory of the node whose managed containerd to use', './data')
    .option('--timeout <seconds>', 'timeout of each CRI call', '10');
  const common = (c: Command): Common => c.optsWithGlobals() as Common;

  cmd
    .command('ps')
    .description('list containers (running ones unless -a)')
    .option('-a, --all', 'show all containers')
    .option('-p, --pod <id>', 'only containers of this pod sandbox (ID prefix)')
    .option('--name <regexp>', 'only containers whose name matches')
    .option('-q, --quiet', 'only print container IDs')
    .option('-o, --output <format>', 'table or json', 'table')
    .action(function (this: Command) {
      const o = this.opts<{ all?: boolean; pod?: string; name?: string; quiet?: boolean; output: string }>();
      return run(() =>
        withRuntime(common(this), async (rt) => {
          let cs = await rt.listContainers(o.all ? undefined : { state: 'CONTAINER_RUNNING' });
          if (o.pod) cs = cs.filter((c) => c.podSandboxId.startsWith(o.pod!));
          if (o.name) cs = cs.filter((c) => new RegExp(o.name!).test(c.metadata.name));
          if (o.quiet) return void process.stdout.write(cs.map((c) => `${c.id}\n`).join(''));
          if (o.output === 'json') return void process.stdout.write(`${JSON.stringify({ containers: cs }, null, 2)}\n`);
          const pods = new Map((await rt.listPodSandbox()).map((p) => [p.id, p]));
          process.stdout.write(formatContainers(cs, pods, Date.now()));
        }),
      );
    });

  cmd
    .command('pods')
    .description('list pod sandboxes')
    .option('--name <regexp>', 'only pods whose name matches')
    .option('-n, --namespace <ns>', 'only pods of this namespace')
    .option('-q, --quiet', 'only print pod IDs')
    .option('-o, --output <format>', 'table or json', 'table')
    .action(function (this: Command) {
      const o = this.opts<{ name?: string; namespace?: string; quiet?: boolean; output: string }>();
      return run(() =>
        withRuntime(common(this), async (rt) => {
          let ps = await rt.listPodSandbox();
          if (o.name) ps = ps.filter((p) => new RegExp(o.name!).test(p.metadata.name));
          if (o.namespace) ps = ps.filter((p) => p.metadata.namespace === o.namespace);
          if (o.quiet) return void process.stdout.write(ps.map((p) => `${p.id}\n`).join(''));
          if (o.output === 'json') return void process.stdout.write(`${JSON.stringify({ items: ps }, null, 2)}\n`);
          process.stdout.write(formatPods(ps, Date.now()));
        }),
      );
    });

  cmd
    .command('images')
    .description('list images')
    .option('-q, --quiet', 'only print image IDs')
    .option('-o, --output <format>', 'table or json', 'table')
    .action(function (this: Command) {
      const o = this.opts<{ quiet?: boolean; output: string }>();
      return run(() =>
        withRuntime(common(this), async (rt) => {
          const imgs = await rt.listImages();
          if (o.quiet) return void process.stdout.write(imgs.map((i) => `${i.id}\n`).join(''));
          if (o.output === 'json') return void process.stdout.write(`${JSON.stringify({ images: imgs }, null, 2)}\n`);
          process.stdout.write(formatImages(imgs));
        }),
      );
    });

  cmd
    .command('logs')
    .description("print a container's log (from its CRI log file)")
    .argument('<container-id>', 'container ID or a unique prefix')
    .option('-f, --follow', 'keep printing while the container runs')
    .option('--tail <n>', 'only the last N lines', (v) => parseInt(v, 10))
    .option('-t, --timestamps', 'prefix lines with their timestamps')
    .option('--since <time>', 'only entries since an RFC3339 time or a relative duration (e.g. 42s, 5m, 2h)')
    .option('--limit-bytes <n>', 'stop after N bytes', (v) => parseInt(v, 10))
    .action(function (this: Command, id: string) {
      const o = this.opts<{ follow?: boolean; tail?: number; timestamps?: boolean; since?: string; limitBytes?: number }>();
      return run(() =>
        withRuntime(common(this), async (rt) => {
          const c = await resolveContainer(rt, id);
          const st = await rt.containerStatus(c.id);
          if (!st.logPath) throw new Error(`container ${c.id} has no log file`);
          let sinceMs: number | undefined;
          if (o.since) {
            const rel = /^(\d+)(s|m|h)$/.exec(o.since);
            sinceMs = rel ? Date.now() - Number(rel[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[rel[2] as 's' | 'm' | 'h'] : parseRFC3339(o.since);
            if (Number.isNaN(sinceMs)) throw new Error(`invalid --since ${JSON.stringify(o.since)}`);
          }
          await readLogs(
            st.logPath,
            { follow: !!o.follow, tailLines: o.tail !== undefined && o.tail >= 0 ? o.tail : undefined, timestamps: !!o.timestamps, sinceMs, limitBytes: o.limitBytes },
            (chunk, stream) =>
              new Promise<void>((res) => {
                (stream === 'stderr' ? process.stderr : process.stdout).write(chunk, () => res());
              }),
            { isRunning: async () => (await rt.containerStatus(c.id).catch(() => undefined))?.state === 'CONTAINER_RUNNING' },
          );
        }),
      );
    });
  return cmd;
}
