/**
 * Scheduling profiles (KubeSchedulerConfiguration `profiles[]`, kubescheduler.config.k8s.io/v1):
 * a schedulerName plus the plugins enabled at each extension point, score weights and
 * plugin args. `defaultProfile()` is upstream's default-scheduler profile restricted to
 * the plugins implemented here; custom profiles are merged onto it as upstream merges
 * them (disabled "*" clears a point; enabled entries override in place or append).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/apis/config/v1/default_plugins.go
 * @see https://kubernetes.io/docs/reference/scheduling/config/
 */

/** One plugin at an extension point; `weight` only matters for Score. */
export interface PluginRef {
  name: string;
  weight?: number;
}

export interface PluginSet {
  enabled?: PluginRef[];
  disabled?: PluginRef[];
}

/** Extension point names, as in KubeSchedulerConfiguration `plugins`. */
export const EXTENSION_POINTS = ['preEnqueue', 'queueSort', 'preFilter', 'filter', 'postFilter', 'preScore', 'score', 'reserve', 'permit', 'preBind', 'bind', 'postBind'] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export type Plugins = Partial<Record<ExtensionPoint | 'multiPoint', PluginSet>>;

export interface PluginConfig {
  name: string;
  args?: unknown;
}

export interface Profile {
  schedulerName: string;
  /** 0 or unset: the scheduler-wide value (adaptive by default) */
  percentageOfNodesToScore?: number;
  plugins?: Plugins;
  pluginConfig?: PluginConfig[];
}

/** The default scheduler name. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** Upstream's default MultiPoint plugins and weights (those implemented here, upstream order). */
export function defaultPlugins(): Plugins {
  return {
    multiPoint: {
      enabled: [
        { name: 'SchedulingGates' },
        { name: 'PrioritySort' },
        { name: 'NodeUnschedulable' },
        { name: 'NodeName' },
        { name: 'TaintToleration', weight: 3 },
        { name: 'NodeAffinity', weight: 2 },
        { name: 'NodePorts' },
        { name: 'NodeResourcesFit', weight: 1 },
        { name: 'VolumeRestrictions' },
        { name: 'VolumeBinding' },
        { name: 'PodTopologySpread', weight: 2 },
        { name: 'InterPodAffinity', weight: 2 },
        { name: 'DefaultPreemption' },
        { name: 'NodeResourcesBalancedAllocation', weight: 1 },
        { name: 'ImageLocality', weight: 1 },
        { name: 'DefaultBinder' },
      ],
    },
  };
}

/** Upstream's default plugin args (SetDefaults_*Args). */
export function defaultPluginConfig(): PluginConfig[] {
  return [
    { name: 'DefaultPreemption', args: { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 } },
    { name: 'InterPodAffinity', args: { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false } },
    { name: 'NodeAffinity', args: {} },
    {
      name: 'NodeResourcesBalancedAllocation',
      args: {
        resources: [
          { name: 'cpu', weight: 1 },
          { name: 'memory', weight: 1 },
        ],
      },
    },
    {
      name: 'NodeResourcesFit',
      args: {
        scoringStrategy: {
          type: 'LeastAllocated',
          resources: [
            { name: 'cpu', weight: 1 },
            { name: 'memory', weight: 1 },
          ],
        },
      },
    },
    { name: 'PodTopologySpread', args: { defaultingType: 'System' } },
    { name: 'VolumeBinding', args: { bindTimeoutSeconds: 600 } },
  ];
}

/** upstream's default profile: default-scheduler with the default plugins and args. */
export function defaultProfile(schedulerName = DEFAULT_SCHEDULER_NAME): Profile {
  return { schedulerName, plugins: defaultPlugins(), pluginConfig: defaultPluginConfig() };
}

function mergeSet(def: PluginSet | undefined, custom: PluginSet | undefined): PluginSet {
  if (!custom) return { enabled: [...(def?.enabled ?? [])] };
  const disabled = new Set((custom.disabled ?? []).map((p) => p.name));
  const out: PluginRef[] = disabled.has('*') ? [] : (def?.enabled ?? []).filter((p) => !disabled.has(p.name));
  for (const p of custom.enabled ?? []) {
    const i = out.findIndex((q) => q.name === p.name);
    if (i >= 0) out[i] = p;
    else out.push(p);
  }
  return { enabled: out, disabled: custom.disabled };
}

/**
 * Completes a profile as upstream's defaulting does: plugins merged onto the defaults,
 * default args for plugins without pluginConfig (args given are shallow-merged over
 * the defaults).
 */
export function completeProfile(p: Profile): Profile {
  const def = defaultPlugins();
  const plugins: Plugins = {};
  for (const ep of ['multiPoint', ...EXTENSION_POINTS] as const) {
    const s = mergeSet(def[ep], p.plugins?.[ep]);
    if (s.enabled?.length || s.disabled?.length) plugins[ep] = s;
  }
  const cfg = new Map<string, unknown>();
  for (const c of defaultPluginConfig()) cfg.set(c.name, c.args);
  for (const c of p.pluginConfig ?? []) {
    const d = cfg.get(c.name);
    cfg.set(c.name, d && typeof d === 'object' && c.args && typeof c.args === 'object' ? { ...(d as object), ...(c.args as object) } : c.args);
  }
  return {
    schedulerName: p.schedulerName || DEFAULT_SCHEDULER_NAME,
    percentageOfNodesToScore: p.percentageOfNodesToScore,
    plugins,
    pluginConfig: [...cfg].map(([name, args]) => ({ name, args })),
  };
}
