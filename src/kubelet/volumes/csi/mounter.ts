/**
 * The kubelet's CSI volume plugin: sets up `csi` inline volumes and volumes backed by
 * CSI PersistentVolumes (a `persistentVolumeClaim` or generic `ephemeral` volume) by
 * calling the registered driver over its socket — waiting for the VolumeAttachment
 * when the CSIDriver requires attach, NodeStageVolume to the global mount
 * `<kubelet-dir>/plugins/kubernetes.io/csi/<driver>/<sha256(volumeHandle)>/globalmount`
 * when the driver has STAGE_UNSTAGE_VOLUME, then NodePublishVolume to
 * `<kubelet-dir>/pods/<uid>/volumes/kubernetes.io~csi/<pv-or-volume-name>/mount`, with a
 * `vol_data.json` beside it so teardown works after a kubelet restart. Teardown
 * unpublishes a pod's volumes and unstages those no other pod publishes.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_mounter.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_attacher.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/operationexecutor/operation_generator.go
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Pod, Secret, Volume } from 'kubernetes-types/core/v1.js';
import type { CSIDriver, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { isNotFound } from '../../../apimachinery/errors.js';
import type { KObject } from '../../../api/resource.js';
import { SR } from '../../../client/storage-resources.js';
import { R, type Client } from '../../../client/types.js';
import type { VolumeCapability } from '../../../csi/types.js';
import { setVolumeOwnership } from '../ownership.js';
import { CSIBlockMapper } from './block.js';
import type { CSIDrivers } from './drivers.js';
import { MountStepError } from './errors.js';
import { expandAtMount, type CSINodeExpander } from './expander.js';
import { PublishedVolumes, uniqueVolumeName, type PVCReference } from './published.js';
import { resolveVolume } from './resolve.js';

export { VOLUME_GID_ANNOTATION } from './resolve.js';

/** What {@link CSIVolumePlugin.setUp} tells the volume manager besides the path. */
export interface SetUpInfo {
  /** the PV's `pv.beta.kubernetes.io/gid` annotation, when set */
  gid?: string;
}

/** upstream's plugin directory name for CSI volumes */
export const CSI_PLUGIN_DIR = 'kubernetes.io~csi';
const EPHEMERAL_KEY = 'csi.storage.k8s.io/ephemeral';

/** What vol_data.json records (upstream's keys). */
interface VolData {
  driverName: string;
  volumeHandle: string;
  specVolID: string;
  nodeName: string;
  attachmentID?: string;
  volumeLifecycleMode: 'Persistent' | 'Ephemeral';
  /** set when the volume was staged: the staging target path */
  stagingPath?: string;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** upstream getAttachmentName: `csi-<sha256(volumeHandle + driver + node)>` */
export function attachmentName(handle: string, driver: string, node: string): string {
  return `csi-${sha256(handle + driver + node)}`;
}

export class CSIVolumePlugin {
  /** what is published on this node and which attachable volumes are in use (volume stats, node status) */
  readonly registry = new PublishedVolumes();
  /** PVs of volumeMode Block used through volumeDevices */
  readonly block: CSIBlockMapper;
  /**
   * Staging paths this kubelet has staged since it started. A `vol_data.json` left by an
   * earlier run does not prove the volume is still staged (a reboot drops mounts; the
   * runtime may have changed), so, as upstream's reconstruction marks every device mount
   * uncertain, the first mount after a start calls NodeStageVolume again (it is idempotent).
   */
  private readonly staged = new Set<string>();

  constructor(
    private readonly kubeletDir: string,
    private readonly nodeName: string,
    private readonly client: Client,
    private readonly drivers: CSIDrivers,
    private readonly log: (line: string) => void = () => undefined,
    /** NodeExpandVolume at mount time and for mounted volumes (none: never expanded on the node) */
    readonly expander?: CSINodeExpander,
  ) {
    this.block = new CSIBlockMapper(kubeletDir, nodeName, drivers, log);
  }

  /** Whether `v` is set up by this plugin. */
  handles(v: Volume): boolean {
    return !!(v.persistentVolumeClaim || v.ephemeral || v.csi);
  }

  private podVolumeDir(uid: string, specName: string): string {
    return path.join(this.kubeletDir, 'pods', uid, 'volumes', CSI_PLUGIN_DIR, specName);
  }

  private stagingPath(driver: string, handle: string): string {
    return path.join(this.kubeletDir, 'plugins', 'kubernetes.io', 'csi', driver, sha256(handle), 'globalmount');
  }

  /**
   * Sets `v` up for `pod`; returns the host path the containers get (and in `info` the
   * PV's GID annotation).
   * @throws MountStepError with upstream's event text
   */
  async setUp(pod: Pod, v: Volume, info: SetUpInfo = {}): Promise<string> {
    const r = await resolveVolume(this.client, pod, v);
    if (r.gid !== undefined) info.gid = r.gid;
    if (r.plainPath !== undefined) return r.plainPath;
    const uid = pod.metadata?.uid ?? '';
    const vol = JSON.stringify(r.specName);
    let csiDriver: CSIDriver | undefined;
    try {
      csiDriver = await this.client.get<CSIDriver & KObject>(SR.csidrivers, '', r.driver);
    } catch (e) {
      if (!isNotFound(e)) throw new MountStepError(`MountVolume.SetUp failed for volume ${vol} : ${(e as Error).message}`);
    }
    if (r.ephemeral) {
      const modes = csiDriver?.spec?.volumeLifecycleModes ?? ['Persistent'];
      if (!modes.includes('Ephemeral'))
        throw new MountStepError(
          `MountVolume.SetUp failed for volume ${vol} : volume mode "Ephemeral" not supported by driver ${r.driver} (only supports ${JSON.stringify(modes)})`,
        );
    }
    const drv = this.drivers.get(r.driver);
    if (!drv && r.block) {
      throw new MountStepError(
        `MapVolume.SetUpDevice failed for volume ${vol} : kubernetes.io/csi: blockMapper.SetUpDevice failed to get CSI client: driver name ${r.driver} not found in the list of registered CSI drivers`,
      );
    }
    if (!drv) {
      const step = r.ephemeral ? 'MountVolume.SetUp failed' : 'MountVolume.MountDevice failed';
      throw new MountStepError(
        `${step} for volume ${vol} : kubernetes.io/csi: ${r.ephemeral ? 'mounter.SetUpAt' : 'attacher.MountDevice'} failed to create newCsiDriverClient: driver name ${r.driver} not found in the list of registered CSI drivers`,
      );
    }
    const capability: VolumeCapability = { mount: { fsType: r.fsType, mountFlags: r.mountOptions }, accessMode: { mode: r.accessMode } };

    // attach: the attach/detach controller's VolumeAttachment, attached by the external-attacher
    let publishContext: Record<string, string> = {};
    let attachmentID: string | undefined;
    if (!r.ephemeral && (csiDriver ? csiDriver.spec?.attachRequired !== false : true)) {
      attachmentID = attachmentName(r.handle, r.driver, this.nodeName);
      // in use from the moment the pod wants it (upstream reports desired volumes too)
      this.registry.markInUse(uid, uniqueVolumeName(r.driver, r.handle));
      publishContext = await this.waitForAttach(vol, attachmentID, r.block ? 'MapVolume' : 'MountVolume');
    }
    if (r.block) {
      const secrets = (which: 'stage' | 'publish'): Promise<Record<string, string>> =>
        which === 'stage' ? this.secretsOf(r.stageSecretRef, 'NodeStageSecretRef') : this.secretsOf(r.publishSecretRef, 'NodePublishSecretRef');
      return this.block.setUp({ uid, r, drv, publishContext, attachmentID, secrets });
    }

    // stage (once per volume on this node)
    let stagingPath: string | undefined;
    let resized = false;
    if (!r.ephemeral && drv.nodeCapabilities.includes('STAGE_UNSTAGE_VOLUME')) {
      stagingPath = this.stagingPath(r.driver, r.handle);
      const dataFile = path.join(path.dirname(stagingPath), 'vol_data.json');
      if (!this.staged.has(stagingPath) || !fs.existsSync(dataFile)) {
        fs.mkdirSync(stagingPath, { recursive: true, mode: 0o750 });
        this.log(`kubernetes.io/csi: calling NodeStageVolume rpc [volid=${r.handle},staging_target_path=${stagingPath}]`);
        try {
          const secrets = await this.secretsOf(r.stageSecretRef, 'NodeStageSecretRef');
          await drv.client.nodeStageVolume({
            volumeId: r.handle,
            publishContext,
            stagingTargetPath: stagingPath,
            volumeCapability: capability,
            secrets,
            volumeContext: r.volumeContext,
          });
        } catch (e) {
          throw new MountStepError(`MountVolume.MountDevice failed for volume ${vol} : ${(e as Error).message}`);
        }
        const data: VolData = { driverName: r.driver, volumeHandle: r.handle, specVolID: r.specName, nodeName: this.nodeName, attachmentID, volumeLifecycleMode: 'Persistent' };
        fs.writeFileSync(dataFile, JSON.stringify(data));
        this.staged.add(stagingPath);
        resized = await expandAtMount(this.expander, 'MountVolume.MountDevice', pod, v, r.specName, { volumePath: stagingPath, stagingPath });
      }
    }

    // publish into the pod's directory
    const dir = this.podVolumeDir(uid, r.specName);
    const target = path.join(dir, 'mount');
    fs.mkdirSync(dir, { recursive: true, mode: 0o750 });
    const data: VolData = {
      driverName: r.driver,
      volumeHandle: r.handle,
      specVolID: r.specName,
      nodeName: this.nodeName,
      attachmentID,
      volumeLifecycleMode: r.ephemeral ? 'Ephemeral' : 'Persistent',
      stagingPath,
    };
    fs.writeFileSync(path.join(dir, 'vol_data.json'), JSON.stringify(data));
    const volumeContext = { ...r.volumeContext };
    if (csiDriver?.spec?.podInfoOnMount) {
      Object.assign(volumeContext, {
        'csi.storage.k8s.io/pod.name': pod.metadata?.name ?? '',
        'csi.storage.k8s.io/pod.namespace': pod.metadata?.namespace ?? '',
        'csi.storage.k8s.io/pod.uid': uid,
        'csi.storage.k8s.io/serviceAccount.name': pod.spec?.serviceAccountName ?? 'default',
        [EPHEMERAL_KEY]: String(r.ephemeral),
      });
    }
    if (r.ephemeral) volumeContext[EPHEMERAL_KEY] = 'true';
    this.log(`kubernetes.io/csi: calling NodePublishVolume rpc [volid=${r.handle},target_path=${target}]`);
    try {
      const secrets = await this.secretsOf(r.publishSecretRef, 'NodePublishSecretRef');
      await drv.client.nodePublishVolume({
        volumeId: r.handle,
        publishContext,
        stagingTargetPath: stagingPath,
        targetPath: target,
        volumeCapability: capability,
        readonly: r.readOnly,
        secrets,
        volumeContext,
      });
    } catch (e) {
      throw new MountStepError(`MountVolume.SetUp failed for volume ${vol} : ${(e as Error).message}`);
    }
    // fsGroup: the kubelet applies it unless the driver does (upstream fsGroupPolicy)
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    const policy = csiDriver?.spec?.fsGroupPolicy ?? 'ReadWriteOnceWithFSType';
    if (fsGroup !== undefined && !r.readOnly && (policy === 'File' || (policy === 'ReadWriteOnceWithFSType' && r.fsType && r.accessMode === 'SINGLE_NODE_WRITER'))) {
      const change = pod.spec?.securityContext?.fsGroupChangePolicy === 'OnRootMismatch' ? 'OnRootMismatch' : 'Always';
      setVolumeOwnership(fs.realpathSync(target), fsGroup, false, change);
    }
    this.log(`kubernetes.io/csi: mounter.SetUp successfully requested NodePublish [${target}]`);
    this.registry.add(uid, {
      pod: { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', uid },
      name: v.name,
      driver: r.driver,
      handle: r.handle,
      targetPath: target,
      pvcRef: pvcRefOf(pod, v),
    });
    if (!resized) await expandAtMount(this.expander, 'MountVolume.Setup', pod, v, r.specName, { volumePath: target, stagingPath });
    return target;
  }

  private async waitForAttach(vol: string, name: string, op: 'MountVolume' | 'MapVolume'): Promise<Record<string, string>> {
    let va: VolumeAttachment | undefined;
    try {
      va = await this.client.get<VolumeAttachment & KObject>(SR.volumeattachments, '', name);
    } catch (e) {
      // the attach/detach controller has not created it yet: wait
      throw new MountStepError(
        `${op}.WaitForAttach failed for volume ${vol} : volume ${vol} has GET error for volume attachment ${name}: ${(e as Error).message}`,
        'FailedMount',
        isNotFound(e),
      );
    }
    if (va.metadata?.deletionTimestamp) throw new MountStepError(`${op}.WaitForAttach failed for volume ${vol} : volume attachment is being deleted`);
    if (!va.status?.attached) {
      const why = va.status?.attachError?.message ? `attachment ${name} failed: ${va.status.attachError.message}` : `volume attachment ${name} is not attached yet`;
      // the attach/detach controller reports attach errors (FailedAttachVolume); the kubelet waits
      throw new MountStepError(`${op}.WaitForAttach failed for volume ${vol} : ${why}`, 'FailedMount', true);
    }
    return va.status.attachmentMetadata ?? {};
  }

  private async secretsOf(ref: { name?: string; namespace?: string } | undefined, what: string): Promise<Record<string, string>> {
    if (!ref?.name) return {};
    try {
      const s = await this.client.get<Secret & KObject>(R.secrets, ref.namespace ?? '', ref.name);
      return Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    } catch (e) {
      throw new Error(`fetching ${what} ${ref.namespace ?? ''}/${ref.name} failed: ${(e as Error).message}`);
    }
  }

  /** What is published for pod `uid` (read back from vol_data.json). */
  private published(uid: string): { dir: string; data: VolData }[] {
    const base = path.join(this.kubeletDir, 'pods', uid, 'volumes', CSI_PLUGIN_DIR);
    let names: string[] = [];
    try {
      names = fs.readdirSync(base);
    } catch {
      return [];
    }
    const out: { dir: string; data: VolData }[] = [];
    for (const n of names) {
      const dir = path.join(base, n);
      try {
        out.push({ dir, data: JSON.parse(fs.readFileSync(path.join(dir, 'vol_data.json'), 'utf8')) as VolData });
      } catch {
        // no record: nothing was published there
      }
    }
    return out;
  }

  /**
   * Unpublishes every CSI volume of pod `uid`, then unstages the volumes no other pod
   * on this node publishes.
   * @throws Error when the driver is not registered or a call fails (the cleanup is retried)
   */
  async tearDownPod(uid: string): Promise<void> {
    await this.block.tearDownPod(uid);
    const mine = this.published(uid);
    if (!mine.length) {
      this.registry.deletePod(uid);
      return;
    }
    for (const { dir, data } of mine) {
      const drv = this.drivers.mustGet(data.driverName);
      const target = path.join(dir, 'mount');
      this.log(`kubernetes.io/csi: calling NodeUnpublishVolume rpc [volid=${data.volumeHandle},target_path=${target}]`);
      try {
        await drv.client.nodeUnpublishVolume(data.volumeHandle, target);
      } catch (e) {
        throw new Error(
          `UnmountVolume.TearDown failed for volume ${JSON.stringify(data.specVolID)} (UniqueName: "kubernetes.io/csi/${data.driverName}^${data.volumeHandle}") pod ${JSON.stringify(uid)} (UID: ${JSON.stringify(uid)}) : ${(e as Error).message}`,
        );
      }
      removeRecordDir(dir, 'mount');
    }
    const others = new Set<string>();
    for (const other of fs.readdirSync(path.join(this.kubeletDir, 'pods'))) if (other !== uid) for (const p of this.published(other)) others.add(p.data.volumeHandle);
    for (const { data } of mine) {
      if (!data.stagingPath || others.has(data.volumeHandle)) continue;
      const record = path.join(path.dirname(data.stagingPath), 'vol_data.json');
      if (!fs.existsSync(record)) continue;
      const drv = this.drivers.mustGet(data.driverName);
      this.log(`kubernetes.io/csi: calling NodeUnstageVolume rpc [volid=${data.volumeHandle},staging_target_path=${data.stagingPath}]`);
      try {
        await drv.client.nodeUnstageVolume(data.volumeHandle, data.stagingPath);
      } catch (e) {
        throw new Error(`UnmountDevice failed for volume ${JSON.stringify(data.specVolID)} : ${(e as Error).message}`);
      }
      removeRecordDir(path.dirname(data.stagingPath), 'globalmount');
      this.staged.delete(data.stagingPath);
    }
    this.registry.deletePod(uid);
  }
}

/** The claim behind `v` (upstream volumeStatCalculator: the claim, or the generic ephemeral volume's `<pod>-<volume>`). */
function pvcRefOf(pod: Pod, v: Volume): PVCReference | undefined {
  const namespace = pod.metadata?.namespace ?? '';
  if (v.persistentVolumeClaim) return { name: v.persistentVolumeClaim.claimName, namespace };
  if (v.ephemeral) return { name: `${pod.metadata?.name ?? ''}-${v.name}`, namespace };
  return undefined;
}

/**
 * Removes a volume directory holding vol_data.json and the (now unpublished) `sub`
 * directory — never recursively, so nothing still mounted there is deleted.
 */
function removeRecordDir(dir: string, sub: string): void {
  fs.rmSync(path.join(dir, 'vol_data.json'), { force: true });
  for (const d of [path.join(dir, sub), dir]) {
    try {
      fs.rmdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}
