/**
 * The MutatingAdmissionWebhook plugin's dispatch (upstream mutating dispatcher): the
 * matching webhooks one after another, in configuration-name order; each sees the object
 * as the previous ones left it, in the version its rule matched. A JSONPatch answer is
 * applied (then the kind's defaults, as upstream decodes and defaults the patched
 * object); the result replaces the request's object, which the strategy then prepares
 * and validates. `reinvocationPolicy: IfNeeded` webhooks are called once more when a
 * later webhook (or, during the chain's second run, an in-tree plugin) changed the object.
 *
 * Failures: a webhook that cannot be called fails the request with `500 Internal error
 * occurred: failed calling webhook "<name>": …` unless `failurePolicy: Ignore` (then the
 * audit annotation `failed-open.mutation.webhook.admission.k8s.io/round_<r>_index_<i>`);
 * a denial returns the webhook's Status.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/mutating/dispatcher.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/mutating/reinvocationcontext.go
 */
import type { MutatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import type { ObjectLookup, Obj } from '../../../api/resource.js';
import { newInternalError, StatusError } from '../../../apimachinery/errors.js';
import { applyJsonPatch, type JsonPatchOperation } from '../../../apimachinery/patch/json-patch.js';
import { cloneJson, deepEqual, type Json } from '../../../apimachinery/patch/json-value.js';
import { addAuditAnnotation, addAuditAnnotationWithLevel } from '../../audit/context.js';
import { checkTypes } from '../../endpoints/typed-decode.js';
import type { AdmissionAttributes } from '../types.js';
import { callHook, type DispatchContext, type Invocation, outcomeOf, shouldCallHook, type VersionedAttributes } from './dispatcher.js';
import { CallingWebhookError, goQuote, WebhookRejection } from './errors.js';
import type { WebhookAccessor } from './source.js';

export const MUTATING_PLUGIN_NAME = 'MutatingAdmissionWebhook';

/** Upstream webhookReinvokeContext, kept in the request's ReinvocationContext. */
class ReinvokeState {
  lastOutput: Obj | undefined;
  previouslyInvoked = new Set<string>();
  reinvoke = new Set<string>();

  requireReinvokingPreviouslyInvoked(): void {
    for (const u of this.previouslyInvoked) this.reinvoke.add(u);
    this.previouslyInvoked.clear();
  }
}

/** Replaces `target`'s members with `source`'s, keeping `target` and its `metadata` object (the store holds both). */
function replaceInPlace(target: Obj, source: Obj): void {
  const meta = target.metadata as Record<string, unknown>;
  for (const k of Object.keys(target)) if (k !== 'metadata') delete (target as Record<string, unknown>)[k];
  for (const k of Object.keys(meta)) delete meta[k];
  Object.assign(meta, source.metadata ?? {});
  for (const [k, v] of Object.entries(source)) if (k !== 'metadata') (target as Record<string, unknown>)[k] = v;
  if (!('metadata' in source)) delete (target as Record<string, unknown>).metadata;
  else (target as Record<string, unknown>).metadata = meta;
}

/** Runs the mutating webhooks for one request. @throws StatusError */
export async function dispatchMutating(hooks: readonly WebhookAccessor[], a: AdmissionAttributes, ctx: DispatchContext, lookup: ObjectLookup): Promise<void> {
  const rc = a.reinvocation;
  let state = rc?.value<ReinvokeState>(MUTATING_PLUGIN_NAME);
  if (!state) {
    state = new ReinvokeState();
    rc?.setValue(MUTATING_PLUGIN_NAME, state);
  }
  const isReinvoke = rc?.isReinvoke ?? false;
  if (isReinvoke && !deepEqual(state.lastOutput ?? null, a.object ?? null)) state.requireReinvokingPreviouslyInvoked();
  let versioned: VersionedAttributes | undefined;
  try {
    for (let i = 0; i < hooks.length; i++) {
      const accessor = hooks[i]!;
      const inv = await shouldCallHook(accessor, a, versioned?.object ?? a.object, ctx, lookup);
      if (!inv) continue;
      const hook = accessor.hook as MutatingWebhook;
      if (isReinvoke && !state.reinvoke.has(accessor.uid)) continue;
      versioned = versionedFor(versioned, inv, a, ctx);
      const round = isReinvoke ? 1 : 0;
      const started = performance.now();
      let changed = false;
      let err: unknown;
      try {
        changed = await callAndPatch(inv, versioned, a, ctx, round, i);
      } catch (e) {
        err = e;
      }
      const ignore = hook.failurePolicy === 'Ignore';
      const elapsed = (performance.now() - started) / 1000;
      if (err === undefined) ctx.metrics.observe(hook.name, 'admit', a.operation, elapsed, false, 200);
      else {
        const { errorType, code } = outcomeOf(err);
        const rejected = !(err instanceof CallingWebhookError && ignore);
        if (rejected) ctx.metrics.rejection(hook.name, 'admit', a.operation, errorType, code);
        ctx.metrics.observe(hook.name, 'admit', a.operation, elapsed, rejected, code);
      }
      if (changed) {
        state.requireReinvokingPreviouslyInvoked();
        if (rc) rc.shouldReinvoke = true;
      }
      if (hook.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(accessor.uid);
      if (err === undefined) continue;
      if (err instanceof CallingWebhookError) {
        if (ignore) {
          ctx.metrics.failedOpen(hook.name, 'admit');
          addAuditAnnotation(`failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${i}`, hook.name);
          continue;
        }
        throw newInternalError(err);
      }
      if (err instanceof WebhookRejection) throw err.status;
      throw err;
    }
    // the versioned object back into the request's version and object
    if (versioned?.dirty && versioned.object && a.object) {
      const same = versioned.resource.version === a.resource.version && versioned.resource.group === a.resource.group;
      replaceInPlace(a.object, same || !ctx.equivalents ? versioned.object : ctx.equivalents.convert(versioned.object, versioned.resource, a.resource));
    }
  } finally {
    state.lastOutput = a.object ? cloneJson(a.object) : undefined;
  }
}

/** The request in the invocation's version, converted from the current one when it differs. */
function versionedFor(current: VersionedAttributes | undefined, inv: Invocation, a: AdmissionAttributes, ctx: DispatchContext): VersionedAttributes {
  if (current && current.resource.group === inv.resource.group && current.resource.version === inv.resource.version) return current;
  const from = current ?? { kind: a.kind, resource: a.resource, object: a.object, oldObject: a.oldObject, dirty: false };
  if (from.resource.version === inv.resource.version && from.resource.group === inv.resource.group) {
    return { ...from, object: from.object ? cloneJson(from.object) : undefined };
  }
  const conv = (o: Obj | undefined): Obj | undefined => (o && ctx.equivalents ? ctx.equivalents.convert(o, from.resource, inv.resource) : o);
  return { kind: inv.kind, resource: inv.resource, object: conv(from.object), oldObject: conv(from.oldObject), dirty: from.dirty };
}

/** Calls the webhook and applies its patch; true when the object changed. */
async function callAndPatch(inv: Invocation, v: VersionedAttributes, a: AdmissionAttributes, ctx: DispatchContext, round: number, index: number): Promise<boolean> {
  const hook = inv.accessor.hook;
  let changed = false;
  const annotate = (): void =>
    addAuditAnnotation(
      `mutation.webhook.admission.k8s.io/round_${round}_index_${index}`,
      JSON.stringify({ configuration: inv.accessor.configurationName, webhook: hook.name, mutated: changed }),
    );
  try {
    const r = await callHook(inv, v, a, ctx, true);
    if (!r.patch) return false;
    let ops: unknown;
    try {
      ops = JSON.parse(r.patch);
    } catch (e) {
      throw newInternalError((e as Error).message);
    }
    if (!Array.isArray(ops)) throw newInternalError(`json: cannot unmarshal ${typeof ops === 'object' ? 'object' : typeof ops} into Go value of type jsonpatch.Patch`);
    if (ops.length === 0) return false;
    if (!v.object) throw newInternalError(`admission webhook ${goQuote(hook.name)} attempted to modify the object, which is not supported for this operation`);
    if (r.patchType !== 'JSONPatch')
      throw new CallingWebhookError(
        hook.name,
        `unsupported patch type ${goQuote(r.patchType)}`,
        new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 400 }),
      );
    let patched: Obj;
    try {
      patched = applyJsonPatch(v.object as unknown as Json, ops as JsonPatchOperation[]) as unknown as Obj;
    } catch (e) {
      const cause = (e as { cause?: Error }).cause;
      throw newInternalError(cause?.message ?? (e as Error).message);
    }
    const def = ctx.equivalents?.definition(inv.resource);
    // a subresource of another kind (the scale subresource's Scale) is not the resource's object
    if (def && def.kind === inv.kind.kind) {
      try {
        checkTypes(def, patched);
      } catch (e) {
        throw newInternalError((e as Error).message);
      }
      if (!patched.metadata || typeof patched.metadata !== 'object') patched.metadata = {};
      def.defaults?.(patched);
    }
    changed = !deepEqual(v.object, patched);
    addAuditAnnotationWithLevel(
      `patch.webhook.admission.k8s.io/round_${round}_index_${index}`,
      JSON.stringify({ configuration: inv.accessor.configurationName, webhook: hook.name, patch: ops, patchType: 'JSONPatch' }),
      'Request',
    );
    v.object = patched;
    v.dirty = true;
    return changed;
  } finally {
    annotate();
  }
}
