/**
 * Worker-thread entry of the scheduler benchmark: runs the scheduler against the API
 * server of the parent thread through a PortTransport, reports bound pods, and on
 * request the per-extension-point totals and its event-loop utilization.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { RestClient } from '../src/client/rest-client.js';
import { startScheduler } from '../src/scheduler/index.js';
import { threadCpuSeconds } from './scheduler-cpu.js';
import { PortTransport } from './scheduler-port.js';

/** Messages from the parent. */
export type ToWorker = { t: 'measure' } | { t: 'finish' } | { t: 'stop' };
/** Messages to the parent. */
export type FromWorker = { t: 'ready' } | { t: 'bound'; n: number } | { t: 'totals'; totals: [string, number][]; elu: number; heapMiB: number; cpu: number };

async function main(): Promise<void> {
  const port = (workerData as { port: MessagePort }).port;
  const client = new RestClient(new PortTransport(port), { userAgent: 'kube-scheduler/bench' });
  const running = await startScheduler({ client });
  let pending = 0;
  let scheduled = false;
  running.scheduler.onBound = () => {
    pending++;
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        parentPort!.postMessage({ t: 'bound', n: pending } satisfies FromWorker);
        pending = 0;
      });
    }
  };
  let elu0 = performance.eventLoopUtilization();
  let cpu0 = threadCpuSeconds();
  // BENCH_SCHED_PROFILE=<file.cpuprofile>: a CPU profile of this thread over the measured phase
  const profileTo = process.env.BENCH_SCHED_PROFILE;
  let session: Session | undefined;
  // BENCH_SCHED_HEAP_PROFILE=<file.heapprofile>: sampled allocations of this thread over the measured phase
  const heapTo = process.env.BENCH_SCHED_HEAP_PROFILE;
  let heapSession: Session | undefined;
  parentPort!.on('message', (m: ToWorker) => {
    if (m.t === 'measure') {
      running.metrics.extensionPointTotals.clear();
      elu0 = performance.eventLoopUtilization();
      cpu0 = threadCpuSeconds();
      if (profileTo) {
        session = new Session();
        session.connect();
        session.post('Profiler.enable', () => session!.post('Profiler.start'));
      }
      if (heapTo) {
        heapSession = new Session();
        heapSession.connect();
        heapSession.post('HeapProfiler.enable', () =>
          heapSession!.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }),
        );
      }
    } else if (m.t === 'finish') {
      heapSession?.post('HeapProfiler.stopSampling', (err, res) => {
        if (!err) writeFileSync(heapTo!, JSON.stringify(res.profile));
        heapSession!.disconnect();
      });
      session?.post('Profiler.stop', (err, res) => {
        if (!err) writeFileSync(profileTo!, JSON.stringify(res.profile));
        session!.disconnect();
      });
      const elu = performance.eventLoopUtilization(elu0).utilization;
      parentPort!.postMessage({
        t: 'totals',
        totals: [...running.metrics.extensionPointTotals],
        elu,
        heapMiB: process.memoryUsage().heapUsed / 1048576,
        cpu: threadCpuSeconds() - cpu0,
      } satisfies FromWorker);
    } else {
      void running.stop().then(() => process.exit(0));
    }
  });
  parentPort!.postMessage({ t: 'ready' } satisfies FromWorker);
}

void main();
