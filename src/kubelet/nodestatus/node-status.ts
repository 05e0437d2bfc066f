/**
 * Registers the Node and keeps its status current: computed every 10 s, written
 * (merge patch of nodes/<name>/status) only when something other than heartbeat
 * times changed or 5 minutes passed since the last write. Records the node events
 * upstream's kubelet records (Starting, NodeHas…, NodeAllocatableEnforced,
 * NodeReady / NodeNotReady on transitions).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_node_status.go
 */
import { isDeepStrictEqual } from 'node:util';
import type { Node, NodeStatus } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import type { EventRecorder } from '../../client/events.js';
import { R, type Client } from '../../client/types.js';
import type { Runtime } from '../../cri/api.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { Msg, Reason } from '../events.js';
import { initialNode, nodeLabels, nodeStatus, type MachineInfo, type RuntimeHealth } from './setters.js';

interface NodeStatusOptions {
  client: Client;
  recorder: EventRecorder;
  clock: Clock;
  runtime: Runtime;
  nodeName: string;
  podCIDR: string;
  machine: MachineInfo;
  /** default 10 000 */
  updateMs?: number;
  /** default 300 000 */
  reportMs?: number;
  /** published as status.daemonEndpoints.kubeletEndpoint.Port (default 10250) */
  kubeletPort?: number;
  /** the unique names of the attachable volumes in use on the node (status.volumesInUse, upstream's VolumesInUse setter) */
  volumesInUse?: () => string[];
}

const strip = (s: NodeStatus): unknown => ({ ...s, conditions: s.conditions?.map(({ lastHeartbeatTime: _h, ...c }) => c) });

export class NodeStatusManager {
  private current?: NodeStatus;
  private lastReport = 0;
  private timer?: TimerHandle;
  private stopped = false;
  private runtimeVersion = '';
  uid = '';

  constructor(private readonly o: NodeStatusOptions) {}

  /** The node object events are recorded against (upstream uses UID = node name). */
  nodeRef(): KObject {
    return { apiVersion: 'v1', kind: 'Node', metadata: { name: this.o.nodeName, uid: this.o.nodeName } };
  }

  private event(reason: string, msg: string): void {
    this.o.recorder.event(this.nodeRef(), 'Normal', reason, msg);
  }

  /** Runtime health as upstream's runtimeState errors. */
  async runtimeHealth(): Promise<RuntimeHealth> {
    try {
      const { conditions } = await this.o.runtime.status();
      const errs: string[] = [];
      const rt = conditions.find((c) => c.type === 'RuntimeReady');
      const net = conditions.find((c) => c.type === 'NetworkReady');
      if (!rt?.status) errs.push(`container runtime is down`);
      if (!net?.status) errs.push(`container runtime network not ready: NetworkReady=false reason:${net?.reason ?? ''} message:${net?.message ?? ''}`);
      return { ready: errs.length === 0, message: errs.join(', ') };
    } catch (e) {
      return { ready: false, message: `container runtime status check failed: ${(e as Error).message}` };
    }
  }

  /** Creates (or adopts) the Node object, then posts the first real status. */
  async register(): Promise<Node> {
    const v = await this.o.runtime.version();
    this.runtimeVersion = `${v.runtimeName}://${v.runtimeVersion}`;
    this.event(Reason.StartingKubelet, Msg.startingKubelet);
    const now = new Date(this.o.clock.now());
    const first = nodeStatus(undefined, {
      machine: this.o.machine,
      runtimeVersion: this.runtimeVersion,
      runtime: { ready: false, message: 'container runtime status check may not have completed yet' },
      now,
      kubeletPort: this.o.kubeletPort,
    });
    let node: Node;
    let fresh = true;
    try {
      node = (await this.o.client.create(R.nodes, '', initialNode(this.o.nodeName, this.o.runtime.kind, this.o.podCIDR, first) as KObject)) as Node;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = (await this.o.client.get(R.nodes, '', this.o.nodeName)) as Node;
      fresh = !existing.status?.conditions?.some((c) => c.type === 'MemoryPressure');
      const spec = existing.spec?.podCIDR || !this.o.podCIDR ? {} : { spec: { podCIDR: this.o.podCIDR, podCIDRs: [this.o.podCIDR] } };
      node = (await this.o.client.patch(R.nodes, '', this.o.nodeName, 'merge', { metadata: { labels: nodeLabels(this.o.nodeName, this.o.runtime.kind) }, ...spec })) as Node;
    }
    this.uid = node.metadata?.uid ?? '';
    this.current = node.status;
    if (fresh) await this.writeStatus(first);
    if (fresh) {
      this.event('NodeHasSufficientMemory', Msg.nodeStatus(this.o.nodeName, 'NodeHasSufficientMemory'));
      this.event('NodeHasNoDiskPressure', Msg.nodeStatus(this.o.nodeName, 'NodeHasNoDiskPressure'));
      this.event('NodeHasSufficientPID', Msg.nodeStatus(this.o.nodeName, 'NodeHasSufficientPID'));
    }
    this.event(Reason.NodeAllocatableEnforced, Msg.allocatableEnforced);
    await this.update(true);
    return node;
  }

  private async writeStatus(st: NodeStatus): Promise<void> {
    // a merge patch keeps what it omits: an emptied volumesInUse is removed explicitly
    const body = st.volumesInUse === undefined && this.current?.volumesInUse?.length ? { ...st, volumesInUse: null } : st;
    await this.o.client.patch(R.nodes, '', this.o.nodeName, 'merge', { status: body }, { subresource: 'status' });
    const wasReady = this.current?.conditions?.find((c) => c.type === 'Ready')?.status;
    const isReady = st.conditions?.find((c) => c.type === 'Ready')?.status;
    if (wasReady && wasReady !== isReady)
      this.event(isReady === 'True' ? Reason.NodeReady : Reason.NodeNotReady, Msg.nodeStatus(this.o.nodeName, isReady === 'True' ? Reason.NodeReady : Reason.NodeNotReady));
    this.current = st;
    this.lastReport = this.o.clock.now();
  }

  /** Computes the status and writes it when changed (or when `force`, or the report interval passed). */
  async update(force = false): Promise<boolean> {
    const st = nodeStatus(this.current, {
      machine: this.o.machine,
      runtimeVersion: this.runtimeVersion,
      runtime: await this.runtimeHealth(),
      now: new Date(this.o.clock.now()),
      kubeletPort: this.o.kubeletPort,
    });
    const inUse = this.o.volumesInUse?.();
    if (inUse?.length) st.volumesInUse = inUse;
    const changed = !this.current || !isDeepStrictEqual(strip(st), strip(this.current));
    if (!force && !changed && this.o.clock.now() - this.lastReport < (this.o.reportMs ?? 300_000)) return false;
    try {
      await this.writeStatus(st);
    } catch (e) {
      if (isNotFound(e)) await this.register();
      else throw e;
    }
    return true;
  }

  /** Starts the 10 s loop. */
  start(): void {
    const loop = (): void => {
      if (this.stopped) return;
      this.timer = this.o.clock.setTimeout(() => {
        void this.update()
          .catch(() => undefined)
          .finally(loop);
      }, this.o.updateMs ?? 10_000);
    };
    loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
  }
}
