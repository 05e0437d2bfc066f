/**
 * The expand controller (kube-controller-manager's `persistentvolume-expander`): with no
 * in-tree volume plugin able to expand a CSI volume, it tells the claim's events that an
 * external resizer is expected — a Warning `ExternalExpanding` "waiting for an external
 * controller to expand this PVC" (upstream's FindExpandablePluginBySpec fails for CSI
 * specs, which makes the event a Warning) — whenever a bound claim's request grows past
 * its status capacity. The external-resizer (controllers/csi/resizer.ts) does the rest.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/expand/expand_controller.go
 */
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../../api/resource.js';
import { parseQuantity, value } from '../../../apimachinery/quantity.js';
import { R } from '../../../client/types.js';
import { realClock } from '../../../util/clock.js';
import type { RunningController, WorkloadControllerContext } from '../../util/context.js';
import { ControllerLoop, splitKey } from '../../util/loop.js';
import { Ev } from '../persistentvolume/util.js';

type PVC = PersistentVolumeClaim & KObject;

/** upstream's AnnPreResizeCapacity (AnnotateFsResize; set by an external-resizer that annotates) */
export const ANN_PRE_RESIZE_CAPACITY = 'volume.alpha.kubernetes.io/pre-resize-capacity';
/** the event text of a claim left to an external resizer */
export const EXTERNAL_EXPANDING_MESSAGE = 'waiting for an external controller to expand this PVC';

const bytes = (q: unknown): number => (q === undefined || q === null ? 0 : value(parseQuantity(String(q))));

export async function startExpandController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers, recorder } = ctx;
  const pvcs = informers.get<PVC>(R.persistentvolumeclaims);
  const loop = new ControllerLoop({ name: 'expand-controller', clock: ctx.clock ?? realClock, workers: ctx.workers, sync: (k) => sync(k) });
  const enqueue = (c: PVC): void => {
    if (c.status?.phase === 'Bound') loop.enqueueObj(c);
  };
  // a grown request (to expand), or a grown capacity (a finished node expansion)
  pvcs.addEventHandler({
    add: enqueue,
    update: (o, c) => {
      if (bytes(c.spec?.resources?.requests?.storage) > bytes(o.spec?.resources?.requests?.storage) || bytes(c.status?.capacity?.storage) > bytes(o.status?.capacity?.storage))
        enqueue(c);
    },
  });

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const pvc = pvcs.getByName(ns, name);
    if (!pvc?.spec?.volumeName) return;
    const pv = await client.get<PersistentVolume & KObject>(R.persistentvolumes, '', pvc.spec.volumeName);
    const ref = pv.spec?.claimRef;
    if (!ref || ref.namespace !== ns || ref.uid !== pvc.metadata?.uid) throw new Error(`persistent Volume is not bound to PVC being updated : ${key}`);
    const grow = bytes(pvc.spec.resources?.requests?.storage) > bytes(pvc.status?.capacity?.storage);
    if (!grow && !Object.hasOwn(pv.metadata?.annotations ?? {}, ANN_PRE_RESIZE_CAPACITY)) return;
    // k8ts has no in-tree expandable plugin: every volume is expanded by an external resizer
    recorder.event({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: pvc.metadata }, 'Warning', Ev.ExternalExpanding, EXTERNAL_EXPANDING_MESSAGE);
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  return { stop: () => loop.stop() };
}
