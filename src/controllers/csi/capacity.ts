/**
 * The external-provisioner's storage capacity tracking (`--enable-capacity` with
 * `--node-deployment`): for each StorageClass of this driver, a CSIStorageCapacity in
 * `kube-system` for this node's topology segment, with the driver's GetCapacity answer,
 * refreshed every minute and when classes change. The scheduler's VolumeBinding plugin
 * reads them for drivers whose CSIDriver has `storageCapacity: true`.
 *
 * @see https://github.com/kubernetes-csi/external-provisioner/blob/master/pkg/capacity/capacity.go
 */
import { createHash } from 'node:crypto';
import type { CSINode, CSIStorageCapacity, StorageClass } from 'kubernetes-types/storage/v1.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import { isNotFound } from '../../apimachinery/errors.js';
import type { KObject } from '../../api/resource.js';
import { SR } from '../../client/storage-resources.js';
import { R } from '../../client/types.js';
import { realClock, type TimerHandle } from '../../util/clock.js';
import { bytesQuantity, type SidecarContext } from './common.js';
import { SharedInformers } from '../util/informers.js';
import type { RunningController } from '../util/context.js';

/** where the capacities live (upstream: the provisioner's namespace) */
const NAMESPACE = 'kube-system';
/** upstream --capacity-poll-interval */
const POLL_MS = 60_000;
const CSISC = { group: 'storage.k8s.io', version: 'v1', resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true } as const;

export async function startCapacityTracking(ctx: SidecarContext): Promise<RunningController> {
  const { client, csi, driverName, nodeName } = ctx;
  const clock = ctx.clock ?? realClock;
  const informers = new SharedInformers(client, { clock });
  const classes = informers.get<StorageClass & KObject>(SR.storageclasses);
  let timer: TimerHandle | undefined;
  let stopped = false;
  let running: Promise<boolean> = Promise.resolve(true);
  const refresh = (): Promise<boolean> =>
    (running = running
      .then(() => publish())
      .catch((e: unknown) => {
        ctx.log?.(`capacity: ${(e as Error).message}`);
        return false;
      }));
  classes.addEventHandler({ add: () => void refresh(), update: () => void refresh() });

  async function segments(): Promise<Record<string, string>> {
    const [node, csiNode] = await Promise.all([client.get<Node & KObject>(R.nodes, '', nodeName), client.get<CSINode & KObject>(SR.csinodes, '', nodeName)]);
    const keys = csiNode.spec?.drivers?.find((d) => d.name === driverName)?.topologyKeys ?? [];
    return Object.fromEntries(keys.map((k) => [k, node.metadata?.labels?.[k] ?? '']));
  }

  /** @returns false when the node's topology is not known yet (the driver has not registered) */
  async function publish(): Promise<boolean> {
    if (stopped) return true;
    const mine = classes.list().filter((c) => c.provisioner === driverName);
    if (!mine.length) return true;
    const csiNode = await client.get<CSINode & KObject>(SR.csinodes, '', nodeName).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (!csiNode?.spec?.drivers?.some((d) => d.name === driverName)) return false;
    const seg = await segments();
    for (const cls of mine) {
      const clsName = cls.metadata?.name ?? '';
      const bytes = await csi.getCapacity({ segments: seg }, cls.parameters ?? {});
      const name = `csisc-${createHash('sha256').update(`${driverName}/${nodeName}/${clsName}`).digest('hex').slice(0, 12)}`;
      const want: CSIStorageCapacity & KObject = {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSIStorageCapacity',
        metadata: { name, namespace: NAMESPACE, labels: { 'csi.storage.k8s.io/drivername': driverName, 'csi.storage.k8s.io/managed-by': `external-provisioner-${nodeName}` } },
        storageClassName: clsName,
        nodeTopology: { matchLabels: seg },
        capacity: bytesQuantity(bytes),
      };
      const cur = await client.get<CSIStorageCapacity & KObject>(CSISC, NAMESPACE, name).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
      if (!cur) await client.create(CSISC, NAMESPACE, want);
      else if (cur.capacity !== want.capacity) await client.update(CSISC, NAMESPACE, { ...cur, capacity: want.capacity });
    }
    return true;
  }

  informers.start();
  await informers.waitForSync();
  // every minute; every second until the driver has registered on the node
  const loop = (): void => {
    if (stopped) return;
    void refresh().then((done) => {
      if (!stopped) timer = clock.setTimeout(loop, done ? POLL_MS : 1000);
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      if (timer) clock.clearTimeout(timer);
      informers.stop();
      await running;
    },
  };
}
