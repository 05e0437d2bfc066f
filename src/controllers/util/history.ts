/**
 * ControllerRevision history shared by the StatefulSet and DaemonSet controllers: a
 * revision snapshots the pod template as the patch `{"spec":{"template":{…,"$patch":"replace"}}}`,
 * is named `<parent>-<hash>` (the hash over the data and the collision count), carries
 * the template's labels plus `controller-revision-hash=<hash>`, and is owned by its
 * parent (controller=true). Creation resolves name collisions by bumping the collision
 * count, as upstream's history.CreateControllerRevision.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/history/controller_history.go
 */
import type { ControllerRevision as KControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists } from '../../apimachinery/errors.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import type { Client } from '../../client/types.js';
import { newControllerRef } from './controller-ref.js';
import { computeHash } from './hash.js';
import { W } from './resources.js';

/** A ControllerRevision as the controllers handle it. */
export type ControllerRevision = KControllerRevision & KObject;

/** The label holding a revision's hash (and a pod's revision). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/** `<prefix>-<hash>`, the prefix cut to 223 characters (upstream ControllerRevisionName). */
function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** The revision data for a pod template: a strategic merge patch replacing `spec.template`. */
export function templatePatch(template: unknown): { spec: { template: Record<string, unknown> } } {
  return { spec: { template: { ...(structuredClone(template ?? {}) as Record<string, unknown>), $patch: 'replace' } } };
}

/** The pod template a revision holds (its data without the `$patch` directive). */
export function templateOfRevision<T = unknown>(rev: ControllerRevision): T {
  const t = { ...((rev.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec?.template ?? {}) };
  delete t.$patch;
  return structuredClone(t) as T;
}

/** The hash of a revision's data and collision count (upstream HashControllerRevision). */
function hashControllerRevision(data: unknown, collisionCount?: number): string {
  return computeHash(data, collisionCount);
}

/**
 * A new (unsaved) revision of `parent` (upstream NewControllerRevision).
 * @param revision the revision number
 */
export function newControllerRevision(
  parent: KObject,
  kind: string,
  templateLabels: Record<string, string> | undefined,
  data: unknown,
  revision: number,
  collisionCount?: number,
): ControllerRevision {
  const hash = hashControllerRevision(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(parent.metadata?.name ?? '', hash),
      namespace: parent.metadata?.namespace,
      labels: { ...(templateLabels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ownerReferences: [newControllerRef(parent, 'apps/v1', kind)],
    },
    data: data as object,
    revision,
  };
}

/**
 * Same data (upstream EqualRevision: its hash-label comparison only applies to decimal
 * hashes, which safe-encoded hashes never are, so in effect the data decides).
 */
export function equalRevision(a: ControllerRevision | undefined, b: ControllerRevision | undefined): boolean {
  if (!a || !b) return a === b;
  return jsonEqual(a.data, b.data);
}

/** Revisions sorted by revision number, then name (upstream SortControllerRevisions). */
export function sortRevisions(revs: ControllerRevision[]): ControllerRevision[] {
  return [...revs].sort((a, b) => a.revision - b.revision || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

/** One past the highest revision number (1 for none). */
export function nextRevision(revs: ControllerRevision[]): number {
  let max = 0;
  for (const r of revs) max = Math.max(max, r.revision);
  return max + 1;
}

/**
 * Creates `rev` for `parent`; on a name taken by a different revision, bumps the
 * collision count and retries with the new hash (upstream CreateControllerRevision).
 * @param counter the parent's status.collisionCount, updated in place on collisions
 * @param annotations the revision's annotations (a StatefulSet's own, upstream newRevision)
 * @returns the created revision, or the existing equal one
 * @throws StatusError from the API server
 */
export async function createControllerRevision(
  client: Client,
  parent: KObject,
  kind: string,
  templateLabels: Record<string, string> | undefined,
  data: unknown,
  revision: number,
  counter: { collisionCount?: number },
  annotations?: Record<string, string>,
): Promise<ControllerRevision> {
  const ns = parent.metadata?.namespace ?? '';
  for (;;) {
    const rev = newControllerRevision(parent, kind, templateLabels, data, revision, counter.collisionCount);
    if (annotations && Object.keys(annotations).length) rev.metadata!.annotations = { ...annotations };
    try {
      return await client.create<ControllerRevision>(W.controllerrevisions, ns, rev);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await client.get<ControllerRevision>(W.controllerrevisions, ns, rev.metadata!.name!);
      if (equalRevision(existing, rev) && existing.metadata?.ownerReferences?.some((r) => r.uid === parent.metadata?.uid)) return existing;
      counter.collisionCount = (counter.collisionCount ?? 0) + 1;
    }
  }
}

/**
 * Deletes the oldest revisions beyond `limit` that no live object uses (upstream
 * truncateHistory of both controllers).
 * @param live names of revisions in use (current, update, referenced by pods)
 */
export async function truncateHistory(client: Client, revs: ControllerRevision[], live: Set<string>, limit: number): Promise<void> {
  const old = sortRevisions(revs).filter((r) => !live.has(r.metadata?.name ?? ''));
  const excess = old.length - Math.max(0, limit);
  for (let i = 0; i < excess; i++) {
    const r = old[i]!;
    try {
      await client.delete(W.controllerrevisions, r.metadata!.namespace!, r.metadata!.name!);
    } catch {
      /* gone already or transient: the next sync retries */
    }
  }
}
