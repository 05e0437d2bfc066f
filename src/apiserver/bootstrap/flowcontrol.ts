/**
 * Creates API Priority and Fairness' mandatory and suggested configuration objects when
 * missing (kube-apiserver's apiserver/bootstrap-system-flowcontrol-configuration hook)
 * and records each FlowSchema's Dangling=False condition, as the APF config controller
 * does for a schema whose priority level exists.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/flowcontrol/ensurer/
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go (Dangling condition)
 */
import type { FlowSchema } from 'kubernetes-types/flowcontrol/v1.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../../api/flowcontrol/v1/bootstrap.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import type { Client, ResourceRef } from '../../client/types.js';

const FS = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', kind: 'FlowSchema', namespaced: false } as const;
const PLC = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', namespaced: false } as const;

async function ensure<T extends KObject>(client: Client, r: ResourceRef, obj: KObject): Promise<T> {
  const name = obj.metadata!.name!;
  try {
    return await client.get<T>(r, '', name);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  try {
    return await client.create<T>(r, '', structuredClone(obj) as T);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    return client.get<T>(r, '', name);
  }
}

/** Ensures the bootstrap PriorityLevelConfigurations and FlowSchemas and their FlowSchemas' Dangling condition. */
export async function ensureFlowControlBootstrap(client: Client, now: () => Date = () => new Date()): Promise<void> {
  const levels = new Set<string>();
  for (const p of [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]) {
    await ensure(client, PLC, p as KObject);
    levels.add(p.metadata!.name!);
  }
  for (const f of [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]) {
    const cur = await ensure<FlowSchema & KObject>(client, FS, f as KObject);
    if ((cur.status?.conditions ?? []).some((c) => c.type === 'Dangling')) continue;
    const pl = cur.spec?.priorityLevelConfiguration?.name ?? '';
    const found = levels.has(pl);
    const condition = {
      type: 'Dangling',
      status: found ? 'False' : 'True',
      lastTransitionTime: now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
      reason: found ? 'Found' : 'NotFound',
      message: found
        ? `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(pl)} and it exists`
        : `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(pl)} but there is no such object`,
    };
    await client.update(FS, '', { ...cur, status: { conditions: [condition] } } as KObject, { subresource: 'status' });
  }
}
