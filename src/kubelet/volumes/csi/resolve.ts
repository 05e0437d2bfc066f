/**
 * Resolves a pod volume the kubelet's CSI plugin sets up — a `csi` inline volume, or a
 * `persistentVolumeClaim` / generic `ephemeral` volume through its bound claim's PV — to
 * the driver, volume handle and options of the CSI calls.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_util.go
 */
import { createHash } from 'node:crypto';
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../../api/resource.js';
import { R, type Client } from '../../../client/types.js';
import { csiAccessModeOf } from '../../../csi/access-modes.js';
import type { AccessModeName } from '../../../csi/types.js';
import { setUpHostPath } from '../host-path.js';
import { MountStepError } from './errors.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** A volume resolved to what the driver needs. */
export interface Resolved {
  /** the name in events and the directory name: the PV name, or the pod volume name for inline volumes */
  specName: string;
  driver: string;
  handle: string;
  readOnly: boolean;
  fsType: string;
  mountOptions: string[];
  accessMode: AccessModeName;
  volumeContext: Record<string, string>;
  stageSecretRef?: { name?: string; namespace?: string };
  publishSecretRef?: { name?: string; namespace?: string };
  ephemeral: boolean;
  /** a non-CSI PV usable as a plain path (hostPath, local) */
  plainPath?: string;
  /** the PV's volumeMode is Block: a raw block device (block.ts), not a mount */
  block?: boolean;
  /** the PV's `pv.beta.kubernetes.io/gid` annotation */
  gid?: string;
}

/** The PV annotation whose GID the pod's containers get as a supplemental group (upstream VolumeGidAnnotationKey). */
export const VOLUME_GID_ANNOTATION = 'pv.beta.kubernetes.io/gid';

/**
 * The volume's driver, handle and options (for PVC-backed volumes through the claim's
 * PV), checking that a Block PV is used through volumeDevices and a Filesystem one
 * through volumeMounts (upstream desiredStateOfWorldPopulator.createVolumeSpec).
 * @throws MountStepError with upstream's `Unable to attach or mount volumes: …` text
 */
export async function resolveVolume(client: Client, pod: Pod, v: Volume): Promise<Resolved> {
  if (v.csi) {
    return {
      specName: v.name,
      driver: v.csi.driver,
      handle: `csi-${sha256((pod.metadata?.uid ?? '') + v.name)}`,
      readOnly: !!v.csi.readOnly,
      fsType: v.csi.fsType ?? '',
      mountOptions: [],
      accessMode: 'SINGLE_NODE_WRITER',
      volumeContext: { ...(v.csi.volumeAttributes ?? {}) },
      publishSecretRef: v.csi.nodePublishSecretRef ? { name: v.csi.nodePublishSecretRef.name, namespace: pod.metadata?.namespace } : undefined,
      ephemeral: true,
    };
  }
  const ns = pod.metadata?.namespace ?? '';
  const claimName = v.persistentVolumeClaim?.claimName ?? `${pod.metadata?.name ?? ''}-${v.name}`;
  const fail = (msg: string): never => {
    throw new MountStepError(
      `Unable to attach or mount volumes: unmounted volumes=[${v.name}], unattached volumes=[], failed to process volumes=[${v.name}]: error processing PVC ${ns}/${claimName}: ${msg}`,
    );
  };
  let pvc: PersistentVolumeClaim | undefined;
  try {
    pvc = await client.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims, ns, claimName);
  } catch (e) {
    fail(`failed to fetch PVC from API server: ${(e as Error).message}`);
  }
  if (pvc!.metadata?.deletionTimestamp) fail("can't start pod because PVC is being deleted");
  const pvName = pvc!.spec?.volumeName;
  if (!pvName || pvc!.status?.phase !== 'Bound') fail('PVC is not bound');
  let pv: PersistentVolume | undefined;
  try {
    pv = await client.get<PersistentVolume & KObject>(R.persistentvolumes, '', pvName!);
  } catch (e) {
    fail(`failed to fetch PV ${pvName} from API server: ${(e as Error).message}`);
  }
  const claimRef = pv!.spec?.claimRef;
  if (claimRef?.uid && claimRef.uid !== pvc!.metadata?.uid) fail(`PVC's volume ${pvName} is bound to a different claim`);
  const readOnly = !!v.persistentVolumeClaim?.readOnly;
  const spec = pv!.spec ?? {};
  const volumeMode = spec.volumeMode ?? 'Filesystem';
  const { mounted, mapped } = usesOf(pod, v.name);
  if (mounted && volumeMode !== 'Filesystem') fail(`volume ${v.name} has volumeMode ${volumeMode}, but is specified in volumeMounts`);
  if (mapped && volumeMode !== 'Block') fail(`volume ${v.name} has volumeMode ${volumeMode}, but is specified in volumeDevices`);
  const gid = pv!.metadata?.annotations?.[VOLUME_GID_ANNOTATION];
  if (spec.hostPath) return { ...noCSI(pvName!), plainPath: setUpHostPath(spec.hostPath), gid };
  if (spec.local) return { ...noCSI(pvName!), plainPath: spec.local.path, gid };
  if (!spec.csi) {
    throw new MountStepError(
      `MountVolume.SetUp failed for volume ${JSON.stringify(pvName)} : kubernetes.io/csi: persistent volume ${pvName} is not a CSI volume and k8ts has no in-tree plugin for it`,
    );
  }
  return {
    specName: pvName!,
    driver: spec.csi.driver,
    handle: spec.csi.volumeHandle,
    readOnly: readOnly || !!spec.csi.readOnly,
    fsType: spec.csi.fsType ?? '',
    mountOptions: spec.mountOptions ?? [],
    accessMode: csiAccessModeOf(spec.accessModes?.[0]),
    volumeContext: { ...(spec.csi.volumeAttributes ?? {}) },
    stageSecretRef: spec.csi.nodeStageSecretRef,
    publishSecretRef: spec.csi.nodePublishSecretRef,
    ephemeral: false,
    block: volumeMode === 'Block',
    gid,
  };
}

/** Whether any container (init containers included) names volume `name` in volumeMounts / volumeDevices. */
export function usesOf(pod: Pod, name: string): { mounted: boolean; mapped: boolean } {
  const cs = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return {
    mounted: cs.some((c) => (c.volumeMounts ?? []).some((m) => m.name === name)),
    mapped: cs.some((c) => (c.volumeDevices ?? []).some((d) => d.name === name)),
  };
}

function noCSI(specName: string): Resolved {
  return { specName, driver: '', handle: '', readOnly: false, fsType: '', mountOptions: [], accessMode: 'SINGLE_NODE_WRITER', volumeContext: {}, ephemeral: false };
}
