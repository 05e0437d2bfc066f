/**
 * The kubelet's CSI block volume mapper: a PV with `volumeMode: Block` used through a
 * container's `volumeDevices` is staged with a `block` VolumeCapability at
 * `<kubelet-dir>/plugins/kubernetes.io/csi/volumeDevices/staging/<pv>` (when the driver
 * has STAGE_UNSTAGE_VOLUME), published to the file
 * `<kubelet-dir>/plugins/kubernetes.io/csi/volumeDevices/publish/<pv>/<pod-uid>` (the
 * driver puts the device there), and linked into the pod at
 * `<kubelet-dir>/pods/<uid>/volumeDevices/kubernetes.io~csi/<pv>` — the host path of the
 * CRI device the container gets. The driver name and handle are kept in
 * `…/volumeDevices/<pv>/data/vol_data.json` so teardown works after a kubelet restart.
 * Teardown unpublishes the pod's devices and unstages those no other pod publishes.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_block.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/operationexecutor/operation_generator.go (GenerateMapVolumeFunc)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { VolumeCapability } from '../../../csi/types.js';
import type { CSIDriverEntry, CSIDrivers } from './drivers.js';
import { MountStepError } from './errors.js';
import type { Resolved } from './resolve.js';

/** upstream's plugin directory name for CSI volumes */
const CSI_PLUGIN_DIR = 'kubernetes.io~csi';

/** What `…/volumeDevices/<pv>/data/vol_data.json` records (upstream's keys). */
interface BlockVolData {
  driverName: string;
  volumeHandle: string;
  specVolID: string;
  nodeName: string;
  attachmentID?: string;
  volumeLifecycleMode: 'Persistent';
  /** set when the volume was staged */
  stagingPath?: string;
}

/** What {@link CSIBlockMapper.setUp} needs beyond the resolved volume. */
export interface BlockSetUp {
  uid: string;
  r: Resolved;
  drv: CSIDriverEntry;
  publishContext: Record<string, string>;
  attachmentID?: string;
  /** the secrets of NodeStageSecretRef / NodePublishSecretRef (fetched on demand) */
  secrets: (which: 'stage' | 'publish') => Promise<Record<string, string>>;
}

/** upstream utilstrings.EscapeQualifiedName: `/` → `~` */
const escape = (name: string): string => name.replaceAll('/', '~');

export class CSIBlockMapper {
  /**
   * Volumes (their vol_data.json) this kubelet has staged since it started: after a restart
   * the record does not prove the device is still staged (a reboot detaches loop devices),
   * so the first map calls NodeStageVolume again, as upstream's uncertain reconstructed devices.
   */
  private readonly staged = new Set<string>();

  constructor(
    private readonly kubeletDir: string,
    private readonly nodeName: string,
    private readonly drivers: CSIDrivers,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** `<kubelet-dir>/plugins/kubernetes.io/csi/volumeDevices` */
  private pluginDir(): string {
    return path.join(this.kubeletDir, 'plugins', 'kubernetes.io', 'csi', 'volumeDevices');
  }

  /** upstream getStagingPath: `…/volumeDevices/staging/<pv>` */
  stagingPath(specName: string): string {
    return path.join(this.pluginDir(), 'staging', escape(specName));
  }

  /** upstream getPublishPath: `…/volumeDevices/publish/<pv>/<pod-uid>` */
  publishPath(specName: string, uid: string): string {
    return path.join(this.pluginDir(), 'publish', escape(specName), uid);
  }

  /** upstream GetPodDeviceMapPath joined: `<kubelet-dir>/pods/<uid>/volumeDevices/kubernetes.io~csi/<pv>` */
  podDevicePath(uid: string, specName: string): string {
    return path.join(this.kubeletDir, 'pods', uid, 'volumeDevices', CSI_PLUGIN_DIR, specName);
  }

  private dataFile(specName: string): string {
    return path.join(this.pluginDir(), escape(specName), 'data', 'vol_data.json');
  }

  /**
   * Stages (once per volume on this node) and publishes the block volume for the pod;
   * returns the pod's device path (a symbolic link to the publish path).
   * @throws MountStepError `MapVolume.SetUpDevice failed …` / `MapVolume.MapPodDevice failed …`
   */
  async setUp(i: BlockSetUp): Promise<string> {
    const { r, drv, uid } = i;
    const vol = JSON.stringify(r.specName);
    const capability: VolumeCapability = { block: {}, accessMode: { mode: r.accessMode } };
    const dataFile = this.dataFile(r.specName);
    let stagingPath: string | undefined;
    if (drv.nodeCapabilities.includes('STAGE_UNSTAGE_VOLUME')) stagingPath = this.stagingPath(r.specName);
    if (!this.staged.has(dataFile) || !fs.existsSync(dataFile)) {
      if (stagingPath) {
        fs.mkdirSync(stagingPath, { recursive: true, mode: 0o750 });
        this.log(`kubernetes.io/csi: calling NodeStageVolume rpc [volid=${r.handle},staging_target_path=${stagingPath}]`);
        try {
          await drv.client.nodeStageVolume({
            volumeId: r.handle,
            publishContext: i.publishContext,
            stagingTargetPath: stagingPath,
            volumeCapability: capability,
            secrets: await i.secrets('stage'),
            volumeContext: r.volumeContext,
          });
        } catch (e) {
          throw new MountStepError(`MapVolume.SetUpDevice failed for volume ${vol} : ${(e as Error).message}`);
        }
        this.log(`kubernetes.io/csi: blockMapper.stageVolumeForBlock successfully requested NodeStageVolume [${stagingPath}]`);
      }
      const data: BlockVolData = {
        driverName: r.driver,
        volumeHandle: r.handle,
        specVolID: r.specName,
        nodeName: this.nodeName,
        attachmentID: i.attachmentID,
        volumeLifecycleMode: 'Persistent',
        stagingPath,
      };
      fs.mkdirSync(path.dirname(dataFile), { recursive: true, mode: 0o750 });
      fs.writeFileSync(dataFile, JSON.stringify(data));
      this.staged.add(dataFile);
    }

    const publishPath = this.publishPath(r.specName, uid);
    // the CO makes the parent; the driver makes the file and puts the device there
    fs.mkdirSync(path.dirname(publishPath), { recursive: true, mode: 0o750 });
    this.log(`kubernetes.io/csi: calling NodePublishVolume rpc [volid=${r.handle},target_path=${publishPath}]`);
    try {
      await drv.client.nodePublishVolume({
        volumeId: r.handle,
        publishContext: i.publishContext,
        stagingTargetPath: stagingPath,
        targetPath: publishPath,
        volumeCapability: capability,
        readonly: r.readOnly,
        secrets: await i.secrets('publish'),
        volumeContext: r.volumeContext,
      });
    } catch (e) {
      throw new MountStepError(`MapVolume.MapPodDevice failed for volume ${vol} : ${(e as Error).message}`);
    }
    // upstream MapBlockVolume: a symbolic link named after the PV in the pod's device directory
    const link = this.podDevicePath(uid, r.specName);
    fs.mkdirSync(path.dirname(link), { recursive: true, mode: 0o750 });
    let current: string | undefined;
    try {
      current = fs.readlinkSync(link);
    } catch {
      // not linked yet
    }
    if (current !== publishPath) {
      fs.rmSync(link, { force: true });
      fs.symlinkSync(publishPath, link);
    }
    this.log(`kubernetes.io/csi: blockMapper.MapPodDevice successfully requested NodePublishVolume [${publishPath}]`);
    return link;
  }

  /**
   * Unpublishes every block volume of pod `uid`, then unstages those no other pod on this
   * node publishes.
   * @throws Error when the driver is not registered or a call fails (the cleanup is retried)
   */
  async tearDownPod(uid: string): Promise<void> {
    const dir = path.join(this.kubeletDir, 'pods', uid, 'volumeDevices', CSI_PLUGIN_DIR);
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const spec of names) {
      const link = path.join(dir, spec);
      let data: BlockVolData | undefined;
      try {
        data = JSON.parse(fs.readFileSync(this.dataFile(spec), 'utf8')) as BlockVolData;
      } catch {
        // no record: nothing was staged or published for it
      }
      if (data) await this.unmap(uid, spec, data);
      fs.rmSync(link, { force: true });
    }
    for (const d of [dir, path.dirname(dir)]) rmdirIfEmpty(d);
  }

  private async unmap(uid: string, spec: string, data: BlockVolData): Promise<void> {
    const publishPath = this.publishPath(spec, uid);
    const unique = `kubernetes.io/csi/${data.driverName}^${data.volumeHandle}`;
    if (exists(publishPath)) {
      const drv = this.drivers.mustGet(data.driverName);
      this.log(`kubernetes.io/csi: calling NodeUnpublishVolume rpc [volid=${data.volumeHandle},target_path=${publishPath}]`);
      try {
        await drv.client.nodeUnpublishVolume(data.volumeHandle, publishPath);
      } catch (e) {
        throw new Error(
          `UnmapVolume.UnmapPodDevice failed for volume ${JSON.stringify(spec)} (UniqueName: ${JSON.stringify(unique)}) pod ${JSON.stringify(uid)} : ${(e as Error).message}`,
        );
      }
    }
    const publishDir = path.dirname(publishPath);
    let others: string[] = [];
    try {
      others = fs.readdirSync(publishDir).filter((n) => n !== uid);
    } catch {
      // already gone
    }
    if (others.length) return; // another pod still has the device
    rmdirIfEmpty(publishDir);
    if (data.stagingPath && exists(data.stagingPath)) {
      const drv = this.drivers.mustGet(data.driverName);
      this.log(`kubernetes.io/csi: calling NodeUnstageVolume rpc [volid=${data.volumeHandle},staging_target_path=${data.stagingPath}]`);
      try {
        await drv.client.nodeUnstageVolume(data.volumeHandle, data.stagingPath);
      } catch (e) {
        throw new Error(`UnmapDevice failed for volume ${JSON.stringify(spec)} (UniqueName: ${JSON.stringify(unique)}) : ${(e as Error).message}`);
      }
      // upstream unstageVolumeForBlock: the staging path goes once the driver has unstaged it
      fs.rmSync(data.stagingPath, { recursive: true, force: true });
    }
    fs.rmSync(path.dirname(path.dirname(this.dataFile(spec))), { recursive: true, force: true });
    this.staged.delete(this.dataFile(spec));
  }
}

/** Does `p` exist (a dangling symbolic link counts)? */
function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Removes directory `d` when it is empty (never recursively: nothing still mounted below is deleted). */
function rmdirIfEmpty(d: string): void {
  try {
    fs.rmdirSync(d);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY') throw e;
  }
}
