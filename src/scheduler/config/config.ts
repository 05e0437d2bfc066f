/**
 * KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): the `--config` file of
 * kube-scheduler. Loading = parse (YAML or JSON) → check apiVersion/kind → defaults
 * (upstream SetDefaults_KubeSchedulerConfiguration: leader election, backoff 1 s / 10 s,
 * one `default-scheduler` profile when none is given, plugins merged onto the default
 * set, default args for each plugin) → validation with upstream's field paths and
 * messages → the scheduler's options.
 *
 * @see https://kubernetes.io/docs/reference/config-api/kube-scheduler-config.v1/
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/apis/config/v1/defaults.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/apis/config/validation/validation.go
 */
import { readFileSync } from 'node:fs';
import { parse as parseYAML } from 'yaml';
import { aggregateFieldErrors, duplicate, invalid, notSupported, Path, required, type FieldError } from '../../apimachinery/field-errors.js';
import { completeProfile, DEFAULT_SCHEDULER_NAME, type PluginConfig, type Plugins, type Profile } from '../framework/profile.js';

export const GROUP_VERSION = 'kubescheduler.config.k8s.io/v1';
export const KIND = 'KubeSchedulerConfiguration';

/** Leader election settings (component-base LeaderElectionConfiguration); durations as Go strings ("15s"). */
export interface LeaderElectionConfiguration {
  leaderElect?: boolean;
  leaseDuration?: string;
  renewDeadline?: string;
  retryPeriod?: string;
  resourceLock?: string;
  resourceName?: string;
  resourceNamespace?: string;
}

/** The file's shape (fields this implementation reads; others are accepted and ignored). */
export interface KubeSchedulerConfiguration {
  apiVersion: string;
  kind: string;
  parallelism?: number;
  leaderElection?: LeaderElectionConfiguration;
  clientConnection?: { kubeconfig?: string; qps?: number; burst?: number; contentType?: string; acceptContentTypes?: string };
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds?: number;
  podMaxBackoffSeconds?: number;
  profiles?: { schedulerName?: string; percentageOfNodesToScore?: number; plugins?: Plugins; pluginConfig?: PluginConfig[] }[];
  enableProfiling?: boolean;
  enableContentionProfiling?: boolean;
  delayCacheUntilActive?: boolean;
  extenders?: unknown[];
}

/** The configuration after defaulting and validation, as the scheduler consumes it. */
export interface SchedulerConfig {
  parallelism: number;
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: Profile[];
  leaderElection: {
    leaderElect: boolean;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
    resourceLock: string;
    resourceName: string;
    resourceNamespace: string;
  };
}

/** Thrown for an unreadable or invalid configuration; `message` is what kube-scheduler prints. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Go duration string ("15s", "1m30s", "500ms") → ms; NaN when malformed. */
export function parseGoDuration(s: string): number {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(re)) {
    total += Number(m[1]) * unit[m[2]!]!;
    consumed += m[0].length;
  }
  return consumed === s.length && s.length > 0 ? total : Number.NaN;
}

/** Defaulting (v1 SetDefaults_KubeSchedulerConfiguration). Returns a new object. */
export function setDefaults(c: KubeSchedulerConfiguration): KubeSchedulerConfiguration {
  const out: KubeSchedulerConfiguration = structuredClone(c);
  out.parallelism ??= 16;
  out.podInitialBackoffSeconds ??= 1;
  out.podMaxBackoffSeconds ??= 10;
  out.percentageOfNodesToScore ??= 0;
  out.enableProfiling ??= true;
  out.enableContentionProfiling ??= true;
  const le = (out.leaderElection ??= {});
  le.leaderElect ??= true;
  le.leaseDuration ??= '15s';
  le.renewDeadline ??= '10s';
  le.retryPeriod ??= '2s';
  le.resourceLock ??= 'leases';
  le.resourceNamespace ??= 'kube-system';
  le.resourceName ??= 'kube-scheduler';
  if (!out.profiles || out.profiles.length === 0) out.profiles = [{ schedulerName: DEFAULT_SCHEDULER_NAME }];
  for (const p of out.profiles) p.schedulerName ??= DEFAULT_SCHEDULER_NAME;
  return out;
}

/** Upstream ValidateKubeSchedulerConfiguration (the checks that apply here). */
export function validate(c: KubeSchedulerConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  if ((c.parallelism ?? 0) <= 0) errs.push(invalid('parallelism', c.parallelism ?? 0, 'should be an integer value greater than zero'));
  const pct = c.percentageOfNodesToScore ?? 0;
  if (pct < 0 || pct > 100) errs.push(invalid('percentageOfNodesToScore', pct, 'not in valid range [0-100]'));
  const ib = c.podInitialBackoffSeconds ?? 1;
  const mb = c.podMaxBackoffSeconds ?? 10;
  if (ib <= 0) errs.push(invalid('podInitialBackoffSeconds', ib, 'must be greater than 0'));
  if (mb < ib) errs.push(invalid('podMaxBackoffSeconds', mb, 'must be greater than or equal to PodInitialBackoffSeconds'));
  const le = c.leaderElection ?? {};
  if (le.leaderElect) {
    const ld = parseGoDuration(le.leaseDuration ?? '');
    const rd = parseGoDuration(le.renewDeadline ?? '');
    const rp = parseGoDuration(le.retryPeriod ?? '');
    if (!(ld > 0)) errs.push(invalid('leaderElection.leaseDuration', le.leaseDuration ?? '', 'must be greater than zero'));
    if (!(rd > 0)) errs.push(invalid('leaderElection.renewDeadline', le.renewDeadline ?? '', 'must be greater than zero'));
    if (!(rp > 0)) errs.push(invalid('leaderElection.retryPeriod', le.retryPeriod ?? '', 'must be greater than zero'));
    if (ld <= rd) errs.push(invalid('leaderElection.leaseDuration', le.renewDeadline ?? '', 'LeaseDuration must be greater than RenewDeadline'));
    if (le.resourceLock && le.resourceLock !== 'leases') errs.push(notSupported('leaderElection.resourceLock', le.resourceLock, ['leases']));
    if (!le.resourceName) errs.push(required('leaderElection.resourceName'));
    if (!le.resourceNamespace) errs.push(required('leaderElection.resourceNamespace'));
  }
  const names = new Set<string>();
  let queueSort: string | undefined;
  (c.profiles ?? []).forEach((p, i) => {
    const path = Path.root('profiles').index(i);
    if (!p.schedulerName) errs.push(required(path.child('schedulerName')));
    else if (names.has(p.schedulerName)) errs.push(duplicate(path.child('schedulerName'), p.schedulerName));
    else names.add(p.schedulerName);
    const pp = p.percentageOfNodesToScore;
    if (pp !== undefined && (pp < 0 || pp > 100)) errs.push(invalid(path.child('percentageOfNodesToScore'), pp, 'not in valid range [0-100]'));
    const seen = new Set<string>();
    (p.pluginConfig ?? []).forEach((pc, j) => {
      if (seen.has(pc.name)) errs.push(duplicate(path.child('pluginConfig').index(j), pc.name));
      seen.add(pc.name);
    });
    const qs = JSON.stringify(p.plugins?.queueSort ?? null);
    if (i === 0) queueSort = qs;
    else if (qs !== queueSort) errs.push(invalid(path.child('plugins', 'queueSort'), p.plugins?.queueSort ?? null, 'queueSort must be the same for all profiles'));
    for (const [ep, set] of Object.entries(p.plugins ?? {})) {
      for (const [k, r] of (set?.enabled ?? []).entries()) {
        if (r.weight !== undefined && (r.weight < 0 || r.weight > 100)) {
          errs.push(invalid(path.child('plugins', ep, 'enabled').index(k).child('weight'), r.weight, 'not in valid range [1-100]'));
        }
      }
    }
  });
  return errs;
}

/**
 * Parses, defaults and validates a configuration document.
 *
 * @throws ConfigError with upstream-style messages (unknown apiVersion/kind, invalid fields)
 */
export function parseConfig(text: string): SchedulerConfig {
  let raw: unknown;
  try {
    raw = parseYAML(text);
  } catch (e) {
    throw new ConfigError(`couldn't decode as KubeSchedulerConfiguration: ${(e as Error).message}`);
  }
  const c = (raw ?? {}) as KubeSchedulerConfiguration;
  if (c.kind !== KIND) throw new ConfigError(`couldn't decode as KubeSchedulerConfiguration, got kind "${c.kind ?? ''}"`);
  if (c.apiVersion !== GROUP_VERSION) {
    throw new ConfigError(`no kind "${KIND}" is registered for version "${c.apiVersion ?? ''}" in scheme "pkg/scheduler/apis/config/scheme/scheme.go:31"`);
  }
  const d = setDefaults(c);
  const errs = validate(d);
  if (errs.length) throw new ConfigError(aggregateFieldErrors(errs));
  const le = d.leaderElection!;
  const profiles: Profile[] = d.profiles!.map((p) =>
    completeProfile({ schedulerName: p.schedulerName!, percentageOfNodesToScore: p.percentageOfNodesToScore, plugins: p.plugins, pluginConfig: p.pluginConfig }),
  );
  return {
    parallelism: d.parallelism!,
    percentageOfNodesToScore: d.percentageOfNodesToScore!,
    podInitialBackoffSeconds: d.podInitialBackoffSeconds!,
    podMaxBackoffSeconds: d.podMaxBackoffSeconds!,
    profiles,
    leaderElection: {
      leaderElect: le.leaderElect!,
      leaseDurationMs: parseGoDuration(le.leaseDuration!),
      renewDeadlineMs: parseGoDuration(le.renewDeadline!),
      retryPeriodMs: parseGoDuration(le.retryPeriod!),
      resourceLock: le.resourceLock!,
      resourceName: le.resourceName!,
      resourceNamespace: le.resourceNamespace!,
    },
  };
}

/** Reads and parses a configuration file. @throws ConfigError */
export function loadConfigFile(path: string): SchedulerConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`open ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  return parseConfig(text);
}
