/**
 * API discovery: aggregated discovery v2 (`apidiscovery.k8s.io/v2`
 * APIGroupDiscoveryList at /api and /apis, selected by the Accept header) and the
 * legacy documents (APIVersions, APIGroupList, APIGroup, APIResourceList).
 *
 * @see https://kubernetes.io/docs/concepts/overview/kubernetes-api/#aggregated-discovery
 * @see https://github.com/kubernetes/enhancements/tree/master/keps/sig-api-machinery/3352-aggregated-discovery
 */
import { createHash } from 'node:crypto';
import type { ResourceDefinition, Verb } from '../api/resource.js';
import { parseMediaTypes } from './http/negotiate.js';

/** A subresource beyond `status` served by a custom handler (binding, log, exec, scale…). */
export interface SubresourceInfo {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  responseKind: { group: string; version: string; kind: string };
  verbs: string[];
}

const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
export const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

/** Which discovery format the client asked for. */
export function wantsAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const mt of parseMediaTypes(accept)) {
    if (mt.type !== 'application/json') continue;
    if (mt.params['g'] === 'apidiscovery.k8s.io' && mt.params['as'] === 'APIGroupDiscoveryList') {
      if (mt.params['v'] === 'v2') return 'v2';
      if (mt.params['v'] === 'v2beta1') return 'v2beta1';
    }
    if (!mt.params['as']) return undefined;
  }
  return undefined;
}

function verbsOf(def: ResourceDefinition): string[] {
  return [...(def.verbs ?? ALL_VERBS)].sort();
}

function gvString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Upstream storageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>"). */
function storageVersionHash(def: ResourceDefinition): string {
  return createHash('sha256').update(`${def.group}/${def.version}/${def.kind}`).digest().subarray(0, 8).toString('base64');
}

/** Groups and versions in upstream's discovery order (core first, then by priority). */
const groupOrder = [
  '',
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
];

/**
 * One group-version served by another server behind an APIService (the aggregator's
 * discovery manager fills these in): its aggregated-discovery entry as the backend
 * reported it (`resources` as apidiscovery.k8s.io/v2 APIResourceDiscovery objects), stale
 * when the last fetch failed.
 */
export interface ExternalGroupVersion {
  group: string;
  version: string;
  /** apidiscovery.k8s.io/v2 APIResourceDiscovery objects */
  resources: unknown[];
  freshness: 'Current' | 'Stale';
  /** APIService spec.groupPriorityMinimum / spec.versionPriority */
  groupPriority: number;
  versionPriority: number;
}

export class Discovery {
  private readonly byGroup = new Map<string, Map<string, ResourceDefinition[]>>();
  /** group → version → entry, for group-versions served behind APIServices */
  private readonly external = new Map<string, Map<string, ExternalGroupVersion>>();
  private readonly subs: SubresourceInfo[];
  private cache = new Map<string, string>();
  /** groups whose versions are ordered by Kubernetes version priority (added at runtime) */
  private readonly dynamicGroups = new Set<string>();

  constructor(defs: ResourceDefinition[], subresources: SubresourceInfo[]) {
    this.subs = [...subresources];
    for (const d of defs) this.insert(d);
  }

  private insert(d: ResourceDefinition): void {
    let versions = this.byGroup.get(d.group);
    if (!versions) this.byGroup.set(d.group, (versions = new Map()));
    let list = versions.get(d.version);
    if (!list) versions.set(d.version, (list = []));
    list.push(d);
  }

  /**
   * Adds a resource served from now on (custom resources) with its custom subresource
   * handlers' discovery information. Versions of groups that gain resources this way are
   * ordered by Kubernetes version priority (v2 > v1 > v1beta1 > v1alpha1), as upstream
   * orders CRD versions.
   */
  add(def: ResourceDefinition, subresources: readonly SubresourceInfo[] = []): void {
    const dynamic = this.dynamicGroups.has(def.group) || !this.byGroup.has(def.group);
    this.insert(def);
    this.subs.push(...subresources);
    if (dynamic) {
      this.dynamicGroups.add(def.group);
      const versions = this.byGroup.get(def.group)!;
      const sorted = [...versions.entries()].sort(([a], [b]) => compareKubeAwareVersions(a, b));
      versions.clear();
      for (const [v, l] of sorted) versions.set(v, l);
    }
    this.cache.clear();
  }

  /** Stops listing a resource (and its subresources); drops emptied versions and groups. */
  remove(group: string, version: string, resource: string): void {
    const versions = this.byGroup.get(group);
    const list = versions?.get(version);
    if (!versions || !list) return;
    const i = list.findIndex((d) => d.resource === resource);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) versions.delete(version);
    if (versions.size === 0) {
      this.byGroup.delete(group);
      this.dynamicGroups.delete(group);
    }
    for (let j = this.subs.length - 1; j >= 0; j--) {
      const s = this.subs[j]!;
      if (s.group === group && s.version === version && s.resource === resource) this.subs.splice(j, 1);
    }
    this.cache.clear();
  }

  /**
   * Lists (or updates) a group-version served by another server behind an APIService;
   * it hides a local group-version of the same name.
   */
  setExternal(e: ExternalGroupVersion): void {
    let versions = this.external.get(e.group);
    if (!versions) this.external.set(e.group, (versions = new Map()));
    versions.set(e.version, e);
    this.cache.clear();
  }

  /** Stops listing an external group-version (its APIService is gone or became local). */
  removeExternal(group: string, version: string): void {
    const versions = this.external.get(group);
    if (!versions?.delete(version)) return;
    if (versions.size === 0) this.external.delete(group);
    this.cache.clear();
  }

  /** Drops cached documents (after a served definition changed in place). */
  invalidate(): void {
    this.cache.clear();
  }

  groups(): string[] {
    const gs = [...new Set([...this.byGroup.keys(), ...this.external.keys()])];
    const prio = (g: string): number => Math.max(0, ...[...(this.external.get(g)?.values() ?? [])].map((e) => e.groupPriority));
    // built-in groups in upstream's order; groups behind APIServices by priority, then name
    return gs.sort((a, b) => rank(a) - rank(b) || prio(b) - prio(a) || a.localeCompare(b));
  }

  hasGroupVersion(group: string, version: string): boolean {
    return !!this.byGroup.get(group)?.get(version);
  }

  hasGroup(group: string): boolean {
    return this.byGroup.has(group) || this.external.has(group);
  }

  /** The group's versions, preferred first: local ones in their order, then external ones by versionPriority. */
  private versions(group: string): string[] {
    const ext = this.external.get(group);
    const local = [...(this.byGroup.get(group)?.keys() ?? [])].filter((v) => !ext?.has(v));
    if (!ext) return local;
    const remote = [...ext.values()].sort((a, b) => b.versionPriority - a.versionPriority || compareKubeAwareVersions(a.version, b.version)).map((e) => e.version);
    return [...local, ...remote];
  }

  private subresourcesOf(def: ResourceDefinition): SubresourceInfo[] {
    const out: SubresourceInfo[] = [];
    if (def.status) {
      out.push({
        group: def.group,
        version: def.version,
        resource: def.resource,
        subresource: 'status',
        responseKind: { group: def.group, version: def.version, kind: def.kind },
        verbs: ['get', 'patch', 'update'],
      });
    }
    for (const sub of Object.keys(def.subresourceStrategies ?? {})) {
      out.push({
        group: def.group,
        version: def.version,
        resource: def.resource,
        subresource: sub,
        responseKind: { group: def.group, version: def.version, kind: def.kind },
        verbs: ['update'],
      });
    }
    for (const s of this.subs) if (s.group === def.group && s.version === def.version && s.resource === def.resource) out.push(s);
    return out.sort((a, b) => a.subresource.localeCompare(b.subresource));
  }

  private aggregatedGroup(group: string): unknown {
    const ext = this.external.get(group);
    return {
      metadata: { name: group, creationTimestamp: null },
      versions: this.versions(group).map((v) => {
        const e = ext?.get(v);
        return e ? { version: v, resources: e.resources, freshness: e.freshness } : this.aggregatedVersion(group, v);
      }),
    };
  }

  private aggregatedVersion(group: string, v: string): unknown {
    return {
      version: v,
      resources: (this.byGroup.get(group)!.get(v) ?? [])
        .slice()
        .sort((a, b) => a.resource.localeCompare(b.resource))
        .map((d) => {
          const r: Record<string, unknown> = {
            resource: d.resource,
            responseKind: { group: d.group, version: d.version, kind: d.kind },
            scope: d.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: d.singular,
            verbs: verbsOf(d),
          };
          if (d.shortNames?.length) r.shortNames = d.shortNames;
          if (d.categories?.length) r.categories = d.categories;
          const subs = this.subresourcesOf(d);
          if (subs.length) r.subresources = subs.map((s) => ({ subresource: s.subresource, responseKind: s.responseKind, verbs: s.verbs }));
          return r;
        }),
      freshness: 'Current',
    };
  }

  /** /api (core) or /apis (everything else) as APIGroupDiscoveryList JSON. */
  aggregated(prefix: 'api' | 'apis', version: 'v2' | 'v2beta1'): string {
    const key = `agg:${prefix}:${version}`;
    let s = this.cache.get(key);
    if (!s) {
      const groups = prefix === 'api' ? [''] : this.groups().filter((g) => g !== '');
      s = JSON.stringify({
        kind: 'APIGroupDiscoveryList',
        apiVersion: `apidiscovery.k8s.io/${version}`,
        metadata: {},
        items: groups.map((g) => this.aggregatedGroup(g)),
      });
      this.cache.set(key, s);
    }
    return s;
  }

  /** Legacy /api */
  apiVersions(serverAddress: string): unknown {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
  }

  private apiGroup(group: string): Record<string, unknown> {
    const versions = this.versions(group).map((v) => ({ groupVersion: gvString(group, v), version: v }));
    return { name: group, versions, preferredVersion: versions[0] };
  }

  /** Legacy /apis */
  apiGroupList(): unknown {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: this.groups()
        .filter((g) => g !== '')
        .map((g) => this.apiGroup(g)),
    };
  }

  /** Legacy /apis/<group> */
  apiGroupDoc(group: string): unknown {
    return { kind: 'APIGroup', apiVersion: 'v1', ...this.apiGroup(group) };
  }

  /** /api/v1 or /apis/<group>/<version> */
  resourceList(group: string, version: string): unknown {
    const defs = (this.byGroup.get(group)?.get(version) ?? []).slice().sort((a, b) => a.resource.localeCompare(b.resource));
    const resources: unknown[] = [];
    for (const d of defs) {
      const r: Record<string, unknown> = {
        name: d.resource,
        singularName: d.singular,
        namespaced: d.namespaced,
        kind: d.kind,
        verbs: verbsOf(d),
      };
      if (d.shortNames?.length) r.shortNames = d.shortNames;
      if (d.categories?.length) r.categories = d.categories;
      r.storageVersionHash = storageVersionHash(d);
      resources.push(r);
      for (const s of this.subresourcesOf(d)) {
        const sr: Record<string, unknown> = { name: `${d.resource}/${s.subresource}`, singularName: '', namespaced: d.namespaced };
        // upstream names the group and version of a kind from another group version (both:
        // kubectl drain's CheckEvictionSupport needs pods/eviction's group and version)
        if (s.responseKind.group !== d.group || s.responseKind.version !== d.version) {
          sr.group = s.responseKind.group;
          sr.version = s.responseKind.version;
        }
        sr.kind = s.responseKind.kind;
        sr.verbs = s.verbs;
        resources.push(sr);
      }
    }
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gvString(group, version), resources };
  }
}

/**
 * Kubernetes version priority (upstream version.CompareKubeAwareVersionStrings): GA
 * before beta before alpha, higher majors and minors first, anything else after, by name.
 * @returns negative when `a` comes first
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const tier = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [tier, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    if (pa[0] !== pb[0]) return pb[0] - pa[0];
    if (pa[1] !== pb[1]) return pb[1] - pa[1];
    return pb[2] - pa[2];
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function rank(g: string): number {
  const i = groupOrder.indexOf(g);
  return i < 0 ? groupOrder.length : i;
}
