/**
 * Subresources served by custom handlers rather than the generic store's status
 * strategy: pods/binding, pods/log, pods/exec, pods/eviction, serviceaccounts/token,
 * deployments/scale … Each declares its discovery information and handles requests.
 */
import type { SubresourceInfo } from '../discovery.js';
import type { ResourceContext } from '../endpoints/resource.js';
import type { Store } from '../registry/store.js';

export interface SubresourceHandler extends SubresourceInfo {
  /** Serves one request; `c.info.subresource` equals `subresource`. */
  handle(c: ResourceContext, stores: StoreLookup): Promise<void>;
}

/** Access to the stores of other resources. */
export interface StoreLookup {
  store(group: string, resource: string): Store | undefined;
}
