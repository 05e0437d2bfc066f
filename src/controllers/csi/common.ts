/**
 * What the built-in CSI sidecars share: how they run (one driver, one node — the
 * external-provisioner's `--node-deployment` mode, since k8ts' drivers are node-local),
 * byte quantities, and whether a volume's node affinity admits this node.
 */
import type { Node, NodeSelector, PersistentVolume } from 'kubernetes-types/core/v1.js';
import { formatQuantity, newQuantity, parseQuantity, value } from '../../apimachinery/quantity.js';
import type { EventRecorder } from '../../client/events.js';
import type { Client } from '../../client/types.js';
import type { CSIClient } from '../../csi/client.js';
import type { Clock } from '../../util/clock.js';

export interface SidecarContext {
  /** writes PVs, claims, VolumeAttachments (the node's identity in k8ts) */
  client: Client;
  /** the driver's CSI socket */
  csi: CSIClient;
  /** the CSI driver name */
  driverName: string;
  /** the node whose driver instance this sidecar serves */
  nodeName: string;
  recorder: EventRecorder;
  clock?: Clock;
  /** `--v=5` style log of the sidecar */
  log?: (line: string) => void;
}

/** A byte count as upstream formats capacities (`resource.NewQuantity(n, BinarySI)`: 1073741824 → "1Gi"). */
export function bytesQuantity(n: number): string {
  return formatQuantity(newQuantity(n, 'BinarySI'));
}

/** The bytes of a quantity string (0 when absent). */
export function quantityBytes(q: string | number | undefined): number {
  return q === undefined ? 0 : value(parseQuantity(String(q)));
}

/** Whether `sel` admits `node` (terms ORed, expressions ANDed; In, NotIn, Exists, DoesNotExist). */
export function nodeSelectorMatches(sel: NodeSelector | undefined, node: Node | undefined): boolean {
  if (!sel?.nodeSelectorTerms?.length) return true;
  const labels = node?.metadata?.labels ?? {};
  return sel.nodeSelectorTerms.some((t) =>
    (t.matchExpressions ?? []).every((e) => {
      const v = labels[e.key];
      switch (e.operator) {
        case 'In':
          return v !== undefined && (e.values ?? []).includes(v);
        case 'NotIn':
          return v === undefined || !(e.values ?? []).includes(v);
        case 'Exists':
          return v !== undefined;
        case 'DoesNotExist':
          return v === undefined;
        default:
          return false;
      }
    }),
  );
}

/** Whether `pv` lives where this node's driver instance can reach it. */
export function volumeOnNode(pv: PersistentVolume, node: Node | undefined): boolean {
  return nodeSelectorMatches(pv.spec?.nodeAffinity?.required, node);
}
