/**
 * What the garbage collector watches and how it resolves an owner reference's
 * apiVersion/kind to a resource: served resources from discovery (every version of every
 * group, for the kind mapping; the preferred version is the one watched), keeping those
 * that support list, watch and delete, without subresources and without Events (upstream
 * DefaultIgnoredResources).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/garbagecollector/garbagecollector.go (GetDeletableResources)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/garbagecollector/config/v1alpha1/defaults.go
 */
import type { Client, ResourceRef } from '../../client/types.js';

interface APIResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
}

/** A REST mapping from `apiVersion` + `kind` to a resource, and the resources to watch. */
export class ResourceMap {
  private readonly byGVK = new Map<string, ResourceRef>();
  /** preferred-version resources supporting list/watch/delete, minus ignored ones */
  readonly watchable: ResourceRef[] = [];

  /** Adds one resource; `watch` when it is the preferred version and deletable. */
  add(ref: ResourceRef, watch: boolean): void {
    const gv = ref.group ? `${ref.group}/${ref.version}` : ref.version;
    if (!this.byGVK.has(`${gv}/${ref.kind}`)) this.byGVK.set(`${gv}/${ref.kind}`, ref);
    if (watch) this.watchable.push(ref);
  }

  /** The resource of an owner reference, or undefined when nothing serves that kind. */
  resolve(apiVersion: string, kind: string): ResourceRef | undefined {
    return this.byGVK.get(`${apiVersion}/${kind}`);
  }
}

/** Upstream's ignored resources: Events (core and events.k8s.io). */
function isIgnoredResource(group: string, resource: string): boolean {
  return resource === 'events' && (group === '' || group === 'events.k8s.io');
}

/**
 * Reads discovery (`/api/v1`, `/apis`, `/apis/<group>/<version>`) through `client`.
 * @throws StatusError when discovery fails
 */
export async function discoverResources(client: Client): Promise<ResourceMap> {
  const map = new ResourceMap();
  const gvs: { group: string; version: string; preferred: boolean }[] = [{ group: '', version: 'v1', preferred: true }];
  const groups = JSON.parse((await client.raw('GET', '/apis')).body) as {
    groups?: { name: string; versions?: { version: string }[]; preferredVersion?: { version: string } }[];
  };
  for (const g of groups.groups ?? []) {
    const pref = g.preferredVersion?.version;
    for (const v of g.versions ?? (pref ? [{ version: pref }] : [])) gvs.push({ group: g.name, version: v.version, preferred: v.version === pref });
  }
  await Promise.all(
    gvs.map(async (gv) => {
      const path = gv.group ? `/apis/${gv.group}/${gv.version}` : '/api/v1';
      const res = await client.raw('GET', path);
      if (res.status !== 200) return;
      const rl = JSON.parse(res.body) as { resources?: APIResource[] };
      for (const r of rl.resources ?? []) {
        if (r.name.includes('/')) continue;
        const verbs = r.verbs ?? [];
        const deletable = verbs.includes('list') && verbs.includes('watch') && verbs.includes('delete');
        const ref: ResourceRef = { group: gv.group, version: gv.version, resource: r.name, kind: r.kind, namespaced: r.namespaced };
        map.add(ref, gv.preferred && deletable && !isIgnoredResource(gv.group, r.name));
      }
    }),
  );
  return map;
}
