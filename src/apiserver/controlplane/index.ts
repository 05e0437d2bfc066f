/**
 * What each API server keeps about itself in a cluster of several: its master lease
 * and the `default/kubernetes` endpoints built from every live one (the lease endpoint
 * reconciler), and its APIServerIdentity Lease with the collection of expired ones.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/controller/kubernetesservice/controller.go
 */
import type { Client } from '../../client/types.js';
import type { Storage } from '../../storage/interface.js';
import type { Logger } from '../../util/klog.js';
import { LeaseEndpointReconciler } from './endpoint-reconciler.js';
import { IdentityLease } from './identity-lease.js';
import { MasterLeases } from './master-leases.js';

export { LeaseEndpointReconciler, groupByPort, ENDPOINT_RECONCILE_INTERVAL_MS } from './endpoint-reconciler.js';
export { IdentityLease, apiServerID, identityLeaseExpired, IDENTITY_LEASE_LABEL } from './identity-lease.js';
export { MasterLeases, masterLeaseKey, MASTER_LEASES_PREFIX, MASTER_LEASE_TTL_SECONDS } from './master-leases.js';

export interface ControlPlaneLeasesOptions {
  /** the API server's loopback client (system:apiserver) */
  client: Client;
  /** the API server's storage (the master leases live beside the objects) */
  storage: Storage;
  /** the address and secure port published in `default/kubernetes` */
  advertiseAddress: string;
  securePort: number;
  /** the name the identity Lease is hashed from (the server's node name) */
  host: string;
  logger?: Logger;
}

/**
 * Refreshes this server's master lease and reconciles `default/kubernetes` once (so
 * the endpoints are right when the server reports ready), writes its identity Lease,
 * then keeps both up to date. `stop()` removes the master lease and this server from
 * the endpoints.
 * @throws when the first reconcile fails (storage or API errors)
 */
export async function startControlPlaneLeases(o: ControlPlaneLeasesOptions): Promise<{ stop(): Promise<void> }> {
  const reconciler = new LeaseEndpointReconciler({
    client: o.client,
    leases: new MasterLeases(o.storage),
    self: { ip: o.advertiseAddress, port: o.securePort },
    logger: o.logger,
  });
  await reconciler.start();
  const identity = new IdentityLease({ client: o.client, host: o.host, logger: o.logger });
  await identity.start();
  return {
    async stop() {
      identity.stop();
      await reconciler.stop();
    },
  };
}
