/**
 * The kubelet's CSI plugin registration handler (upstream csi_plugin.go
 * RegistrationHandler and nodeinfomanager): keeps the registered drivers (name →
 * socket, client, node capabilities); registering calls NodeGetInfo and records the
 * driver's node ID, topology keys and volume limit in this node's CSINode (created,
 * owned by the Node, at kubelet start as upstream's nodeinfomanager does, and again if it
 * is missing when a driver registers) and its topology segments as Node labels;
 * deregistering removes the driver from CSINode.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_plugin.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/nodeinfomanager/nodeinfomanager.go
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { CSINode, CSINodeDriver } from 'kubernetes-types/storage/v1.js';
import { isAlreadyExists, isNotFound } from '../../../apimachinery/errors.js';
import { SR } from '../../../client/storage-resources.js';
import { R, type Client } from '../../../client/types.js';
import type { KObject } from '../../../api/resource.js';
import { CSIClient } from '../../../csi/client.js';

/** A registered driver. */
export interface CSIDriverEntry {
  name: string;
  endpoint: string;
  client: CSIClient;
  nodeId: string;
  /** NodeServiceCapability RPC types (`STAGE_UNSTAGE_VOLUME` …) */
  nodeCapabilities: string[];
}

/** The error upstream's kubelet reports for a driver that is not registered. */
export function driverNotFound(name: string): Error {
  return new Error(`driver name ${name} not found in the list of registered CSI drivers`);
}

export class CSIDrivers {
  private readonly drivers = new Map<string, CSIDriverEntry>();

  /**
   * @param log the kubelet's log at `--v=4` (registrations and CSI calls are logged there)
   * @param grpcLog the log of every request and response on the driver's socket (`--v=5`)
   */
  constructor(
    private readonly client: Client,
    private readonly nodeName: string,
    private readonly log: (line: string) => void = () => undefined,
    private readonly grpcLog: (line: string) => void = () => undefined,
  ) {}

  get(name: string): CSIDriverEntry | undefined {
    return this.drivers.get(name);
  }

  /** @throws Error `driver name X not found in the list of registered CSI drivers` */
  mustGet(name: string): CSIDriverEntry {
    const d = this.drivers.get(name);
    if (!d) throw driverNotFound(name);
    return d;
  }

  names(): string[] {
    return [...this.drivers.keys()];
  }

  /**
   * Upstream InitializeCSINodeWithAnnotation: this node's CSINode (no drivers), owned by
   * the Node. With the Node's UID (the kubelet's start) it is one create, an existing
   * CSINode left as it is; without, the CSINode and the Node are read first.
   * @throws the API error of the create (other than AlreadyExists) or of the reads
   */
  async initializeCSINode(nodeUID?: string): Promise<void> {
    if (nodeUID === undefined) {
      try {
        await this.client.get(SR.csinodes, '', this.nodeName);
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      nodeUID = (await this.client.get<Node & KObject>(R.nodes, '', this.nodeName)).metadata?.uid ?? '';
    }
    const obj: CSINode & KObject = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name: this.nodeName, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: nodeUID }] },
      spec: { drivers: [] },
    };
    await this.client.create(SR.csinodes, '', obj).catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
  }

  /**
   * Upstream ValidatePlugin: the driver must support CSI 1.x.
   * @throws Error naming the versions offered
   */
  validate(name: string, versions: string[]): void {
    if (!versions.some((v) => /^v?1(\.|$)/.test(v)))
      throw new Error(`RegisterPlugin error -- no supported version of CSI driver ${JSON.stringify(name)} found in ${JSON.stringify(versions)}`);
  }

  /**
   * Upstream RegisterPlugin: NodeGetInfo and NodeGetCapabilities over the driver's socket,
   * then CSINode and the Node's topology labels.
   * @throws CSIError from the driver, or the API error of the CSINode update
   */
  async register(name: string, endpoint: string): Promise<void> {
    const client = new CSIClient(endpoint, { log: (l) => this.grpcLog(`kubernetes.io/csi: ${l}`) });
    try {
      const info = await client.nodeGetInfo();
      const caps = await client.nodeGetCapabilities();
      const segments = info.accessibleTopology?.segments ?? {};
      if (Object.keys(segments).length) await this.client.patch(R.nodes, '', this.nodeName, 'merge', { metadata: { labels: segments } });
      const entry: CSINodeDriver = { name, nodeID: info.nodeId, topologyKeys: Object.keys(segments).sort() };
      if (info.maxVolumesPerNode > 0) entry.allocatable = { count: info.maxVolumesPerNode };
      await this.updateCSINode((drivers) => [...drivers.filter((d) => d.name !== name), entry]);
      this.drivers.get(name)?.client.close();
      this.drivers.set(name, { name, endpoint, client, nodeId: info.nodeId, nodeCapabilities: caps });
      this.log(`kubernetes.io/csi: Register new plugin with name: ${name} at endpoint: ${endpoint}`);
    } catch (e) {
      client.close();
      throw e;
    }
  }

  /** Upstream DeRegisterPlugin: forgets the driver and removes it from CSINode. */
  async deregister(name: string): Promise<void> {
    this.drivers.get(name)?.client.close();
    this.drivers.delete(name);
    await this.updateCSINode((drivers) => drivers.filter((d) => d.name !== name));
    this.log(`kubernetes.io/csi: DeRegister plugin with name: ${name}`);
  }

  private async updateCSINode(f: (drivers: CSINodeDriver[]) => CSINodeDriver[]): Promise<void> {
    await this.initializeCSINode();
    for (let i = 0; ; i++) {
      const cur = await this.client.get<CSINode & KObject>(SR.csinodes, '', this.nodeName);
      cur.spec = { ...cur.spec, drivers: f(cur.spec?.drivers ?? []) };
      try {
        await this.client.update(SR.csinodes, '', cur);
        return;
      } catch (e) {
        if (i >= 5) throw e;
      }
    }
  }

  close(): void {
    for (const d of this.drivers.values()) d.client.close();
    this.drivers.clear();
  }
}
