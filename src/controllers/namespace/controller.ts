/**
 * Namespace controller: when a namespace is being deleted, deletes everything in it
 * (every namespaced resource found through discovery), then removes the `kubernetes`
 * finalizer through namespaces/<name>/finalize so the namespace goes away.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/namespace/deletion/namespaced_resources_deleter.go
 */
import type { Namespace as NamespaceT } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';

type Namespace = NamespaceT & KObject;
import { isNotFound } from '../../apimachinery/errors.js';
import { Informer } from '../../client/informer.js';
import { R, type ResourceRef } from '../../client/types.js';
import type { ControllerContext, Running } from '../index.js';

interface APIResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
}

/** Namespaced resources that support deletecollection and list, from legacy discovery. */
async function namespacedResources(ctx: ControllerContext): Promise<ResourceRef[]> {
  const out: ResourceRef[] = [];
  const gvs: { group: string; version: string; path: string }[] = [{ group: '', version: 'v1', path: '/api/v1' }];
  const groups = JSON.parse((await ctx.client.raw('GET', '/apis')).body) as { groups: { name: string; preferredVersion: { version: string } }[] };
  for (const g of groups.groups ?? []) gvs.push({ group: g.name, version: g.preferredVersion.version, path: `/apis/${g.name}/${g.preferredVersion.version}` });
  for (const gv of gvs) {
    const rl = JSON.parse((await ctx.client.raw('GET', gv.path)).body) as { resources: APIResource[] };
    for (const r of rl.resources ?? []) {
      if (!r.namespaced || r.name.includes('/')) continue;
      if (!r.verbs.includes('deletecollection') || !r.verbs.includes('list')) continue;
      out.push({ group: gv.group, version: gv.version, resource: r.name, kind: r.kind, namespaced: true });
    }
  }
  return out;
}

export async function startNamespaceController(ctx: ControllerContext): Promise<Running> {
  const { client } = ctx;
  const informer = new Informer<Namespace>(client, R.namespaces);
  const busy = new Set<string>();
  let stopped = false;

  const finalize = async (name: string): Promise<void> => {
    if (busy.has(name) || stopped) return;
    busy.add(name);
    try {
      const resources = await namespacedResources(ctx);
      let remaining = 0;
      for (const r of resources) {
        try {
          // upstream's namespace deleter empties the namespace with background propagation
          await client.deleteCollection(r, name, { propagationPolicy: 'Background' });
          const left = await client.list(r, name, { limit: 1 });
          remaining += left.items.length;
        } catch (e) {
          if (!isNotFound(e)) remaining++;
        }
      }
      if (remaining > 0) {
        setTimeout(() => void finalize(name), 1000).unref();
        return;
      }
      const ns = await client.get<Namespace>(R.namespaces, '', name);
      const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== 'kubernetes');
      await client.update(R.namespaces, '', { ...ns, spec: { ...ns.spec, finalizers } }, { subresource: 'finalize' });
    } catch (e) {
      if (!isNotFound(e) && !stopped) setTimeout(() => void finalize(name), 1000).unref();
    } finally {
      busy.delete(name);
    }
  };

  const check = (ns: Namespace): void => {
    if (ns.metadata?.deletionTimestamp && (ns.spec?.finalizers ?? []).includes('kubernetes')) void finalize(ns.metadata.name!);
  };
  informer.addEventHandler({ add: check, update: (_o, n) => check(n) });
  informer.start();
  await informer.waitForSync();
  return {
    async stop() {
      stopped = true;
      informer.stop();
    },
  };
}
