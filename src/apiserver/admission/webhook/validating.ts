/**
 * The ValidatingAdmissionWebhook plugin's dispatch (upstream validating dispatcher): every
 * matching webhook is called at once, each with the request in the version its rule
 * matched; the first failure to arrive fails the request (a denial with the webhook's
 * Status, a webhook that cannot be called with `500 Internal error occurred: failed
 * calling webhook "<name>": …` unless `failurePolicy: Ignore`, which records the audit
 * annotation `failed-open.validating.webhook.admission.k8s.io/round_0_index_<i>`).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/validating/dispatcher.go
 */
import type { ObjectLookup, Obj } from '../../../api/resource.js';
import { newInternalError } from '../../../apimachinery/errors.js';
import { addAuditAnnotation } from '../../audit/context.js';
import type { AdmissionAttributes } from '../types.js';
import { callHook, type DispatchContext, type Invocation, outcomeOf, shouldCallHook, type VersionedAttributes } from './dispatcher.js';
import { CallingWebhookError, WebhookRejection } from './errors.js';
import type { WebhookAccessor } from './source.js';

export const VALIDATING_PLUGIN_NAME = 'ValidatingAdmissionWebhook';

/** Runs the validating webhooks for one request. @throws StatusError */
export async function dispatchValidating(hooks: readonly WebhookAccessor[], a: AdmissionAttributes, ctx: DispatchContext, lookup: ObjectLookup): Promise<void> {
  const relevant: Invocation[] = [];
  const versions = new Map<string, VersionedAttributes>();
  for (const h of hooks) {
    const inv = await shouldCallHook(h, a, a.object, ctx, lookup);
    if (!inv) continue;
    relevant.push(inv);
    const key = `${inv.resource.group}/${inv.resource.version}`;
    if (!versions.has(key)) versions.set(key, versionedOf(inv, a, ctx));
  }
  if (!relevant.length) return;
  const errors: unknown[] = [];
  await Promise.all(
    relevant.map(async (inv, idx) => {
      const hook = inv.accessor.hook;
      const ignore = hook.failurePolicy === 'Ignore';
      const v = versions.get(`${inv.resource.group}/${inv.resource.version}`)!;
      const started = performance.now();
      try {
        await callHook(inv, v, a, ctx, false);
        ctx.metrics.observe(hook.name, 'validating', a.operation, (performance.now() - started) / 1000, false, 200);
        return;
      } catch (err) {
        const { errorType, code } = outcomeOf(err);
        const rejected = !(err instanceof CallingWebhookError && ignore);
        if (rejected) ctx.metrics.rejection(hook.name, 'validating', a.operation, errorType, code);
        ctx.metrics.observe(hook.name, 'validating', a.operation, (performance.now() - started) / 1000, rejected, code);
        if (err instanceof CallingWebhookError) {
          if (ignore) {
            ctx.metrics.failedOpen(hook.name, 'validating');
            addAuditAnnotation(`failed-open.validating.webhook.admission.k8s.io/round_0_index_${idx}`, hook.name);
            return;
          }
          errors.push(newInternalError(err));
          return;
        }
        errors.push(err instanceof WebhookRejection ? err.status : err);
      }
    }),
  );
  if (errors.length) throw errors[0];
}

/** The request in the invocation's version (the request's own objects when it is the same). */
function versionedOf(inv: Invocation, a: AdmissionAttributes, ctx: DispatchContext): VersionedAttributes {
  const same = inv.resource.group === a.resource.group && inv.resource.version === a.resource.version;
  const conv = (o: Obj | undefined): Obj | undefined => (o && !same && ctx.equivalents ? ctx.equivalents.convert(o, a.resource, inv.resource) : o);
  return { kind: inv.kind, resource: inv.resource, object: conv(a.object), oldObject: conv(a.oldObject), dirty: false };
}
