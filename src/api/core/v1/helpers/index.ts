/** Shared pod/container helpers (QoS, effective resources, conditions, container iteration). */
export * from './containers.js';
export * from './conditions.js';
export * from './resources.js';
export * from './qos.js';
