/**
 * The external-provisioner's role, built in and run per node (its `--node-deployment`
 * mode): for claims of a StorageClass whose provisioner is this driver — once the PV
 * controller has handed them over (`volume.kubernetes.io/storage-provisioner`) and, for
 * WaitForFirstConsumer, the scheduler picked this node (`volume.kubernetes.io/selected-node`)
 * — it calls CreateVolume over the driver's socket with the claim's size, access modes
 * and the node's topology, and creates the PersistentVolume (`pvc-<claim uid>`, node
 * affinity from the volume's topology, the class's reclaim policy and mount options)
 * for the PV controller to bind. Released volumes with reclaim policy Delete are
 * deleted with DeleteVolume, then the PV object.
 *
 * @see https://github.com/kubernetes-csi/external-provisioner/blob/master/pkg/controller/controller.go
 * @see https://github.com/kubernetes-sigs/sig-storage-lib-external-provisioner/blob/master/controller/controller.go
 */
import type { Node, PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { CSINode, StorageClass } from 'kubernetes-types/storage/v1.js';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import type { KObject } from '../../api/resource.js';
import { SR } from '../../client/storage-resources.js';
import { R } from '../../client/types.js';
import type { VolumeCapability } from '../../csi/types.js';
import { realClock } from '../../util/clock.js';
import { csiAccessModeOf } from '../../csi/access-modes.js';
import { bytesQuantity, quantityBytes, volumeOnNode, type SidecarContext } from './common.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { SharedInformers } from '../util/informers.js';
import type { RunningController } from '../util/context.js';
import { ANN_BETA_STORAGE_PROVISIONER, ANN_DYNAMICALLY_PROVISIONED, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, Ev } from '../volume/persistentvolume/util.js';

type PVC = PersistentVolumeClaim & KObject;
type PV = PersistentVolume & KObject;

/** the finalizer the external-provisioner puts on the volumes it made */
export const PROVISIONER_FINALIZER = 'external-provisioner.volume.kubernetes.io/finalizer';
/** StorageClass parameter prefix reserved for the provisioner itself */
const RESERVED_PREFIX = 'csi.storage.k8s.io/';
const FSTYPE_KEY = 'csi.storage.k8s.io/fstype';

const pvcRef = (c: PVC): KObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: c.metadata });
const pvRef = (v: PV): KObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: v.metadata });

export async function startExternalProvisioner(ctx: SidecarContext): Promise<RunningController> {
  const { client, csi, driverName, nodeName, recorder } = ctx;
  const log = ctx.log ?? (() => undefined);
  const clock = ctx.clock ?? realClock;
  const informers = new SharedInformers(client, { clock });
  const pvcs = informers.get<PVC>(R.persistentvolumeclaims);
  const pvs = informers.get<PV>(R.persistentvolumes);
  const classes = informers.get<StorageClass & KObject>(SR.storageclasses);
  const claims = new ControllerLoop({ name: 'external-provisioner', clock, workers: 2, sync: (k) => syncClaim(k) });
  const volumes = new ControllerLoop({ name: 'external-provisioner', clock, workers: 2, sync: (k) => syncVolume(k) });
  pvcs.addEventHandler({ add: (c) => claims.enqueueObj(c), update: (_o, c) => claims.enqueueObj(c) });
  pvs.addEventHandler({ add: (v) => volumes.enqueueObj(v), update: (_o, v) => volumes.enqueueObj(v) });

  const myNode = (): Promise<Node & KObject> => client.get<Node & KObject>(R.nodes, '', nodeName);

  async function syncClaim(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    let pvc = pvcs.getByName(ns, name);
    if (!pvc || pvc.spec?.volumeName || pvc.metadata?.deletionTimestamp) return;
    const ann = pvc.metadata?.annotations ?? {};
    if (ann[ANN_STORAGE_PROVISIONER] !== driverName && ann[ANN_BETA_STORAGE_PROVISIONER] !== driverName) return;
    const cls = classes.getByName('', pvc.spec?.storageClassName ?? '');
    if (!cls || cls.provisioner !== driverName) return;
    const selected = ann[ANN_SELECTED_NODE];
    if (cls.volumeBindingMode === 'WaitForFirstConsumer') {
      if (selected !== nodeName) return;
    } else if (selected && selected !== nodeName) return;
    else if (!selected) {
      // Immediate binding with node-local storage: this node claims it (a conflict means another node won)
      pvc = await client.update<PVC>(R.persistentvolumeclaims, ns, { ...pvc, metadata: { ...pvc.metadata, annotations: { ...ann, [ANN_SELECTED_NODE]: nodeName } } });
    }
    const pvName = `pvc-${pvc.metadata?.uid ?? ''}`;
    if (pvs.getByName('', pvName)) return;
    recorder.event(pvcRef(pvc), 'Normal', Ev.Provisioning, `External provisioner is provisioning volume for claim "${ns}/${name}"`);
    try {
      const pv = await provision(pvc, cls, pvName);
      try {
        await client.create(R.persistentvolumes, '', pv);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      log(`successfully created PV ${pvName} for PVC ${ns}/${name} and csi volume name ${pv.spec?.csi?.volumeHandle}`);
      recorder.event(pvcRef(pvc), 'Normal', Ev.ProvisioningSucceeded, `Successfully provisioned volume ${pvName}`);
    } catch (e) {
      recorder.event(
        pvcRef(pvc),
        'Warning',
        Ev.ProvisioningFailed,
        `failed to provision volume with StorageClass ${JSON.stringify(cls.metadata?.name ?? '')}: ${(e as Error).message}`,
      );
      throw e;
    }
  }

  async function provision(pvc: PVC, cls: StorageClass, pvName: string): Promise<PV> {
    const params = cls.parameters ?? {};
    const fsType = params[FSTYPE_KEY] ?? '';
    const parameters = Object.fromEntries(Object.entries(params).filter(([k]) => !k.startsWith(RESERVED_PREFIX)));
    const accessModes = pvc.spec?.accessModes ?? ['ReadWriteOnce'];
    const volumeMode = pvc.spec?.volumeMode ?? 'Filesystem';
    const caps: VolumeCapability[] = accessModes.map((m) => ({
      ...(volumeMode === 'Block' ? { block: {} } : { mount: { fsType, mountFlags: cls.mountOptions ?? [] } }),
      accessMode: { mode: csiAccessModeOf(m) },
    }));
    // the node's topology for this driver: the keys in CSINode, the values from the Node's labels
    const [node, csiNode] = await Promise.all([myNode(), client.get<CSINode & KObject>(SR.csinodes, '', nodeName)]);
    const keys = csiNode.spec?.drivers?.find((d) => d.name === driverName)?.topologyKeys ?? [];
    const segments = Object.fromEntries(keys.map((k) => [k, node.metadata?.labels?.[k] ?? '']));
    const topo = keys.length ? { requisite: [{ segments }], preferred: [{ segments }] } : null;
    const requiredBytes = quantityBytes(pvc.spec?.resources?.requests?.storage as string | undefined);
    const limit = pvc.spec?.resources?.limits?.storage as string | undefined;
    const vol = await csi.createVolume({
      name: pvName,
      capacityRange: { requiredBytes, limitBytes: limit ? quantityBytes(limit) : 0 },
      volumeCapabilities: caps,
      parameters,
      secrets: {},
      accessibilityRequirements: topo,
    });
    const affinityTerms = (vol.accessibleTopology ?? []).map((t) => ({
      matchExpressions: Object.entries(t.segments)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, v]) => ({ key, operator: 'In' as const, values: [v] })),
    }));
    const m = pvc.metadata ?? {};
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {
        name: pvName,
        annotations: {
          [ANN_DYNAMICALLY_PROVISIONED]: driverName,
          'volume.kubernetes.io/provisioner-deletion-secret-name': '',
          'volume.kubernetes.io/provisioner-deletion-secret-namespace': '',
        },
        finalizers: [PROVISIONER_FINALIZER],
      },
      spec: {
        accessModes,
        capacity: { storage: bytesQuantity(vol.capacityBytes || requiredBytes) },
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: m.namespace, name: m.name, uid: m.uid, resourceVersion: m.resourceVersion },
        csi: {
          driver: driverName,
          volumeHandle: vol.volumeId,
          ...(fsType ? { fsType } : {}),
          volumeAttributes: { ...vol.volumeContext, 'storage.kubernetes.io/csiProvisionerIdentity': `${driverName}-${nodeName}` },
        },
        persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
        storageClassName: cls.metadata?.name,
        volumeMode,
        ...(cls.mountOptions?.length ? { mountOptions: cls.mountOptions } : {}),
        ...(affinityTerms.length ? { nodeAffinity: { required: { nodeSelectorTerms: affinityTerms } } } : {}),
      },
    };
  }

  async function syncVolume(key: string): Promise<void> {
    const [, name] = splitKey(key);
    const pv = pvs.getByName('', name);
    if (!pv || pv.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== driverName || pv.spec?.csi?.driver !== driverName) return;
    const released = pv.status?.phase === 'Released' || pv.status?.phase === 'Failed';
    const deleting = !!pv.metadata?.deletionTimestamp;
    if (!released && !deleting) return;
    if (!volumeOnNode(pv, await myNode())) return;
    const policy = pv.spec?.persistentVolumeReclaimPolicy;
    if (policy === 'Delete' && pv.status?.phase === 'Released') {
      try {
        await csi.deleteVolume(pv.spec.csi.volumeHandle);
      } catch (e) {
        recorder.event(pvRef(pv), 'Warning', Ev.VolumeFailedDelete, (e as Error).message);
        throw e;
      }
      log(`volume ${name} deleted`);
      const fresh = await dropFinalizer(pv);
      if (fresh && !fresh.metadata?.deletionTimestamp) await client.delete(R.persistentvolumes, '', name).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
      return;
    }
    // Retain (or not released yet): only let a deletion through
    if (deleting && pv.status?.phase !== 'Bound') await dropFinalizer(pv);
  }

  async function dropFinalizer(pv: PV): Promise<PV | undefined> {
    if (!pv.metadata?.finalizers?.includes(PROVISIONER_FINALIZER)) return pv;
    try {
      return await client.update<PV>(R.persistentvolumes, '', {
        ...pv,
        metadata: { ...pv.metadata, finalizers: pv.metadata.finalizers.filter((f) => f !== PROVISIONER_FINALIZER) },
      });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  informers.start();
  await informers.waitForSync();
  claims.run();
  volumes.run();
  return {
    async stop() {
      await claims.stop();
      await volumes.stop();
      informers.stop();
    },
  };
}
