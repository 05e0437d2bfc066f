/**
 * The resource quota controller: keeps each ResourceQuota's `status.hard` equal to
 * `spec.hard` and `status.used` equal to what the namespace's objects use, on every
 * quota or pod change and on a periodic full resync.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/resourcequota/resource_quota_controller.go
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import type { Pod } from '../../api/core/v1/pod/types.js';
import { addUsage, formatUsage, objectUsage, podUsage, quotaSelects, type Resources } from '../../api/core/v1/resourcequota/usage.js';
import { isConflict, isNotFound } from '../../apimachinery/errors.js';
import { Informer } from '../../client/informer.js';
import { R, type Client, type ResourceRef } from '../../client/types.js';

type Quota = ResourceQuota & KObject;

interface QuotaControllerOptions {
  client: Client;
  /** full resync period in ms (upstream 5 min) */
  resyncMs?: number;
  /** the controller manager's shared pod informer (else the controller lists and watches pods itself) */
  pods?: Informer<Pod & KObject>;
}

/** core/v1 resourcequotas. */
const QUOTA_REF: ResourceRef = { group: '', version: 'v1', resource: 'resourcequotas', kind: 'ResourceQuota', namespaced: true };

const POD_KEYS = /^(pods|count\/pods|cpu|memory|ephemeral-storage|requests\..+|limits\..+)$/;

/** The resource a `count/<resource>[.<group>]` key counts. */
function countRef(key: string): ResourceRef | undefined {
  const m = /^count\/([a-z0-9-]+)(?:\.(.+))?$/.exec(key);
  if (!m) return undefined;
  const resource = m[1]!;
  const group = m[2] ?? '';
  return { group, version: 'v1', resource, kind: '', namespaced: true };
}

const LEGACY: Record<string, string> = {
  services: 'services',
  secrets: 'secrets',
  configmaps: 'configmaps',
  persistentvolumeclaims: 'persistentvolumeclaims',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
  'services.nodeports': 'services',
  'services.loadbalancers': 'services',
  'requests.storage': 'persistentvolumeclaims',
};

export async function startResourceQuotaController(o: QuotaControllerOptions): Promise<{ stop(): Promise<void> }> {
  const { client } = o;
  const quotas = new Informer<Quota>(client, QUOTA_REF);
  const ownPods = !o.pods;
  const pods = o.pods ?? new Informer<Pod & KObject>(client, R.pods);
  const queue = new Set<string>();
  let scheduled = false;
  const enqueue = (ns: string): void => {
    queue.add(ns);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void drain());
  };
  const drain = async (): Promise<void> => {
    scheduled = false;
    for (const ns of [...queue]) {
      queue.delete(ns);
      for (const q of quotas.list().filter((x) => x.metadata?.namespace === ns)) {
        try {
          await syncQuota(q);
        } catch (e) {
          if (!isNotFound(e)) setTimeout(() => enqueue(ns), isConflict(e) ? 10 : 1000).unref();
        }
      }
    }
  };

  const syncQuota = async (q: Quota): Promise<void> => {
    const ns = q.metadata!.namespace!;
    const hard = (q.spec?.hard ?? {}) as Record<string, string>;
    const mask = new Set(Object.keys(hard));
    const used: Resources = {};
    if ([...mask].some((k) => POD_KEYS.test(k))) {
      for (const p of pods.list()) if (p.metadata?.namespace === ns && quotaSelects(q, '', 'pods', p)) addUsage(used, podUsage(p), mask);
    }
    const refs = new Map<string, ResourceRef>();
    for (const k of mask) {
      if (k === 'count/pods' || POD_KEYS.test(k)) continue;
      const ref = countRef(k) ?? (LEGACY[k] ? { group: '', version: 'v1', resource: LEGACY[k]!, kind: '', namespaced: true } : undefined);
      if (ref) refs.set(`${ref.group}/${ref.resource}`, ref);
    }
    for (const ref of refs.values()) {
      const list = await client.list(ref, ns);
      for (const obj of list.items) if (quotaSelects(q, ref.group, ref.resource, obj)) addUsage(used, objectUsage(ref.group, ref.resource, obj), mask);
    }
    const status = { hard: { ...hard }, used: formatUsage(used, hard) };
    if (JSON.stringify(q.status?.hard ?? {}) === JSON.stringify(status.hard) && JSON.stringify(sorted(q.status?.used)) === JSON.stringify(status.used)) return;
    await client.update(QUOTA_REF, ns, { ...q, status }, { subresource: 'status' });
  };

  quotas.addEventHandler({
    add: (q) => enqueue(q.metadata!.namespace!),
    update: (old, q) => {
      if (JSON.stringify(old.spec) !== JSON.stringify(q.spec) || JSON.stringify(q.status?.hard ?? {}) !== JSON.stringify(q.spec?.hard ?? {})) enqueue(q.metadata!.namespace!);
    },
  });
  const podChanged = (p: KObject): void => {
    const ns = p.metadata?.namespace;
    if (ns && quotas.list().some((q) => q.metadata?.namespace === ns)) enqueue(ns);
  };
  pods.addEventHandler({ add: podChanged, update: (_o, p) => podChanged(p), delete: podChanged });
  quotas.start();
  pods.start();
  await Promise.all([quotas.waitForSync(), pods.waitForSync()]);
  const timer = setInterval(() => {
    for (const q of quotas.list()) enqueue(q.metadata!.namespace!);
  }, o.resyncMs ?? 30_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      quotas.stop();
      if (ownPods) pods.stop();
    },
  };
}

function sorted(m: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(m ?? {}).sort()) out[k] = m![k]!;
  return out;
}
