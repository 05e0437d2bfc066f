/**
 * The node's heartbeat Lease `kube-node-lease/<node>`: holderIdentity = node name,
 * leaseDurationSeconds 40, renewTime refreshed every 10 s, owned by the Node.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/nodelease
 * @see https://github.com/kubernetes/component-helpers/blob/master/apimachinery/lease/controller.go
 */
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../apimachinery/errors.js';
import { rfc3339Micro } from '../../client/events.js';
import { R, type Client } from '../../client/types.js';
import type { Clock, TimerHandle } from '../../util/clock.js';

const LEASE_NAMESPACE = 'kube-node-lease';
const LEASE_DURATION_S = 40;

export class NodeLease {
  private lease?: KObject;
  private timer?: TimerHandle;
  private stopped = false;

  constructor(
    private readonly client: Client,
    private readonly clock: Clock,
    private readonly nodeName: string,
    private readonly nodeUID: () => string,
    private readonly renewMs = 10_000,
  ) {}

  private desired(base?: KObject): KObject {
    const spec = { ...(base?.spec as object), holderIdentity: this.nodeName, leaseDurationSeconds: LEASE_DURATION_S, renewTime: rfc3339Micro(new Date(this.clock.now())) };
    const uid = this.nodeUID();
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      ...base,
      metadata: {
        ...base?.metadata,
        name: this.nodeName,
        namespace: LEASE_NAMESPACE,
        ...(uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid }] } : {}),
      },
      spec,
    };
  }

  /** Creates or renews the lease once. */
  async renew(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        if (!this.lease) {
          try {
            this.lease = await this.client.create(R.leases, LEASE_NAMESPACE, this.desired());
            return;
          } catch (e) {
            if (!isAlreadyExists(e)) throw e;
            this.lease = await this.client.get(R.leases, LEASE_NAMESPACE, this.nodeName);
          }
        }
        this.lease = await this.client.update(R.leases, LEASE_NAMESPACE, this.desired(this.lease));
        return;
      } catch (e) {
        if (isConflict(e) || isNotFound(e)) {
          this.lease = isNotFound(e) ? undefined : await this.client.get(R.leases, LEASE_NAMESPACE, this.nodeName).catch(() => undefined);
          continue;
        }
        throw e;
      }
    }
  }

  start(): void {
    const loop = (): void => {
      if (this.stopped) return;
      void this.renew()
        .catch(() => undefined)
        .finally(() => {
          if (!this.stopped) this.timer = this.clock.setTimeout(loop, this.renewMs);
        });
    };
    loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
  }
}
