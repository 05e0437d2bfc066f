/**
 * The ephemeral volume controller: for each generic `ephemeral` volume of a pod it
 * creates the claim `<pod name>-<volume name>` from the volume's
 * volumeClaimTemplate, owned (controller) by the pod, so the claim is deleted with the
 * pod by the garbage collector. A claim of that name the pod does not own is left alone
 * (the scheduler reports it).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/ephemeral/controller.go
 */
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { isAlreadyExists } from '../../../apimachinery/errors.js';
import type { KObject } from '../../../api/resource.js';
import { R } from '../../../client/types.js';
import { realClock } from '../../../util/clock.js';
import type { RunningController, WorkloadControllerContext } from '../../util/context.js';
import { ControllerLoop, splitKey } from '../../util/loop.js';

type PodObj = Pod & KObject;

export async function startEphemeralVolumeController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers, recorder } = ctx;
  const pods = informers.get<PodObj>(R.pods);
  const pvcs = informers.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims);
  const loop = new ControllerLoop({ name: 'ephemeral-volume-controller', clock: ctx.clock ?? realClock, workers: ctx.workers, sync: (k) => sync(k) });
  const consider = (p: PodObj): void => {
    if (!p.metadata?.deletionTimestamp && (p.spec?.volumes ?? []).some((v) => v.ephemeral)) loop.enqueueObj(p);
  };
  pods.addEventHandler({ add: consider, update: (_o, p) => consider(p) });
  pvcs.addEventHandler({
    delete: (c) => {
      const owner = c.metadata?.ownerReferences?.find((o) => o.controller && o.kind === 'Pod');
      if (owner) loop.enqueue(`${c.metadata?.namespace ?? ''}/${owner.name}`);
    },
  });

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const pod = pods.getByName(ns, name);
    if (!pod || pod.metadata?.deletionTimestamp) return;
    for (const v of pod.spec?.volumes ?? []) {
      if (!v.ephemeral) continue;
      const claimName = `${name}-${v.name}`;
      const have = pvcs.getByName(ns, claimName);
      if (have) {
        if (!have.metadata?.ownerReferences?.some((o) => o.controller && o.uid === pod.metadata?.uid))
          recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata }, 'Warning', 'FailedBinding', `PVC ${ns}/${claimName} was not created for the pod`);
        continue;
      }
      const tpl = v.ephemeral.volumeClaimTemplate;
      const claim: PersistentVolumeClaim & KObject = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: claimName,
          namespace: ns,
          labels: tpl?.metadata?.labels,
          annotations: tpl?.metadata?.annotations,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
        },
        spec: tpl?.spec,
      };
      try {
        await client.create(R.persistentvolumeclaims, ns, claim);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  return { stop: () => loop.stop() };
}
