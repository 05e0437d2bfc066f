/**
 * Runs a component only while this process holds its leader-election Lease, as
 * kube-scheduler and kube-controller-manager do with `--leader-elect`: the process is
 * a candidate; once it acquires the Lease it starts the component; when it loses the
 * Lease (no renewal within the renew deadline, or another holder) it stops the
 * component at once and becomes a candidate again. Upstream's binaries exit on a lost
 * Lease and are restarted by their supervisor; an in-process component is stopped and
 * re-elected instead, with the same identity.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/cmd/kube-scheduler/app/server.go (Run: leader election)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/cmd/kube-controller-manager/app/controllermanager.go (leaderElectAndRun)
 */
import { LeaderElector, type LeaderElectionConfig } from './leaderelection.js';

/** A started component. */
export interface StartedComponent {
  stop(): Promise<void>;
}

export interface LeaderElectedOptions {
  /** the election (Lease, identity, timings, clock, events, log); its callbacks are this module's */
  election: Omit<LeaderElectionConfig, 'onStartedLeading' | 'onStoppedLeading' | 'onAcquireAttempt'>;
  /** starts one term of the component; called each time the Lease is acquired */
  start(): Promise<StartedComponent>;
  /** told when a term ended because the Lease was lost (not on stop) */
  onLost?(): void;
}

export interface LeaderElectedComponent {
  /**
   * Settles after the first attempt to acquire: once the component started when that
   * attempt won the Lease (an absent or released Lease is taken at once), else as soon
   * as the attempt failed. A single server therefore starts as fast as without election.
   */
  firstAttempt: Promise<void>;
  /** resolves the first time this process leads and its component started */
  leading: Promise<void>;
  /** whether the component runs now (this process holds the Lease) */
  isLeader(): boolean;
  /** the holder last observed in the Lease ('' before the first read) */
  holder(): string;
  /** stops the component (if running) and releases the Lease */
  stop(): Promise<void>;
}

/**
 * Starts campaigning for the Lease; see {@link LeaderElectedComponent}.
 * @throws Error when the timings are inconsistent (client-go's messages, see LeaderElector)
 */
export function runLeaderElected(o: LeaderElectedOptions): LeaderElectedComponent {
  let stopped = false;
  let elector: LeaderElector | undefined;
  let component: Promise<StartedComponent | undefined> = Promise.resolve(undefined);
  let running = false;
  let settleFirst!: () => void;
  const firstAttempt = new Promise<void>((r) => (settleFirst = r));
  let resolveLeading!: () => void;
  const leading = new Promise<void>((r) => (resolveLeading = r));
  let attempts = 0;

  const stopComponent = async (): Promise<void> => {
    const c = component;
    component = Promise.resolve(undefined);
    running = false;
    await (await c)?.stop();
  };

  const newElector = (): LeaderElector =>
    new LeaderElector({
      ...o.election,
      onAcquireAttempt: (acquired) => {
        if (attempts++ === 0 && !acquired) settleFirst();
      },
      onStartedLeading: () => {
        if (stopped) return;
        running = true;
        component = o.start().then(
          (c) => {
            resolveLeading();
            settleFirst();
            return c;
          },
          (err: unknown) => {
            o.election.logger?.error(err, 'failed to start the leader-elected component', { lock: elector?.lock });
            settleFirst();
            return undefined;
          },
        );
      },
      onStoppedLeading: () => undefined,
    });
  const term = async (): Promise<void> => {
    elector ??= newElector();
    await elector.run();
    const wasRunning = running;
    await stopComponent();
    if (!stopped && wasRunning) {
      o.election.logger?.error(new Error('leaderelection lost'), 'Leaderelection lost', { lock: elector.lock });
      o.onLost?.();
    }
    if (!stopped) elector = newElector();
  };
  // the first elector is made here, so that inconsistent timings throw to the caller
  elector = newElector();

  const loop = (async () => {
    while (!stopped) await term();
    settleFirst();
  })();

  return {
    firstAttempt,
    leading,
    isLeader: () => running,
    holder: () => elector?.observedHolder() ?? '',
    async stop() {
      stopped = true;
      settleFirst();
      // stop the component first (it must not act after the Lease is released), then the elector
      await stopComponent();
      await elector?.stop();
      await loop;
    },
  };
}
