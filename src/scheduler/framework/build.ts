/**
 * Turns a completed Profile into plugin instances per extension point: every plugin
 * named anywhere is built once from its factory; MultiPoint plugins are expanded to the
 * points they implement; plugins named at a specific point override their MultiPoint
 * position (upstream order: overrides first, then MultiPoint, then the other
 * point-specific plugins). Score weights default to 1.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/runtime/framework.go (expandMultiPointPlugins)
 */
import * as I from './interface.js';
import type { ExtensionPoint, PluginRef, Profile } from './profile.js';
import type { Registry } from './registry.js';

/** Plugin instances per extension point, in run order. */
export interface PluginLists {
  preEnqueue: I.PreEnqueuePlugin[];
  queueSort: I.QueueSortPlugin[];
  preFilter: I.PreFilterPlugin[];
  filter: I.FilterPlugin[];
  postFilter: I.PostFilterPlugin[];
  preScore: I.PreScorePlugin[];
  score: I.ScorePlugin[];
  /** weight of score[i] */
  scoreWeights: number[];
  reserve: I.ReservePlugin[];
  permit: I.PermitPlugin[];
  preBind: I.PreBindPlugin[];
  bind: I.BindPlugin[];
  postBind: I.PostBindPlugin[];
  /** every instantiated plugin by name */
  all: Map<string, I.Plugin>;
}

const guards: Record<ExtensionPoint, (p: I.Plugin) => boolean> = {
  preEnqueue: I.isPreEnqueue,
  queueSort: I.isQueueSort,
  preFilter: I.isPreFilter,
  filter: I.isFilter,
  postFilter: I.isPostFilter,
  preScore: I.isPreScore,
  score: I.isScore,
  reserve: I.isReserve,
  permit: I.isPermit,
  preBind: I.isPreBind,
  bind: I.isBind,
  postBind: I.isPostBind,
};

/** Upstream's interface names, for error messages. */
const pointTypeName: Record<ExtensionPoint, string> = {
  preEnqueue: 'PreEnqueuePlugin',
  queueSort: 'QueueSortPlugin',
  preFilter: 'PreFilterPlugin',
  filter: 'FilterPlugin',
  postFilter: 'PostFilterPlugin',
  preScore: 'PreScorePlugin',
  score: 'ScorePlugin',
  reserve: 'ReservePlugin',
  permit: 'PermitPlugin',
  preBind: 'PreBindPlugin',
  bind: 'BindPlugin',
  postBind: 'PostBindPlugin',
};

/**
 * Builds the plugins of a (completed) profile. Throws upstream's errors for unknown
 * plugins (`plugin "X" does not exist`), plugins enabled at a point they do not
 * implement, and a queue-sort/bind misconfiguration.
 */
export function buildPlugins(profile: Profile, registry: Registry, handle: I.Handle): PluginLists {
  const plugins = profile.plugins ?? {};
  const args = new Map((profile.pluginConfig ?? []).map((c) => [c.name, c.args]));
  const all = new Map<string, I.Plugin>();
  const instance = (name: string): I.Plugin => {
    let p = all.get(name);
    if (p) return p;
    const f = registry.get(name);
    if (!f) throw new Error(`plugin "${name}" does not exist`);
    try {
      p = f(args.get(name), handle);
    } catch (e) {
      throw new Error(`initializing plugin "${name}": ${(e as Error).message}`);
    }
    all.set(name, p);
    return p;
  };

  const multi = plugins.multiPoint?.enabled ?? [];
  const out: Record<string, I.Plugin[]> = {};
  const weights = new Map<string, number>();
  for (const r of multi) if (r.weight) weights.set(r.name, r.weight);

  for (const ep of Object.keys(guards) as ExtensionPoint[]) {
    const specific = plugins[ep]?.enabled ?? [];
    const disabled = new Set((plugins[ep]?.disabled ?? []).map((r) => r.name));
    const specificNames = new Set(specific.map((r) => r.name));
    const ordered: PluginRef[] = [];
    // part 1: point-specific entries that also appear in MultiPoint (their point order)
    for (const r of specific) if (multi.some((m) => m.name === r.name)) ordered.push(r);
    // part 2: MultiPoint plugins that implement the point, unless disabled or already listed
    if (!disabled.has('*')) {
      for (const r of multi) {
        if (disabled.has(r.name) || specificNames.has(r.name)) continue;
        if (guards[ep](instance(r.name))) ordered.push(r);
      }
    }
    // part 3: the remaining point-specific plugins
    for (const r of specific) if (!multi.some((m) => m.name === r.name)) ordered.push(r);

    const list: I.Plugin[] = [];
    for (const r of ordered) {
      const p = instance(r.name);
      if (!guards[ep](p)) throw new Error(`plugin "${r.name}" does not extend ${pointTypeName[ep]} plugin`);
      if (list.includes(p)) throw new Error(`plugin "${r.name}" already registered as "${pointTypeName[ep]}"`);
      list.push(p);
      if (ep === 'score' && r.weight) weights.set(r.name, r.weight);
    }
    out[ep] = list;
  }
  if (out.queueSort!.length === 0) throw new Error('no queue sort plugin is enabled');
  if (out.queueSort!.length > 1) throw new Error('only one queue sort plugin can be enabled');
  if (out.bind!.length === 0) throw new Error('at least one bind plugin is needed');

  const score = out.score as I.ScorePlugin[];
  return {
    preEnqueue: out.preEnqueue as I.PreEnqueuePlugin[],
    queueSort: out.queueSort as I.QueueSortPlugin[],
    preFilter: out.preFilter as I.PreFilterPlugin[],
    filter: out.filter as I.FilterPlugin[],
    postFilter: out.postFilter as I.PostFilterPlugin[],
    preScore: out.preScore as I.PreScorePlugin[],
    score,
    scoreWeights: score.map((p) => weights.get(p.name) || 1),
    reserve: out.reserve as I.ReservePlugin[],
    permit: out.permit as I.PermitPlugin[],
    preBind: out.preBind as I.PreBindPlugin[],
    bind: out.bind as I.BindPlugin[],
    postBind: out.postBind as I.PostBindPlugin[],
    all,
  };
}
