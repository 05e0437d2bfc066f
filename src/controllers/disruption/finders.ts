/**
 * The scale of the controllers behind a budget's pods (upstream getExpectedScale and its
 * finders): each pod's controllerRef is resolved, in upstream's order, as a Deployment
 * through its ReplicaSet, a ReplicaSet not owned by a Deployment, a StatefulSet, and
 * finally any kind served with a `scale` subresource (ReplicationControllers and custom
 * resources included), found through discovery. Pods without a controller are returned
 * as unmanaged.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/disruption/disruption.go (finders, getExpectedScale, getScaleController)
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { KObject } from '../../api/resource.js';
import { isNotFound } from '../../apimachinery/errors.js';
import type { Informer } from '../../client/informer.js';
import type { Client, ResourceRef } from '../../client/types.js';
import { controllerRefOf } from '../util/controller-ref.js';
import type { Pod } from '../util/pods.js';

type RS = ReplicaSet & KObject;
type Dep = Deployment & KObject;
type STS = StatefulSet & KObject;

/** A controller's UID and desired replicas. */
interface ControllerAndScale {
  uid: string;
  scale: number;
}

/** What a finder is given: the pod's controllerRef and namespace. */
type ControllerFinder = (ref: OwnerReference, ns: string) => Promise<ControllerAndScale | undefined>;

const APPS = ['apps', 'extensions'];

function groupOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  const i = v.indexOf('/');
  return i < 0 ? '' : v.slice(0, i);
}

function verifyGroupKind(ref: OwnerReference, kind: string, groups: readonly string[]): boolean {
  return ref.kind === kind && groups.includes(groupOf(ref.apiVersion));
}

interface APIResource {
  name: string;
  kind: string;
}

/**
 * Kind → resource mapping from discovery (a minimal RESTMapper), cached per group/version.
 */
export class DiscoveryMapper {
  private readonly cache = new Map<string, APIResource[]>();

  constructor(private readonly client: Client) {}

  private async resources(apiVersion: string, refresh: boolean): Promise<APIResource[]> {
    let r = refresh ? undefined : this.cache.get(apiVersion);
    if (r) return r;
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const res = await this.client.raw('GET', path);
    r = res.status === 200 ? ((JSON.parse(res.body) as { resources?: APIResource[] }).resources ?? []) : [];
    this.cache.set(apiVersion, r);
    return r;
  }

  /**
   * The resource serving `kind` in `apiVersion` and whether it has a scale subresource.
   * @throws Error `no matches for kind "K" in version "G/V"` as the RESTMapper does
   */
  async mapping(apiVersion: string, kind: string): Promise<{ ref: ResourceRef; hasScale: boolean }> {
    for (const refresh of [false, true]) {
      const rs = await this.resources(apiVersion, refresh);
      const main = rs.find((x) => x.kind === kind && !x.name.includes('/'));
      if (!main) continue;
      const i = apiVersion.indexOf('/');
      const ref: ResourceRef = { group: i < 0 ? '' : apiVersion.slice(0, i), version: i < 0 ? apiVersion : apiVersion.slice(i + 1), resource: main.name, kind, namespaced: true };
      return { ref, hasScale: rs.some((x) => x.name === `${main.name}/scale`) };
    }
    throw new Error(`no matches for kind "${kind}" in version "${apiVersion}"`);
  }
}

/** The finders of upstream, in its order, over shared informers and the scale subresource. */
export function controllerFinders(client: Client, mapper: DiscoveryMapper, rsInformer: Informer<RS>, depInformer: Informer<Dep>, stsInformer: Informer<STS>): ControllerFinder[] {
  const deployment: ControllerFinder = async (ref, ns) => {
    if (!verifyGroupKind(ref, 'ReplicaSet', APPS)) return undefined;
    const rs = rsInformer.get(`${ns}/${ref.name}`);
    if (!rs || rs.metadata?.uid !== ref.uid) return undefined;
    const dref = controllerRefOf(rs);
    if (!dref || !verifyGroupKind(dref, 'Deployment', APPS)) return undefined;
    const d = depInformer.get(`${ns}/${dref.name}`);
    if (!d || d.metadata?.uid !== dref.uid) return undefined;
    return { uid: dref.uid, scale: d.spec?.replicas ?? 1 };
  };
  const replicaSet: ControllerFinder = async (ref, ns) => {
    if (!verifyGroupKind(ref, 'ReplicaSet', APPS)) return undefined;
    const rs = rsInformer.get(`${ns}/${ref.name}`);
    if (!rs || rs.metadata?.uid !== ref.uid) return undefined;
    const dref = controllerRefOf(rs);
    if (dref && dref.kind === 'Deployment') return undefined;
    return { uid: ref.uid, scale: rs.spec?.replicas ?? 1 };
  };
  const statefulSet: ControllerFinder = async (ref, ns) => {
    if (!verifyGroupKind(ref, 'StatefulSet', APPS)) return undefined;
    const s = stsInformer.get(`${ns}/${ref.name}`);
    if (!s || s.metadata?.uid !== ref.uid) return undefined;
    return { uid: ref.uid, scale: s.spec?.replicas ?? 1 };
  };
  const scaleController: ControllerFinder = async (ref, ns) => {
    const { ref: rr, hasScale } = await mapper.mapping(ref.apiVersion, ref.kind);
    try {
      const scale = await client.get<KObject & { spec?: { replicas?: number } }>(rr, ns, ref.name, { subresource: 'scale' });
      if (scale.metadata?.uid !== ref.uid) return undefined;
      return { uid: ref.uid, scale: scale.spec?.replicas ?? 0 };
    } catch (e) {
      if (!isNotFound(e)) throw e;
      if (!hasScale) throw new Error(`${rr.group ? `${rr.resource}.${rr.group}` : rr.resource} does not implement the scale subresource`);
      return undefined;
    }
  };
  return [deployment, replicaSet, statefulSet, scaleController];
}

/**
 * Upstream getExpectedScale: the summed scale of the distinct controllers of `pods`, and
 * the names of pods without a controller.
 * @throws Error `found no controllers for pod "name"` when no finder knows a pod's controller,
 *   or a finder's error
 */
export async function expectedScale(pods: readonly Pod[], finders: readonly ControllerFinder[]): Promise<{ expectedCount: number; unmanaged: string[] }> {
  const scales = new Map<string, number>();
  const unmanaged: string[] = [];
  for (const pod of pods) {
    const ref = controllerRefOf(pod);
    if (!ref) {
      unmanaged.push(pod.metadata?.name ?? '');
      continue;
    }
    if (scales.has(ref.uid)) continue;
    let found = false;
    for (const f of finders) {
      const cs = await f(ref, pod.metadata?.namespace ?? '');
      if (cs) {
        scales.set(cs.uid, cs.scale);
        found = true;
        break;
      }
    }
    if (!found) throw new Error(`found no controllers for pod "${pod.metadata?.name ?? ''}"`);
  }
  let expectedCount = 0;
  for (const n of scales.values()) expectedCount += n;
  return { expectedCount, unmanaged };
}
