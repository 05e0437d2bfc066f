/**
 * Creates the local APIServices of the served built-in group-versions and marks them
 * Available (what kube-apiserver's autoregister and local-availability controllers do at
 * start). Idempotent: existing APIServices keep their spec; a missing Available=True
 * condition is written.
 *
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/controllers/autoregister/autoregister_controller.go
 */
import { localAPIService, localAvailableCondition } from '../../api/apiregistration/v1/apiservice/local.js';
import type { APIService } from '../../api/apiregistration/v1/apiservice/strategy.js';
import type { ResourceDefinition } from '../../api/resource.js';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import type { Client } from '../../client/types.js';

const APISERVICES = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false } as const;

/** Ensures one Available local APIService per built-in group-version in `defs`. */
export async function ensureLocalAPIServices(client: Client, defs: readonly ResourceDefinition[], now: () => Date = () => new Date()): Promise<void> {
  const seen = new Set<string>();
  for (const d of defs) {
    const key = `${d.group}/${d.version}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const want = localAPIService(d.group, d.version);
    if (!want) continue;
    let cur: APIService;
    try {
      cur = await client.get<APIService>(APISERVICES, '', want.metadata!.name!);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        cur = await client.create<APIService>(APISERVICES, '', want);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        cur = await client.get<APIService>(APISERVICES, '', want.metadata!.name!);
      }
    }
    if (cur.spec?.service) continue;
    const available = (cur.status?.conditions ?? []).find((c) => c.type === 'Available');
    if (available?.status === 'True') continue;
    cur.status = { conditions: [localAvailableCondition(now())] };
    await client.update<APIService>(APISERVICES, '', cur, { subresource: 'status' });
  }
}
