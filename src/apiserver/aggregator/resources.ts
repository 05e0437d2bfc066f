/** The resources the aggregator reads and writes through its client. */
import type { ResourceRef } from '../../client/types.js';

/** apiregistration.k8s.io/v1 apiservices */
export const APISERVICES: ResourceRef = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false };
