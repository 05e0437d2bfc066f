/**
 * The `scale` subresource of custom resources: an autoscaling/v1 Scale whose
 * spec.replicas, status.replicas and status.selector are read from the paths the CRD
 * names (`specReplicasPath`, `statusReplicasPath`, `labelSelectorPath`). Writes set the
 * spec path through the resource's own update strategy (validation, generation bump).
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/registry/customresource/etcd.go (ScaleREST)
 */
import type { CustomResourceSubresourceScale } from 'kubernetes-types/apiextensions/v1.js';
import type { Obj, ResourceDefinition } from '../../api/resource.js';
import { newBadRequest, newConflict, newInvalid, newMethodNotSupported } from '../../apimachinery/errors.js';
import { invalid, Path } from '../../apimachinery/field-errors.js';
import { validateNonnegativeField } from '../../apimachinery/validation.js';
import { applyPatch } from '../endpoints/patch.js';
import type { ResourceContext } from '../endpoints/resource.js';
import { decodeObjectBody } from '../http/body.js';
import { bodyFormat, negotiateOutput } from '../http/negotiate.js';
import { writeJSON } from '../http/respond.js';
import type { WriteContext } from '../registry/store.js';
import type { Scale } from '../subresources/scale.js';
import type { SubresourceHandler } from '../subresources/types.js';
import { parseSimpleJSONPath, valueAt } from './printer.js';

const SCALE_DEF = { group: 'autoscaling', version: 'v1', kind: 'Scale', resource: 'scale' } as ResourceDefinition;

type Steps = NonNullable<ReturnType<typeof parseSimpleJSONPath>>;

function setAt(obj: Record<string, unknown>, steps: Steps, value: unknown): void {
  let cur: Record<string | number, unknown> = obj;
  for (let i = 0; i < steps.length - 1; i++) {
    const s = steps[i]!;
    let next = cur[s];
    if (next === null || typeof next !== 'object') cur[s] = next = {};
    cur = next as Record<string | number, unknown>;
  }
  cur[steps[steps.length - 1]!] = value;
}

/** The Scale view of a custom resource. */
export function customResourceScale(obj: Obj, paths: { spec: Steps; status: Steps; selector?: Steps }): Scale {
  const m = obj.metadata;
  const specReplicas = valueAt(obj, paths.spec);
  const statusReplicas = valueAt(obj, paths.status);
  const selector = paths.selector ? valueAt(obj, paths.selector) : undefined;
  const status: { replicas: number; selector?: string } = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector) status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: typeof specReplicas === 'number' ? { replicas: specReplicas } : {},
    status,
  };
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

/**
 * The scale subresource handler of one custom resource version.
 * @throws Error when a path of `scale` is not a simple JSONPath (validation rejects such CRDs)
 */
export function customResourceScaleHandler(group: string, version: string, resource: string, scale: CustomResourceSubresourceScale): SubresourceHandler {
  const spec = parseSimpleJSONPath(scale.specReplicasPath);
  const status = parseSimpleJSONPath(scale.statusReplicasPath);
  const selector = scale.labelSelectorPath ? parseSimpleJSONPath(scale.labelSelectorPath) : undefined;
  if (!spec || !status) throw new Error(`invalid scale paths ${scale.specReplicasPath} ${scale.statusReplicasPath}`);
  const paths = { spec, status, selector };

  const update = async (c: ResourceContext, toScale: (current: Scale) => Scale): Promise<Scale> => {
    const wc = writeContextOf(c);
    const name = c.info.name;
    const r = await c.store.update(
      c.info.namespace,
      name,
      (current) => {
        const cur = current!;
        const desired = toScale(customResourceScale(cur, paths));
        const replicas = desired.spec?.replicas;
        if (replicas !== undefined) {
          const errs =
            typeof replicas !== 'number' || !Number.isInteger(replicas)
              ? [invalid(Path.root('spec').child('replicas'), replicas, 'must be an integer')]
              : validateNonnegativeField(replicas, Path.root('spec').child('replicas'));
          if (errs.length) throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, name, errs);
        }
        const rv = desired.metadata?.resourceVersion;
        if (rv && rv !== cur.metadata.resourceVersion) throw newConflict(c.store.groupResource, name);
        setAt(cur, paths.spec, replicas ?? 0);
        delete cur.metadata.resourceVersion;
        return cur;
      },
      wc,
      'scale',
    );
    return customResourceScale(r.obj.obj, paths);
  };

  return {
    group,
    version,
    resource,
    subresource: 'scale',
    responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    verbs: ['get', 'patch', 'update'],
    async handle(c) {
      switch (c.info.verb) {
        case 'get': {
          const neg = negotiateOutput(c.req.headers['accept'], false);
          const o = await c.store.get(c.info.namespace, c.info.name);
          writeJSON(c.res, 200, customResourceScale(o.obj, paths), { format: neg.format });
          return;
        }
        case 'update': {
          const neg = negotiateOutput(c.req.headers['accept'], false);
          const body = decodeObjectBody(c.req.headers['content-type'], c.req.body) as Scale;
          if (body.kind && body.kind !== 'Scale') {
            throw newBadRequest(`the object provided is unrecognized (must be of type Scale): ${body.kind} in version "${body.apiVersion ?? ''}" cannot be handled as a Scale`);
          }
          writeJSON(c.res, 200, await update(c, () => body), { format: neg.format });
          return;
        }
        case 'patch': {
          const neg = negotiateOutput(c.req.headers['accept'], false);
          const fmt = bodyFormat(c.req.headers['content-type']);
          const raw = c.req.body ?? Buffer.alloc(0);
          const s = await update(c, (current) => {
            const r = applyPatch(SCALE_DEF, fmt, c.req.headers['content-type'], raw, current as Obj, c.info.name, c.query);
            const patched = r.object as Scale;
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
