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
import { writeContext, type ResourceContext } from '../endpoints/resource.js';
import { applyPatch } from '../endpoints/patch.js';
import { decodeObjectBody } from '../http/body.js';
import { checkTypes } from '../endpoints/typed-decode.js';
import { bodyFormat, negotiateOutput } from '../http/negotiate.js';
import { writeJSON } from '../http/respond.js';
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
      selector = Object.keys(set)
        .sort()
        .map((k) => `${k}=${set[k]}`)
        .join(',');
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

/**
 * How a resource maps onto a Scale: built-in kinds through spec.replicas and their
 * selector ({@link BUILTIN_SCALE_VIEW}); custom resources through the paths their CRD names.
 */
export interface ScaleView {
  /** the Scale view of a stored object */
  read(obj: Obj): Scale;
  /** writes the desired replicas into the object; returns the value it replaced */
  setReplicas(obj: Obj, replicas: number): number | undefined;
  /** the replicas field as fieldsV1 keys, for field ownership (e.g. `f:spec`,`f:replicas`) */
  fieldPath: readonly string[];
}

/** spec.replicas of Deployments, ReplicaSets, StatefulSets and ReplicationControllers. */
export const BUILTIN_SCALE_VIEW: ScaleView = {
  read: (obj) => scaleOf(obj),
  setReplicas(obj, replicas) {
    const spec = ((obj as { spec?: Record<string, unknown> }).spec ??= {});
    const old = spec.replicas as number | undefined;
    spec.replicas = replicas;
    return old;
  },
  fieldPath: ['f:spec', 'f:replicas'],
};

/** Upstream ValidateScale. */
function validateScale(s: Scale): FieldError[] {
  const r = s.spec?.replicas;
  if (r === undefined) return [];
  if (typeof r !== 'number' || !Number.isInteger(r)) return [invalid(Path.root('spec').child('replicas'), r, 'must be an integer')];
  return validateNonnegativeField(r, Path.root('spec').child('replicas'));
}

/** Applies a desired Scale to the stored object via the resource's own update path. */
async function updateFromScale(c: ResourceContext, ns: string, view: ScaleView, toScale: (current: Scale) => Scale): Promise<Scale> {
  const wc = writeContext(c);
  const name = c.info.name;
  const r = await c.store.update(
    ns,
    name,
    (current) => {
      const cur = current!;
      const desired = toScale(view.read(cur));
      const errs = validateScale(desired);
      if (errs.length) throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, name, errs);
      if (desired.metadata?.name !== undefined && desired.metadata.name !== name) {
        throw newBadRequest(`the name of the object (${desired.metadata.name}) does not match the name on the URL (${name})`);
      }
      const rv = desired.metadata?.resourceVersion;
      if (rv && rv !== cur.metadata.resourceVersion) throw newConflict(c.store.groupResource, name);
      const replicas = desired.spec?.replicas ?? 0;
      const oldReplicas = view.setReplicas(cur, replicas);
      // the replicas field now belongs to the scaler (upstream ScaleHandler)
      const manager = managerName(c.query.get('fieldManager'), c.req.headers['user-agent']);
      recordScaleUpdate(cur, oldReplicas, manager, { def: c.store.def, now: c.now }, view.fieldPath, replicas);
      delete cur.metadata.resourceVersion;
      return cur;
    },
    wc,
    'scale',
    {
      // admission sees autoscaling/v1 Scale objects, as upstream's
      admissionView: {
        kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        toView: (obj) => view.read(obj) as Obj,
        fromView(s, obj) {
          const replicas = (s as Scale).spec?.replicas;
          if (typeof replicas === 'number' && replicas !== (view.read(obj).spec?.replicas ?? 0)) view.setReplicas(obj, replicas);
        },
      },
    },
  );
  return view.read(r.obj.obj);
}

/**
 * The scale subresource handler for one resource (`deployments`, `replicasets`,
 * `statefulsets` of apps/v1, `replicationcontrollers`; custom resources with their view).
 */
export function scaleHandler(group: string, version: string, resource: string, view: ScaleView = BUILTIN_SCALE_VIEW): SubresourceHandler {
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
          writeJSON(c.res, 200, view.read(o.obj), { format: neg.format });
          return;
        }
        case 'update': {
          const neg = negotiateOutput(c.req.headers['accept'], false);
          const body = decodeObjectBody(c.req.headers['content-type'], c.req.body, 'Scale') as Scale;
          if (body.kind && body.kind !== 'Scale') {
            throw newBadRequest(`the object provided is unrecognized (must be of type Scale): ${body.kind} in version "${body.apiVersion ?? ''}" cannot be handled as a Scale`);
          }
          checkTypes({ group: 'autoscaling', version: 'v1', kind: 'Scale' }, body);
          const s = await updateFromScale(c, ns, view, () => body);
          writeJSON(c.res, 200, s, { format: neg.format });
          return;
        }
        case 'patch': {
          const neg = negotiateOutput(c.req.headers['accept'], false);
          const fmt = bodyFormat(c.req.headers['content-type']);
          const raw = c.req.body ?? Buffer.alloc(0);
          const s = await updateFromScale(c, ns, view, (current) => {
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
