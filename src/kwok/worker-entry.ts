/**
 * The kwok node pool's worker thread (see worker.ts): the pool, its pod lifecycle and its
 * Stage engine run here, a client of the API server's thread over a MessagePort (the
 * same requests and watches a remote kwok would send), with lease renewals handed to the
 * server's lease store in batches (lease-port.ts). Bundled as dist/kwok-worker.mjs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PortTransport } from '../apiserver/port-transport.js';
import { ClientEventRecorder } from '../client/events.js';
import { RestClient } from '../client/rest-client.js';
import { startKwok } from './index.js';
import { portLeaseRenewer } from './lease-port.js';
import { readKwokStages } from './stage/stage.js';
import type { FromKwokWorker, KwokWorkerData, ToKwokWorker } from './worker.js';

const d = workerData as KwokWorkerData;
const post = (m: FromKwokWorker): void => parentPort!.postMessage(m);
const client = new RestClient(new PortTransport(d.api), { userAgent: d.userAgent });
const stages = d.stageFiles.length ? d.stageFiles.flatMap(readKwokStages) : undefined;
const kwok = startKwok({
  client,
  count: d.count,
  clusterCIDR: d.clusterCIDR,
  firstSubnet: d.firstSubnet,
  renewer: d.leases ? portLeaseRenewer(d.leases) : undefined,
  stages,
  recorder: new ClientEventRecorder(client, { component: 'kwok-controller' }),
});
kwok.registered.then(
  () => post({ t: 'registered' }),
  (e: unknown) => post({ t: 'error', message: `registering the kwok nodes: ${e instanceof Error ? e.message : String(e)}` }),
);
parentPort!.on('message', (m: ToKwokWorker) => {
  if (m.t !== 'stop') return;
  void kwok.stop().then(() => {
    d.api.close();
    d.leases?.close();
    parentPort!.close();
  });
});
