/**
 * The in-tree plugins, by upstream name.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/registry.go
 */
import type { PluginFactory } from '../framework/interface.js';
import { Registry } from '../framework/registry.js';
import * as DefaultBinder from './DefaultBinder.js';
import * as DefaultPreemption from './DefaultPreemption.js';
import * as ImageLocality from './ImageLocality.js';
import * as InterPodAffinity from './InterPodAffinity.js';
import * as NodeAffinity from './NodeAffinity.js';
import * as NodeName from './NodeName.js';
import * as NodePorts from './NodePorts.js';
import * as NodeResourcesBalancedAllocation from './NodeResourcesBalancedAllocation.js';
import * as NodeResourcesFit from './NodeResourcesFit.js';
import * as NodeUnschedulable from './NodeUnschedulable.js';
import * as PodTopologySpread from './PodTopologySpread.js';
import * as PrioritySort from './PrioritySort.js';
import * as SchedulingGates from './SchedulingGates.js';
import * as TaintToleration from './TaintToleration.js';
import * as VolumeBinding from './VolumeBinding.js';
import * as VolumeRestrictions from './VolumeRestrictions.js';

/** A new registry with every in-tree plugin. */
export function newInTreeRegistry(): Registry {
  const r = new Registry();
  for (const m of [
    PrioritySort,
    SchedulingGates,
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    VolumeRestrictions,
    VolumeBinding,
    PodTopologySpread,
    InterPodAffinity,
    NodeResourcesBalancedAllocation,
    ImageLocality,
    DefaultPreemption,
    DefaultBinder,
  ]) {
    r.register(m.Name, m.New as PluginFactory);
  }
  return r;
}
