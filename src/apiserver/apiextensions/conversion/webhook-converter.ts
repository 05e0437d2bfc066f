/**
 * CRD conversion webhooks (`spec.conversion.strategy: Webhook`): the objects that are not in
 * the desired version go to the webhook in one ConversionReview
 * (`apiextensions.k8s.io/v1`, or `v1beta1` when it comes first in
 * `conversionReviewVersions`), POSTed to `clientConfig.url` or `clientConfig.service` with
 * the webhook client of the admission webhooks (TLS against `caBundle`, `?timeout=30s`).
 *
 * The answer is checked as upstream's webhookConverter does: ConversionReview kind and
 * apiVersion (v1), `response.uid`, `result.status` Success, as many converted objects as
 * were sent, each in the desired apiVersion with the same kind, name, namespace and uid;
 * the object's metadata is then the original's, with only the webhook's labels and
 * annotations taken (validated). Every failure is a 500 whose message is upstream's:
 * `conversion webhook for stable.example.com/v1, Kind=CronTab failed: Post
 * "https://127.0.0.1:9443/convert?timeout=30s": dial tcp 127.0.0.1:9443: connect:
 * connection refused`.
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/conversion/webhook_converter.go
 */
import { randomUUID } from 'node:crypto';
import type { CustomResourceDefinition } from '../../../api/apiextensions/v1/customresourcedefinition/types.js';
import { storageVersion } from '../../../api/apiextensions/v1/customresourcedefinition/types.js';
import type { Obj, VersionConverter } from '../../../api/resource.js';
import { failureStatus, StatusError } from '../../../apimachinery/errors.js';
import { aggregateFieldErrors } from '../../../apimachinery/field-errors.js';
import { validateAnnotations, validateLabels } from '../../../apimachinery/validation.js';
import { type CallOptions, type HookClientConfig, postJSON } from '../../admission/webhook/client.js';

/** The conversion webhook client's timeout (upstream's webhook client default). */
export const CONVERSION_TIMEOUT_SECONDS = 30;

/** What the converter needs from the API server. */
export interface ConversionDeps {
  /** resolves `clientConfig.service` to an endpoint (see the service resolver) */
  resolve: CallOptions['resolve'];
  /** the review's uid (tests) */
  newUID?: () => string;
}

/** A conversion failure: a 500 with upstream's text as the message (no reason, as upstream's non-Status errors). */
export function conversionFailure(message: string): StatusError {
  return new StatusError(failureStatus(500, '', message));
}

/** `<group>/<version>, Kind=<kind>` (schema.GroupVersionKind's String). */
function gvkString(apiVersion: string | undefined, kind: string | undefined): string {
  const av = apiVersion ?? '';
  const slash = av.indexOf('/');
  const group = slash >= 0 ? av.slice(0, slash) : '';
  const version = slash >= 0 ? av.slice(slash + 1) : av;
  return `${group}/${version}, Kind=${kind ?? ''}`;
}

/**
 * The converter of one CRD with strategy Webhook (one per served CRD; reinstalled when the
 * CRD's conversion changes).
 */
export class WebhookConverter implements VersionConverter {
  readonly storageAPIVersion: string;
  private readonly clientConfig: HookClientConfig;
  private readonly reviewVersion: 'v1' | 'v1beta1' | undefined;

  constructor(
    crd: CustomResourceDefinition,
    private readonly deps: ConversionDeps,
  ) {
    const group = crd.spec.group;
    this.storageAPIVersion = `${group}/${storageVersion(crd) ?? crd.spec.versions[0]?.name ?? ''}`;
    const w = crd.spec.conversion?.webhook;
    const cc = w?.clientConfig ?? {};
    this.clientConfig = {
      url: cc.url,
      caBundle: cc.caBundle,
      service: cc.service ? { namespace: cc.service.namespace, name: cc.service.name, path: cc.service.path, port: cc.service.port ?? 443 } : undefined,
    };
    // the first version of conversionReviewVersions this server speaks
    this.reviewVersion = (w?.conversionReviewVersions ?? []).find((v): v is 'v1' | 'v1beta1' => v === 'v1' || v === 'v1beta1');
  }

  async convert(objs: readonly Obj[], apiVersion: string, listKind?: string): Promise<Obj[]> {
    const todo: number[] = [];
    for (let i = 0; i < objs.length; i++) if (objs[i]!.apiVersion !== apiVersion && !isEmptyObject(objs[i]!)) todo.push(i);
    if (todo.length === 0) return objs.map((o) => (o.apiVersion === apiVersion ? o : { ...o, apiVersion }));
    const isList = listKind !== undefined;
    const first = objs[todo[0]!]!;
    // upstream names the object's own version, or for a list the list's (the requested one)
    const inGVK = isList ? gvkString(apiVersion, listKind) : gvkString(first.apiVersion, first.kind);
    if (!this.reviewVersion) throw conversionFailure('no supported conversion review versions');
    const uid = this.deps.newUID?.() ?? randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${this.reviewVersion}`,
      request: { uid, desiredAPIVersion: apiVersion, objects: todo.map((i) => objs[i]) },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    let answer: Record<string, unknown>;
    try {
      answer = await postJSON(this.clientConfig, JSON.stringify(review), {
        timeoutSeconds: CONVERSION_TIMEOUT_SECONDS,
        resolve: this.deps.resolve,
      });
    } catch (e) {
      throw conversionFailure(`conversion webhook for ${inGVK} failed: ${(e as Error).message}`);
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(this.reviewVersion, uid, answer);
    } catch (e) {
      throw conversionFailure(`conversion webhook for ${inGVK} failed: ${(e as Error).message}`);
    }
    if (converted.length !== todo.length) throw conversionFailure(`conversion webhook for ${inGVK} returned ${converted.length} objects, expected ${todo.length}`);
    const out = objs.slice();
    const [wantGroup, wantVersion] = splitAPIVersion(apiVersion);
    for (let n = 0; n < todo.length; n++) {
      const original = objs[todo[n]!]!;
      const c = converted[n];
      // upstream counts from 1 in the list's per-item errors (the index is bumped before them) and says 0 for one object
      const where = isList ? `invalid converted object at index ${n + 1}` : 'invalid object at index 0';
      const metaWhere = isList ? `invalid metadata in object at index ${n + 1}` : 'invalid metadata';
      if (!c || typeof c !== 'object' || Array.isArray(c)) {
        throw conversionFailure(
          `conversion webhook for ${inGVK} returned ${isList ? `invalid converted object at index ${n}` : 'invalid object at index 0'}: Object 'Kind' is missing in '${JSON.stringify(c)}'`,
        );
      }
      const co = c as Obj;
      const [gotGroup, gotVersion] = splitAPIVersion(typeof co.apiVersion === 'string' ? co.apiVersion : '');
      if (gotGroup !== wantGroup || gotVersion !== wantVersion) {
        throw conversionFailure(`conversion webhook for ${inGVK} returned ${where}: invalid groupVersion (expected ${apiVersion}, received ${co.apiVersion ?? ''})`);
      }
      if (co.kind !== original.kind) {
        throw conversionFailure(`conversion webhook for ${inGVK} returned ${where}: invalid kind (expected ${original.kind}, received ${co.kind ?? ''})`);
      }
      const bad = sameIdentity(original, co);
      if (bad) throw conversionFailure(`conversion webhook for ${inGVK} returned ${isList ? where : 'invalid object'}: ${bad}`);
      try {
        restoreObjectMeta(original, co);
      } catch (e) {
        throw conversionFailure(`conversion webhook for ${inGVK} returned ${metaWhere}: ${(e as Error).message}`);
      }
      out[todo[n]!] = co;
    }
    for (let i = 0; i < out.length; i++) if (out[i]!.apiVersion !== apiVersion) out[i] = { ...out[i]!, apiVersion };
    return out;
  }
}

function splitAPIVersion(av: string): [string, string] {
  const slash = av.indexOf('/');
  return slash >= 0 ? [av.slice(0, slash), av.slice(slash + 1)] : ['', av];
}

/** An object with nothing but apiVersion and kind is converted without the webhook (upstream isEmptyUnstructuredObject). */
function isEmptyObject(o: Obj): boolean {
  const keys = Object.keys(o);
  return keys.length === 2 && keys.includes('apiVersion') && keys.includes('kind');
}

/**
 * The converted objects of a review answer, checked as upstream's
 * getConvertedObjectsFromResponse (v1beta1 answers skip the kind and uid checks).
 * @throws Error with upstream's text
 */
function convertedObjectsOf(version: 'v1' | 'v1beta1', uid: string, answer: Record<string, unknown>): unknown[] {
  if (version === 'v1') {
    const got = gvkString(String(answer.apiVersion ?? ''), String(answer.kind ?? ''));
    const want = 'apiextensions.k8s.io/v1, Kind=ConversionReview';
    if (got !== want) throw new Error(`expected webhook response of ${want}, got ${got}`);
  }
  const r = answer.response as { uid?: string; convertedObjects?: unknown; result?: { status?: string; message?: string } } | undefined | null;
  if (!r || typeof r !== 'object') throw new Error('no response provided');
  if (version === 'v1' && (r.uid ?? '') !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r.uid ?? '')}`);
  const status = r.result?.status ?? '';
  if (status !== 'Success') {
    if (r.result?.message) throw new Error(r.result.message);
    throw new Error(`response.result.status was '${status}', not 'Success'`);
  }
  return Array.isArray(r.convertedObjects) ? r.convertedObjects : [];
}

/** Upstream validateConvertedObject: kind, name, namespace and uid unchanged; the error or ''. */
function sameIdentity(a: Obj, b: Obj): string {
  const am = a.metadata ?? {};
  const bm = (b.metadata ?? {}) as Obj['metadata'];
  if (a.kind !== b.kind) return `must have the same kind: ${a.kind} != ${b.kind}`;
  if ((am.name ?? '') !== (bm.name ?? '')) return `must have the same name: ${am.name ?? ''} != ${bm.name ?? ''}`;
  if ((am.namespace ?? '') !== (bm.namespace ?? '')) return `must have the same namespace: ${am.namespace ?? ''} != ${bm.namespace ?? ''}`;
  if ((am.uid ?? '') !== (bm.uid ?? '')) return `must have the same UID: ${am.uid ?? ''} != ${bm.uid ?? ''}`;
  return '';
}

/**
 * Upstream restoreObjectMeta: the converted object's metadata becomes a copy of the
 * original's, keeping only the labels and annotations the webhook returned (validated
 * when they changed). Mutates `converted`.
 * @throws Error with upstream's text
 */
function restoreObjectMeta(original: Obj, converted: Obj): void {
  const resp = (converted as { metadata?: unknown }).metadata;
  if (resp === undefined) throw new Error('missing metadata in converted object');
  if (resp === null || typeof resp !== 'object' || Array.isArray(resp)) throw new Error(`invalid metadata of type ${goType(resp)} in converted object`);
  const respMeta = resp as Record<string, unknown>;
  const meta = structuredClone(original.metadata ?? {}) as Record<string, unknown>;
  for (const fld of ['labels', 'annotations'] as const) {
    const v = respMeta[fld];
    if (v === undefined || v === null) {
      delete meta[fld];
      continue;
    }
    if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`invalid metadata.${fld} of type ${goType(v)} in converted object`);
    const given = v as Record<string, unknown>;
    const orig = (meta[fld] ?? {}) as Record<string, unknown>;
    let changed = Object.keys(orig).length !== Object.keys(given).length;
    for (const [k, x] of Object.entries(given)) {
      if (typeof x !== 'string') throw new Error(`metadata.${fld}[${k}] must be a string, but is ${goType(x)} in converted object`);
      if (orig[k] !== x) changed = true;
    }
    if (changed) {
      const errs =
        fld === 'labels' ? validateLabels(given as Record<string, string>, 'metadata.labels') : validateAnnotations(given as Record<string, string>, 'metadata.annotation');
      if (errs.length) throw new Error(aggregateFieldErrors(errs));
    }
    meta[fld] = given;
  }
  converted.metadata = meta as Obj['metadata'];
}

/** The Go type name of a decoded JSON value, for upstream's `%T` texts. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}
