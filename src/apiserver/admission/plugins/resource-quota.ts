/**
 * ResourceQuota admission: a new object may not push a namespace's usage past any
 * ResourceQuota that selects it (`exceeded quota: …`); pods must state the compute
 * resources a quota constrains (`must specify …`). Admitted usage is charged to the
 * quota's `status.used` at once (compare-and-swap), as upstream; the quota controller
 * recomputes it from the objects afterwards.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go
 * @see https://kubernetes.io/docs/concepts/policy/resource-quotas/
 */
import type { Container, ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { ObjectLookup } from '../../../api/resource.js';
import { quantityOf, type Resources } from '../../../api/core/v1/helpers/resources.js';
import type { Pod } from '../../../api/core/v1/pod/types.js';
import { addUsage, objectUsage, podUsage, quotaSelects } from '../../../api/core/v1/resourcequota/usage.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import { addQuantity, compareQuantity, formatQuantity, type Quantity, ZERO_QUANTITY } from '../../../apimachinery/quantity.js';
import type { StoreLookup } from '../../subresources/types.js';
import type { AdmissionPlugin } from '../types.js';

type RL = Record<string, string>;
const RQ = { group: '', version: 'v1', resource: 'resourcequotas' };
/** Compute resources whose quota makes every container state them (upstream validationSet). */
const MUST_SPECIFY = new Set(['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory', 'cpu', 'memory']);

function parse(m: RL | undefined): Resources {
  const out: Resources = {};
  for (const [k, v] of Object.entries(m ?? {})) out[k] = quantityOf(v);
  return out;
}

/** `must specify limits.cpu for: a,b; requests.memory for: a`, or undefined. */
export function podConstraints(pod: Pod, hard: string[]): string | undefined {
  const required = hard.filter((h) => MUST_SPECIFY.has(h));
  if (!required.length) return undefined;
  const missing = new Map<string, Set<string>>();
  const visit = (c: Container): void => {
    const req = (c.resources?.requests ?? {}) as RL;
    const lim = (c.resources?.limits ?? {}) as RL;
    for (const r of required) {
      const [kind, name] = r.includes('.') ? (r.split('.') as [string, string]) : ['requests', r];
      const has = kind === 'limits' ? lim[name] !== undefined : req[name] !== undefined;
      if (!has) {
        let s = missing.get(r);
        if (!s) missing.set(r, (s = new Set()));
        s.add(c.name);
      }
    }
  };
  for (const c of pod.spec?.containers ?? []) visit(c as Container);
  for (const c of pod.spec?.initContainers ?? []) visit(c as Container);
  if (!missing.size) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

const pretty = (m: Resources, keys: string[]): string => keys.map((k) => `${k}=${formatQuantity(m[k] ?? ZERO_QUANTITY)}`).join(',');

/** Usage of the namespace from the objects themselves (when the quota's status is not current). */
async function computeUsed(lookup: ObjectLookup, q: ResourceQuota, ns: string, group: string, resource: string): Promise<Resources> {
  const used: Resources = {};
  const mask = new Set(Object.keys((q.spec?.hard ?? {}) as RL));
  const objs = await lookup.list({ group, version: 'v1', resource }, ns);
  for (const o of objs)
    if (quotaSelects(q, group, resource, o)) addUsage(used, group || resource !== 'pods' ? objectUsage(group, resource, o) : podUsage(o as unknown as Pod), mask);
  return used;
}

export interface ResourceQuotaPlugin extends AdmissionPlugin {
  /** gives the plugin write access to quota status (the API server's stores) */
  attach(stores: StoreLookup): void;
}

export function resourceQuota(): ResourceQuotaPlugin {
  let stores: StoreLookup | undefined;
  return {
    name: 'ResourceQuota',
    attach(s) {
      stores = s;
    },
    async validate(a, lookup) {
      if (a.operation !== 'CREATE' || a.subresource || !a.namespace || !a.object) return;
      const { group, resource } = a.resource;
      if (!group && resource === 'resourcequotas') return;
      const quotas = (await lookup.list(RQ, a.namespace)) as unknown as (ResourceQuota & { metadata: { name?: string } })[];
      if (!quotas.length) return;
      const usage = objectUsage(group, resource, a.object);
      const charges: { name: string; delta: Resources; keys: string[] }[] = [];
      const gr = { group, resource };
      for (const q of quotas) {
        if (!quotaSelects(q, group, resource, a.object)) continue;
        const hardRL = (q.spec?.hard ?? {}) as RL;
        const hardKeys = Object.keys(hardRL);
        const qname = q.metadata.name ?? '';
        if (!group && resource === 'pods') {
          const err = podConstraints(a.object as unknown as Pod, hardKeys);
          if (err) throw newForbidden(gr, a.name, `failed quota: ${qname}: ${err}`);
        }
        const keys = hardKeys.filter((k) => usage[k] !== undefined).sort();
        if (!keys.length) continue;
        const hard = parse(hardRL);
        const statusCurrent = JSON.stringify(q.status?.hard ?? null) === JSON.stringify(hardRL) && keys.every((k) => q.status?.used?.[k] !== undefined);
        const used = statusCurrent ? parse(q.status!.used as RL) : await computeUsed(lookup, q, a.namespace, group, resource);
        const exceeded = keys.filter((k) => {
          const next = addQ(used[k], usage[k]!);
          return compareQuantity(next, hard[k]!) > 0;
        });
        if (exceeded.length) {
          throw newForbidden(gr, a.name, `exceeded quota: ${qname}, requested: ${pretty(usage, exceeded)}, used: ${pretty(used, exceeded)}, limited: ${pretty(hard, exceeded)}`);
        }
        const delta: Resources = {};
        for (const k of keys) delta[k] = usage[k]!;
        charges.push({ name: qname, delta, keys });
        if (!statusCurrent && !a.dryRun) await writeStatus(a.namespace, qname, used, hardRL, undefined);
      }
      if (a.dryRun) return;
      for (const c of charges) await writeStatus(a.namespace, c.name, undefined, undefined, c.delta, gr, a.name);
    },
  };

  /** Sets `status.used` (base) and/or adds `delta` with a CAS update; re-checks the hard limits. */
  async function writeStatus(
    ns: string,
    name: string,
    base: Resources | undefined,
    hard: RL | undefined,
    delta?: Resources,
    gr?: { group: string; resource: string },
    objName = '',
  ): Promise<void> {
    const store = stores?.store('', 'resourcequotas');
    if (!store) return;
    await store.guaranteedUpdate(ns, name, (q) => {
      const status = (q.status ??= {}) as { hard?: RL; used?: RL };
      const spec = (q.spec ?? {}) as { hard?: RL };
      if (hard) status.hard = { ...hard };
      const used = parse(status.used);
      if (base) for (const [k, v] of Object.entries(base)) used[k] = v;
      if (delta) {
        const h = parse(spec.hard);
        const over = Object.keys(delta)
          .filter((k) => h[k] && compareQuantity(addQ(used[k], delta[k]!), h[k]!) > 0)
          .sort();
        if (over.length && gr) {
          throw newForbidden(gr, objName, `exceeded quota: ${name}, requested: ${pretty(delta, over)}, used: ${pretty(used, over)}, limited: ${pretty(h, over)}`);
        }
        for (const [k, v] of Object.entries(delta)) used[k] = addQ(used[k], v);
      }
      const out: RL = { ...(status.used ?? {}) };
      for (const [k, v] of Object.entries(used)) out[k] = formatQuantity(v);
      status.used = out;
      return q;
    });
  }
}

function addQ(a: Quantity | undefined, b: Quantity): Quantity {
  return a ? addQuantity(a, b) : b;
}
