/**
 * Helpers for plugin tests: NodeInfos from plain objects, a minimal Handle, and
 * running a plugin's PreScore/Score/NormalizeScore over nodes like the runner does.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../../client/events.js';
import { CycleState } from '../framework/cycle-state.js';
import type { Handle, PreScorePlugin, ScorePlugin } from '../framework/interface.js';
import { staticListers } from '../framework/listers.js';
import { NodeInfo } from '../framework/node-info.js';
import { Snapshot } from '../framework/snapshot.js';
import type { Status } from '../framework/status.js';
import { PodInfo } from '../framework/types.js';
import { FakeClient } from '../../client/testing/fake-client.js';

/** A NodeInfo of `node` with `pods` placed on it. */
export function nodeInfoOf(node: Node, ...pods: Pod[]): NodeInfo {
  const ni = new NodeInfo(node);
  for (const p of pods) ni.addPodInfo(new PodInfo(p));
  return ni;
}

const nopRecorder: EventRecorder = { event: () => undefined };

/** A Handle over a fixed snapshot; filter runners are no-ops unless given. */
export function testHandle(snapshot = new Snapshot(), over: Partial<Handle> = {}): Handle {
  return {
    snapshotSharedLister: () => snapshot,
    client: new FakeClient(),
    eventRecorder: nopRecorder,
    nominator: { nominatedPodsForNode: () => [] },
    listers: staticListers(),
    getWaitingPod: () => undefined,
    plugin: () => undefined,
    metrics: null,
    runFilterPluginsWithNominatedPods: () => null,
    runPreFilterExtensionAddPod: () => null,
    runPreFilterExtensionRemovePod: () => null,
    ...over,
  };
}

/** PreScore (if any), Score for each node, NormalizeScore (if any): the final scores. */
export function scoreNodes(pl: ScorePlugin & Partial<PreScorePlugin>, pod: Pod, infos: NodeInfo[], state = new CycleState()): number[] {
  const ps = pl.preScore?.(state, pod, infos);
  if (ps && ps.code === 5 /* Skip */) return infos.map(() => 0);
  const scores = infos.map((ni) => {
    const s = pl.score(state, pod, ni);
    if (typeof s !== 'number') throw new Error((s as Status).message());
    return s;
  });
  pl.scoreExtensions?.()?.normalizeScore(state, pod, scores, infos);
  return scores;
}
