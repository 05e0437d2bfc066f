/**
 * pods/eviction: deletes a pod unless that would violate its PodDisruptionBudget, as
 * `kubectl drain` uses it. Terminal, pending and terminating pods are deleted without
 * checking budgets; otherwise the one PDB selecting the pod must have processed its
 * current generation and allow a disruption, which the eviction takes (disruptionsAllowed
 * − 1, the pod recorded in status.disruptedPods) before the pod gets the
 * DisruptionTarget condition and is deleted. Refusals are upstream's 429
 * `Cannot evict pod as it would violate the pod's disruption budget.` with a
 * DisruptionBudget cause.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/storage/eviction.go
 */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Obj } from '../../api/resource.js';
import { failureStatus, newBadRequest, newConflict, newForbidden, newTooManyRequests, StatusError, successStatus, isConflict } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector } from '../../apimachinery/labels.js';
import { rfc3339 } from '../registry/meta.js';
import type { DeleteParams, Store, WriteContext } from '../registry/store.js';
import { writeJSON } from '../http/respond.js';
import type { ResourceContext } from '../endpoints/resource.js';
import { createRequest } from './request.js';
import type { SubresourceHandler } from './types.js';

/** Upper bound of status.disruptedPods entries (upstream MaxDisruptedPodSize). */
export const MAX_DISRUPTED_POD_SIZE = 2000;
const CONFLICT_RETRIES = 20;

interface Eviction {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  deleteOptions?: {
    gracePeriodSeconds?: number;
    preconditions?: { uid?: string; resourceVersion?: string };
    propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
    orphanDependents?: boolean;
    dryRun?: string[];
  };
}

type PodLike = Obj & {
  status?: { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string; lastProbeTime?: string | null }[] };
};

/** Pods whose eviction needs no budget check (upstream canIgnorePDB). */
export function canIgnorePDB(pod: PodLike): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
}

function isPodReady(pod: PodLike): boolean {
  return !!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** 429 for a budget that has not processed its latest generation (upstream createTooManyRequestsError). */
export function budgetProcessingError(pdbName: string): StatusError {
  const e = newTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10);
  e.status.details!.causes = [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdbName} is still being processed by the server.` }];
  return e;
}

/**
 * Upstream checkAndDecrement: the budget after taking one disruption for `podName`, or the
 * error refusing it.
 * @throws StatusError 429 TooManyRequests / 403 Forbidden
 */
export function checkAndDecrement(pdb: PodDisruptionBudget & Obj, podName: string, now: Date, dryRun: boolean): PodDisruptionBudget & Obj {
  const st = pdb.status ?? ({} as NonNullable<PodDisruptionBudget['status']>);
  const gen = (pdb.metadata as { generation?: number }).generation ?? 0;
  if ((st.observedGeneration ?? 0) < gen) throw budgetProcessingError(pdb.metadata.name ?? '');
  if ((st.disruptionsAllowed ?? 0) < 0) throw newForbidden({ group: 'policy', resource: 'poddisruptionbudget' }, pdb.metadata.name ?? '', 'pdb disruptions allowed is negative');
  if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    throw newForbidden(
      { group: 'policy', resource: 'poddisruptionbudget' },
      pdb.metadata.name ?? '',
      'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
    );
  }
  if ((st.disruptionsAllowed ?? 0) === 0) {
    const e = newTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
    e.status.details!.causes = [
      {
        reason: 'DisruptionBudget',
        message: `The disruption budget ${pdb.metadata.name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`,
      },
    ];
    throw e;
  }
  const out = structuredClone(pdb);
  const os = (out.status ??= {} as NonNullable<PodDisruptionBudget['status']>) as Record<string, unknown> & NonNullable<PodDisruptionBudget['status']>;
  os.disruptionsAllowed = (st.disruptionsAllowed ?? 0) - 1;
  if (os.disruptionsAllowed === 0) setDisruptionAllowedCondition(out, now);
  if (!dryRun) os.disruptedPods = { ...(st.disruptedPods ?? {}), [podName]: rfc3339(now) };
  return out;
}

/** Upstream pdbhelper.UpdateDisruptionAllowedCondition. */
function setDisruptionAllowedCondition(pdb: PodDisruptionBudget, now: Date): void {
  const st = pdb.status!;
  const allowed = (st.disruptionsAllowed ?? 0) > 0;
  const cond = {
    type: 'DisruptionAllowed',
    status: allowed ? 'True' : 'False',
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    observedGeneration: st.observedGeneration ?? 0,
    lastTransitionTime: rfc3339(now),
  };
  const conds = (st.conditions ?? []).filter((c) => c.type !== 'DisruptionAllowed');
  const old = st.conditions?.find((c) => c.type === 'DisruptionAllowed');
  if (old && old.status === cond.status) cond.lastTransitionTime = old.lastTransitionTime;
  st.conditions = [...conds, cond];
}

function writeContextOf(c: ResourceContext, dryRun: boolean): WriteContext {
  return { user: c.req.user ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] }, dryRun, warnings: [], now: c.now };
}

/** Adds DisruptionTarget=True (EvictionByEvictionAPI) and deletes the pod. */
async function addConditionAndDelete(c: ResourceContext, ns: string, name: string, p: DeleteParams, dryRun: boolean): Promise<void> {
  const wc = writeContextOf(c, dryRun);
  let params = p;
  if (!dryRun) {
    const r = await c.store.update(
      ns,
      name,
      (cur) => {
        const pod = cur as PodLike;
        const pre = p.preconditions;
        if (pre?.uid && pre.uid !== pod.metadata.uid) {
          throw newConflict(
            { group: '', resource: 'Pod' },
            name,
            `the UID in the precondition (${pre.uid}) does not match the UID in record (${pod.metadata.uid}). The object might have been deleted and then recreated`,
          );
        }
        if (pre?.resourceVersion && pre.resourceVersion !== pod.metadata.resourceVersion) {
          throw newConflict(
            { group: '', resource: 'Pod' },
            name,
            `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${pod.metadata.resourceVersion}). The object might have been modified`,
          );
        }
        const st = (pod.status ??= {});
        const conds = (st.conditions ??= []);
        const existing = conds.find((x) => x.type === 'DisruptionTarget');
        const ts = rfc3339(c.now);
        if (existing) {
          if (existing.status !== 'True') existing.lastTransitionTime = ts;
          Object.assign(existing, { status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' });
        } else
          conds.push({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: ts, reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' });
        delete pod.metadata.resourceVersion;
        return pod;
      },
      wc,
      'status',
    );
    if (p.preconditions?.resourceVersion) params = { ...p, preconditions: { ...p.preconditions, resourceVersion: r.obj.obj.metadata.resourceVersion } };
  }
  await c.store.delete(ns, name, params, wc);
}

/** The PDBs in the pod's namespace whose selector matches its labels. */
async function budgetsFor(pdbs: Store, pod: PodLike): Promise<(PodDisruptionBudget & Obj)[]> {
  const l = await pdbs.list(pod.metadata.namespace ?? '', {});
  const out: (PodDisruptionBudget & Obj)[] = [];
  for (const o of l.items) {
    const pdb = o.obj as PodDisruptionBudget & Obj;
    try {
      if (labelSelectorAsSelector(pdb.spec?.selector).matches(pod.metadata.labels ?? {})) out.push(pdb);
    } catch {
      /* an invalid selector matches nothing */
    }
  }
  return out;
}

function deleteParamsOf(ev: Eviction): DeleteParams {
  const d = ev.deleteOptions ?? {};
  const p: DeleteParams = {};
  if (typeof d.gracePeriodSeconds === 'number') p.gracePeriodSeconds = d.gracePeriodSeconds < 0 ? 1 : d.gracePeriodSeconds;
  if (d.preconditions) p.preconditions = { ...d.preconditions };
  if (d.propagationPolicy) p.propagationPolicy = d.propagationPolicy;
  if (d.orphanDependents === true) p.propagationPolicy = 'Orphan';
  return p;
}

/** pods/eviction (policy/v1 and policy/v1beta1 Eviction bodies). */
export const podEviction: SubresourceHandler = {
  group: '',
  version: 'v1',
  resource: 'pods',
  subresource: 'eviction',
  responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
  verbs: ['create'],
  async handle(c, stores) {
    const { body: ev, dryRun: queryDryRun } = createRequest<Eviction>(c, { group: 'policy', version: 'v1', kind: 'Eviction' });
    if (ev.apiVersion && ev.apiVersion !== 'policy/v1' && ev.apiVersion !== 'policy/v1beta1') {
      throw newBadRequest(`the API version in the data (${ev.apiVersion}) does not match the expected API version (policy/v1)`);
    }
    const ns = c.info.namespace;
    const name = c.info.name;
    if (ev.metadata?.name !== name) throw newBadRequest('name in URL does not match name in Eviction object');
    if (ev.metadata?.namespace && ev.metadata.namespace !== ns) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const queryDry = c.query.getAll('dryRun');
    const bodyDry = ev.deleteOptions?.dryRun ?? [];
    if (queryDry.length && bodyDry.length && queryDry.join(',') !== bodyDry.join(',')) {
      throw newBadRequest(`Non-matching dry-run options in request and content: [${queryDry.join(' ')}] and [${bodyDry.join(' ')}]`);
    }
    const dryRun = queryDryRun || bodyDry.includes('All');
    // admission sees the policy/v1 Eviction (upstream EvictionREST.Create's createValidation)
    const user = c.req.user ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    const admitted = { ...ev, apiVersion: 'policy/v1', kind: 'Eviction', metadata: { ...ev.metadata, namespace: ns } } as Eviction & Obj;
    await c.store.admitRequest({
      operation: 'CREATE',
      namespace: ns,
      name,
      subresource: 'eviction',
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      object: admitted,
      user,
      dryRun,
    });
    const original = deleteParamsOf(admitted);
    const pdbStore = stores.store('policy', 'poddisruptionbudgets');
    const done = (): void => writeJSON(c.res, 201, { ...successStatus(), code: 201 });

    // terminal, pending or terminating pods: delete without consulting budgets
    let pod!: PodLike;
    for (let attempt = 0; ; attempt++) {
      pod = (await c.store.get(ns, name)).clone() as PodLike;
      if (!canIgnorePDB(pod)) break;
      const p = structuredClone(original);
      const phase = pod.status?.phase;
      const enforce = !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp);
      if (enforce && !p.preconditions?.resourceVersion) p.preconditions = { ...p.preconditions, resourceVersion: pod.metadata.resourceVersion };
      try {
        await addConditionAndDelete(c, ns, name, p, dryRun);
        return done();
      } catch (e) {
        if (isConflict(e) && !original.preconditions?.resourceVersion && attempt < CONFLICT_RETRIES) continue;
        throw e;
      }
    }

    let pdbName = '';
    let pinResourceVersion = false;
    const pdbs = pdbStore ? await budgetsFor(pdbStore, pod) : [];
    if (pdbs.length > 1) {
      const st = failureStatus(500, '', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
      delete st.reason;
      throw new StatusError(st);
    }
    if (pdbs.length === 1) {
      let pdb = pdbs[0]!;
      pdbName = pdb.metadata.name ?? '';
      const policy = pdb.spec?.unhealthyPodEvictionPolicy;
      const st = pdb.status ?? ({} as NonNullable<PodDisruptionBudget['status']>);
      if (!isPodReady(pod) && (policy === 'AlwaysAllow' || ((st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0))) {
        pinResourceVersion = true;
      } else {
        for (let attempt = 0; ; attempt++) {
          const updated = checkAndDecrement(pdb, pod.metadata.name ?? '', c.now, dryRun);
          if (dryRun) break;
          try {
            const rv = pdb.metadata.resourceVersion;
            await pdbStore!.update(
              ns,
              pdbName,
              (cur) => {
                if (cur!.metadata.resourceVersion !== rv) throw newConflict({ group: 'policy', resource: 'poddisruptionbudgets' }, pdbName);
                return updated;
              },
              writeContextOf(c, false),
              'status',
            );
            break;
          } catch (e) {
            if (!isConflict(e) || attempt >= CONFLICT_RETRIES) throw e;
            pdb = (await pdbStore!.get(ns, pdbName)).clone() as PodDisruptionBudget & Obj;
          }
        }
      }
    }
    const p = structuredClone(original);
    if (pinResourceVersion) p.preconditions = { ...p.preconditions, resourceVersion: pod.metadata.resourceVersion };
    try {
      await addConditionAndDelete(c, ns, name, p, dryRun);
    } catch (e) {
      if (isConflict(e) && pinResourceVersion && !original.preconditions?.resourceVersion) throw budgetProcessingError(pdbName);
      throw e;
    }
    done();
  },
};
