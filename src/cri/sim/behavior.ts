/**
 * What the simulated runtime does, described as data (in the manner of kwok stages):
 * delays and outcomes per image (name rules) and per pod (an annotation).
 *
 * Sources, later ones overriding earlier ones field by field:
 * 1. built-in image-name rules ({@link builtinImageRules}), matched on the tag as
 *    written in the pod spec (`busybox:exit-1`) — handy in manifests;
 * 2. rules passed in `SimRuntimeOptions.imageRules` (glob on the image reference);
 * 3. the pod annotation `sim.k8ts.io/behavior`: JSON {@link SimBehavior}, e.g.
 *    `{"pull":{"delayMs":1500},"containers":{"app":{"exitAfterMs":2000,"exitCode":1}}}`.
 *
 * @see https://kwok.sigs.k8s.io/docs/user/configuration-stage/
 */
import type { CRIErrorCode } from '../api.js';

/** The pod annotation read by the simulated runtime. */
export const BehaviorAnnotation = 'sim.k8ts.io/behavior';

/** Image pull outcome. */
export interface SimPullBehavior {
  /** ms PullImage takes (default: SimRuntimeOptions.defaultPullDelayMs) */
  delayMs?: number;
  /** fail the pull with this CRI error message (as a registry would answer) */
  error?: string;
  /** gRPC code of the failure; default 'NotFound' */
  code?: CRIErrorCode;
  /** image size in bytes */
  sizeBytes?: number;
}

/** One container's behaviour. Unset fields fall back to the command's own behaviour. */
export interface SimContainerBehavior {
  /** ms CreateContainer takes */
  createDelayMs?: number;
  /** CreateContainer fails with this message */
  createError?: string;
  /** ms StartContainer takes */
  startDelayMs?: number;
  /** StartContainer fails with this message (container ends Exited, exit code 128, reason StartError) */
  startError?: string;
  /** the process exits after this many ms of running, whatever its command does */
  exitAfterMs?: number;
  /** exit code used with exitAfterMs (default 0) */
  exitCode?: number;
  /** exit as OOM-killed (exit code 137, reason OOMKilled) after exitAfterMs (default 1000) */
  oomKilled?: boolean;
  /** the process ignores SIGTERM: StopContainer waits the full timeout, exit code 137 */
  ignoreSigterm?: boolean;
  /** lines written to stdout when the process starts */
  logs?: string[];
}

/** The full behaviour description of one pod / image. */
export interface SimBehavior {
  pull?: SimPullBehavior;
  /** RunPodSandbox delay / failure */
  sandbox?: { delayMs?: number; error?: string };
  /** applies to every container of the pod (below `containers[name]`) */
  container?: SimContainerBehavior;
  /** per container name */
  containers?: Record<string, SimContainerBehavior>;
}

/** An image rule: `match` is a glob (`*` any run of characters) on the image as written, or a RegExp. */
export interface SimImageRule {
  match: string | RegExp;
  behavior: SimBehavior | ((m: RegExpMatchArray) => SimBehavior);
}

/**
 * Built-in rules on the image tag (any repository):
 * - `…:fail-pull` (tag contains "fail-pull" or "no-such-tag") → pull fails NotFound like a registry:
 *   `failed to pull and unpack image "docker.io/library/x:fail-pull": failed to resolve reference …: not found`
 * - `…pull-<N>ms` → the pull takes N ms
 * - `…exit-<C>` / `…exit-<C>-after-<N>ms` → the process exits with code C after N ms (default 1000)
 * - `…oom` / `…oom-after-<N>ms` → the process is OOM-killed after N ms (default 1000)
 * - `…start-fail` → StartContainer fails (StartError, exit code 128)
 * - `…ignore-sigterm` → the process ignores SIGTERM
 */
export const builtinImageRules: SimImageRule[] = [
  { match: /:[^/]*(?:fail-pull|no-such-tag)/, behavior: { pull: { code: 'NotFound', error: 'not found' } } },
  { match: /:[^/]*pull-(\d+)ms/, behavior: (m) => ({ pull: { delayMs: Number(m[1]) } }) },
  {
    match: /:[^/]*exit-(\d+)(?:-after-(\d+)ms)?/,
    behavior: (m) => ({ container: { exitCode: Number(m[1]), exitAfterMs: m[2] ? Number(m[2]) : 1000 } }),
  },
  { match: /:[^/]*oom(?:-after-(\d+)ms)?/, behavior: (m) => ({ container: { oomKilled: true, exitAfterMs: m[1] ? Number(m[1]) : 1000 } }) },
  {
    match: /:[^/]*start-fail/,
    behavior: {
      container: {
        startError: 'failed to create containerd task: failed to create shim task: OCI runtime create failed: exec: "simulated": executable file not found in $PATH: unknown',
      },
    },
  },
  { match: /:[^/]*ignore-sigterm/, behavior: { container: { ignoreSigterm: true } } },
];

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
}

function merge(into: SimBehavior, b: SimBehavior): void {
  if (b.pull) into.pull = { ...into.pull, ...b.pull };
  if (b.sandbox) into.sandbox = { ...into.sandbox, ...b.sandbox };
  if (b.container) into.container = { ...into.container, ...b.container };
  if (b.containers) {
    into.containers ??= {};
    for (const [k, v] of Object.entries(b.containers)) into.containers[k] = { ...into.containers[k], ...v };
  }
}

/** Parses the pod annotation; invalid JSON yields an empty behaviour (the pod runs normally). */
export function behaviorFromAnnotations(annotations: Record<string, string> | undefined): SimBehavior {
  const raw = annotations?.[BehaviorAnnotation];
  if (!raw) return {};
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === 'object' ? (v as SimBehavior) : {};
  } catch {
    return {};
  }
}

/** The behaviour for `image` (as written) in a pod with `annotations`, rules applied in order. */
export function resolveBehavior(image: string, annotations: Record<string, string> | undefined, extraRules: SimImageRule[] = []): SimBehavior {
  const out: SimBehavior = {};
  for (const rule of [...builtinImageRules, ...extraRules]) {
    const re = typeof rule.match === 'string' ? globToRegExp(rule.match) : rule.match;
    const m = re.exec(image);
    if (m) merge(out, typeof rule.behavior === 'function' ? rule.behavior(m) : rule.behavior);
  }
  merge(out, behaviorFromAnnotations(annotations));
  return out;
}

/** The effective behaviour of container `name`. */
export function containerBehavior(b: SimBehavior, name: string): SimContainerBehavior {
  return { ...b.container, ...b.containers?.[name] };
}
