/**
 * The `scale` subresource of Deployments, ReplicaSets and StatefulSets: an
 * autoscaling/v1 Scale view of the object (spec.replicas, status.replicas and the
 * selector as a string). GET reads it; PUT and PATCH (JSON, merge and strategic merge
 * patches of the Scale) change spec.replicas through the resource's own update strategy,
 * with the Scale's resourceVersion as precondition when set.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/apps/deployment/storage/storage.go (ScaleREST)
 */
import type { KObject, Obj, ResourceDefinition } from '../../api/resource.js';
import { newBadRequest, newConflict, newInvalid, newMethodNotSupported } from '../../apimachinery/errors.js';
import { type FieldError, invalid, Path } from '../../apimachinery/field-errors.js';
import { labelSelectorAsSelector } from '../../apimachinery/labels.js';
import { validateNonnegativeField } from '../../apimachinery/validation.js';
import type { ResourceContext } from '../endpoints/resource.js';
import { applyPatch } from '../endpoints/patch.js';
import { decodeObjectBody } from '../http/body.js';
import { bodyFormat, negotiateOutput } from '../http/negotiate.js';
import { writeJSON } from '../http/respond.js';
import type { WriteContext } from '../registry/store.js';
import type { SubresourceHandler } from './types.js';
import { managerName } from '../fieldmanager/fieldmanager.js';
import { recordScaleUpdate } from '../fieldmanager/scale.js';

/** autoscaling/v1 Scale. */
export interface Scale extends KObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

/** The definition applyPatch uses for Scale bodies (its strategic merge patch metadata). */
const SCALE_DEF = { group: 'autoscaling', version: 'v1', kind: 'Scale', resource: 'scale' } as ResourceDefinition;

/** The Scale view of a scalable object. */
export function scaleOf(obj: Obj): Scale {
  const m = obj.metadata;
  const spec = (obj.spec ?? {}) as { replicas?: number; selector?: Parameters<typeof labelSelectorAsSelector>[0] };
  const status = (obj.status ?? {}) as { replicas?: number };
  let selector = '';
  try {
    if (obj.kind === 'ReplicationController') {
      // a ReplicationController's selector is a plain label map (upstream SelectorFromSet: sorted key=value)
      const set = (spec.selector ?? {}) as Record<string, string>;
      selector = Object.keys(set).sort().map((k) => `${k}=${set[k]}`).join(',');
    } else selector = labelSelectorAsSelector(spec.selector).toString();
  } catch {
    selector = '';
  }
  const meta: Record<string, unknown> = { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp };
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: meta,
    spec: spec.replicas !== undefined ? { replicas: spec.replicas } : {},
    status: { replicas: status.replicas ?? 0, selector },
  };
}

/** Upstream ValidateScale. */
function validateScale(s: Scale): FieldError[] {
  const r = s.spec?.replicas;
  if (r === undefined) return [];
  if (typeof r !== 'number' || !Number.isInteger(r)) return [invalid(Path.root('spec').child('replicas'), r, 'must be an integer')];
  return validateNonnegativeField(r, Path.root('spec').child('replicas'));
}

function writeContextOf(c: ResourceContext): WriteContext {
  const dry = c.query.getAll('dryRun');
  if (dry.some((d) => d !== 'All')) throw newBadRequest(`Invalid dryRun parameter: ${dry.join(',')}`);
  return {
    user: c.req.user ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    dryRun: dry.includes('All'),
    warnings: [],
    now: c.now,
    fieldManager: c.query.get('fieldManager') ?? undefined,
  };
}

/** Applies a desired Scale to the stored object via the resource's own update path. */
async function updateFromScale(c: ResourceContext, ns: string, toScale: (current: Scale) => Scale): Promise<Scale> {
  const wc = writeContextOf(c);
  const name = c.info.name;
  const r = await c.store.update(
    ns,
    name,
    (current) => {
      const cur = current!;
      const desired = toScale(scaleOf(cur));
      const errs = validateScale(desired);
      if (errs.length) throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, name, errs);
      if (desired.metadata?.name !== undefined && desired.metadata.name !== name) {
        throw newBadRequest(`the name of the object (${desired.metadata.name}) does not match the name on the URL (${name})`);
      }
      const rv = desired.metadata?.resourceVersion;
      if (rv && rv !== cur.metadata.resourceVersion) throw newConflict(c.store.groupResource, name);
      const spec = ((cur as { spec?: Record<string, unknown> }).spec ??= {});
      const oldReplicas = spec.replicas as number | undefined;
      spec.replicas = desired.spec?.replicas ?? 0;
      // spec.replicas now belongs to the scaler (upstream ScaleHandler)
      recordScaleUpdate(cur, oldReplicas, managerName(c.query.get('fieldManager'), c.req.headers['user-agent']), { def: c.store.def, now: c.now });
      delete cur.metadata.resourceVersion;
      return cur;
    },
    wc,
    'scale',
  );
  return scaleOf(r.obj.obj);
}

/**
 * The scale subresource handler for one resource (`deployments`, `replicasets`,
 * `statefulsets` of apps/v1).
 */
export function scaleHandler(group: string, version: string, resource: string): SubresourceHandler {
  return {
    group,
    version,
    resource,
    subresource: 'scale',
    responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    verbs: ['get', 'patch', 'update'],
    async handle(c) {
      const ns = c.info.namespace;
      const name = c.info.name;
      switch (c.info.verb) {
        case 'get': {
          const neg = negotiateOutput(c.req.headers['accept'], false);
          const o = await c.store.get(ns, name);
          writeJSON(c.res, 200, scaleOf(o.obj), { format: neg.format });
          return;
        }
        case 'update': {
          const neg = negotiateOutput(c.req.headers['accept'], false);
          const body = decodeObjectBody(c.req.headers['content-type'], c.req.body) as Scale;
          if (body.kind && body.kind !== 'Scale') {
            throw newBadRequest(`the object provided is unrecognized (must be of type Scale): ${body.kind} in version "${body.apiVersion ?? ''}" cannot be handled as a Scale`);
          }
          const s = await updateFromScale(c, ns, () => body);
          writeJSON(c.res, 200, s, { format: neg.format });
          return;
        }
        case 'patch': {
          const neg = negotiateOutput(c.req.headers['accept'], false);
          const fmt = bodyFormat(c.req.headers['content-type']);
          const raw = c.req.body ?? Buffer.alloc(0);
          const s = await updateFromScale(c, ns, (current) => {
            const r = applyPatch(SCALE_DEF, fmt, c.req.headers['content-type'], raw, current as Obj, name, c.query);
            const patched = r.object as Scale;
            // the resourceVersion the patch did not set is not a precondition
            if (patched.metadata?.resourceVersion === current.metadata?.resourceVersion) delete patched.metadata!.resourceVersion;
            return patched;
          });
          writeJSON(c.res, 200, s, { format: neg.format });
          return;
        }
        default:
          throw newMethodNotSupported({ group, resource: `${resource}/scale` }, c.info.verb);
      }
    },
  };
}

/** The scale subresources k8ts serves (wire these into the APIServer's `subresources`). */
export const scaleSubresources: SubresourceHandler[] = [
  scaleHandler('apps', 'v1', 'deployments'),
  scaleHandler('apps', 'v1', 'replicasets'),
  scaleHandler('apps', 'v1', 'statefulsets'),
  scaleHandler('', 'v1', 'replicationcontrollers'),
];
