/**
 * Leader election of the in-process kube-scheduler and kube-controller-manager: the
 * flags both binaries share (`--leader-elect`, `--leader-elect-lease-duration`,
 * `--leader-elect-renew-deadline`, `--leader-elect-retry-period`, component-base's
 * names and defaults 15 s / 10 s / 2 s) and the wiring that runs a component only
 * while this server holds its Lease (`kube-system/kube-scheduler`,
 * `kube-system/kube-controller-manager`), identity `<hostname>_<uuid>`.
 *
 * @see https://github.com/kubernetes/component-base/blob/v0.32.0/config/options/leaderelectionconfig.go
 * @see https://github.com/kubernetes/component-base/blob/v0.32.0/config/validation/validation.go (ValidateLeaderElectionConfiguration)
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { ClientEventRecorder } from '../client/events.js';
import { runLeaderElected, type LeaderElectedComponent, type StartedComponent } from '../client/leader-elected.js';
import type { Client } from '../client/types.js';
import { parseGoDuration } from '../util/duration.js';
import type { Logger } from '../util/klog.js';

/** Leader election settings of one component (durations in ms). */
export interface LeaderElectionSettings {
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** component-base's defaults (SetDefaults_LeaderElectionConfiguration). */
export const DEFAULT_LEADER_ELECTION: LeaderElectionSettings = { leaderElect: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** Registers the leader election flags on `cmd` (values parsed by {@link leaderElectionFrom}). */
export function addLeaderElectionOptions(cmd: Command): Command {
  return cmd
    .option(
      '--leader-elect [bool]',
      'start a leader election client and gain leadership before running the scheduler and the controller manager (kube-system Leases kube-scheduler, kube-controller-manager); needed with several servers on one storage',
    )
    .option(
      '--leader-elect-lease-duration <duration>',
      'the duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot',
      '15s',
    )
    .option('--leader-elect-renew-deadline <duration>', 'the interval between attempts by the acting leader to renew a leadership slot before it stops leading', '10s')
    .option('--leader-elect-retry-period <duration>', 'the duration the clients should wait between attempting acquisition and renewal of a leadership', '2s');
}

/** The raw values of {@link addLeaderElectionOptions}' flags, as commander names them. */
export interface LeaderElectionFlagValues {
  leaderElect?: string | boolean;
  leaderElectLeaseDuration?: string;
  leaderElectRenewDeadline?: string;
  leaderElectRetryPeriod?: string;
}

/** Go's strconv.ParseBool. */
function parseBool(flag: string, v: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false;
  throw new Error(`invalid argument ${JSON.stringify(v)} for "--${flag}" flag: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

/**
 * Parses and validates the flags.
 * @throws Error with pflag's text for an unparsable value (`invalid argument "x" for
 *   "--leader-elect-lease-duration" flag: time: invalid duration "x"`) and
 *   component-base's validation messages (`leaderElection.leaseDuration: Invalid value:
 *   "10s": LeaseDuration must be greater than RenewDeadline`)
 */
export function leaderElectionFrom(o: LeaderElectionFlagValues): LeaderElectionSettings {
  const leaderElect = o.leaderElect === undefined || o.leaderElect === true ? true : parseBool('leader-elect', String(o.leaderElect));
  const duration = (flag: string, v: string | undefined, dflt: string): { ms: number; text: string } => {
    const text = v ?? dflt;
    try {
      return { ms: parseGoDuration(text), text };
    } catch (err) {
      throw new Error(`invalid argument ${JSON.stringify(text)} for "--${flag}" flag: ${(err as Error).message}`);
    }
  };
  const lease = duration('leader-elect-lease-duration', o.leaderElectLeaseDuration, '15s');
  const renew = duration('leader-elect-renew-deadline', o.leaderElectRenewDeadline, '10s');
  const retry = duration('leader-elect-retry-period', o.leaderElectRetryPeriod, '2s');
  if (leaderElect) {
    const errs: string[] = [];
    if (!(lease.ms > 0)) errs.push(`leaderElection.leaseDuration: Invalid value: ${JSON.stringify(lease.text)}: must be greater than zero`);
    if (!(renew.ms > 0)) errs.push(`leaderElection.renewDeadline: Invalid value: ${JSON.stringify(renew.text)}: must be greater than zero`);
    if (!(retry.ms > 0)) errs.push(`leaderElection.retryPeriod: Invalid value: ${JSON.stringify(retry.text)}: must be greater than zero`);
    if (lease.ms <= renew.ms) errs.push(`leaderElection.leaseDuration: Invalid value: ${JSON.stringify(renew.text)}: LeaseDuration must be greater than RenewDeadline`);
    // client-go refuses what the validation lets through: renewDeadline must exceed retryPeriod × 1.2
    if (renew.ms > 0 && retry.ms > 0 && renew.ms <= 1.2 * retry.ms) errs.push('renewDeadline must be greater than retryPeriod*JitterFactor');
    if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  }
  return { leaderElect, leaseDurationMs: lease.ms, renewDeadlineMs: renew.ms, retryPeriodMs: retry.ms };
}

/** A candidate identity as kube-scheduler and kube-controller-manager build it: `<hostname>_<uuid>`. */
export function leaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

export interface ElectedComponentOptions {
  /** the Lease in kube-system: `kube-scheduler` or `kube-controller-manager` */
  leaseName: string;
  leaseNamespace?: string;
  /** the component's own client (its identity may get and update its Lease) */
  client: Client;
  /** the event source of the LeaderElection events (`default-scheduler`, `kube-controller-manager` as upstream) */
  eventSource: string;
  settings: LeaderElectionSettings;
  logger: Logger;
  /** starts one term of the component */
  start(): Promise<StartedComponent>;
}

/** A component started at once or behind its Lease. */
export interface ElectedComponent {
  /** the election, when `--leader-elect` is on */
  election?: LeaderElectedComponent;
  stop(): Promise<void>;
}

/**
 * Starts the component behind its Lease when `settings.leaderElect` (waiting only for
 * the first attempt to acquire: an absent or released Lease is taken at once), else
 * at once.
 */
export async function startElectedComponent(o: ElectedComponentOptions): Promise<ElectedComponent> {
  if (!o.settings.leaderElect) {
    const c = await o.start();
    return { stop: () => c.stop() };
  }
  const election = runLeaderElected({
    election: {
      client: o.client,
      namespace: o.leaseNamespace ?? 'kube-system',
      name: o.leaseName,
      identity: leaderIdentity(),
      leaseDurationMs: o.settings.leaseDurationMs,
      renewDeadlineMs: o.settings.renewDeadlineMs,
      retryPeriodMs: o.settings.retryPeriodMs,
      recorder: new ClientEventRecorder(o.client, { component: o.eventSource }),
      logger: o.logger,
    },
    start: o.start,
  });
  await election.firstAttempt;
  return { election, stop: () => election.stop() };
}
