/**
 * The typed REST client over a Transport (HTTPS or in-process). Errors from the
 * server arrive as metav1.Status and are thrown as StatusError.
 *
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/
 */
import type { KObject } from '../api/resource.js';
import { StatusError, failureStatus, type Status } from '../apimachinery/errors.js';
import type { Transport, TransportResponse } from './transport.js';
import type { Client, DeleteOptions, KList, ListOptions, PatchType, ResourceRef, WatchEvent, WatchHandle, WatchOptions, WriteOptions } from './types.js';

const patchContentType: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** `/api/v1/namespaces/ns/pods[/name[/sub]]` */
function resourcePath(r: ResourceRef, ns: string, name?: string, sub?: string): string {
  let p = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  if (r.namespaced && ns) p += `/namespaces/${encodeURIComponent(ns)}`;
  p += `/${r.resource}`;
  if (name) p += `/${encodeURIComponent(name)}`;
  if (sub) p += `/${sub}`;
  return p;
}

function qs(params: Record<string, string | number | boolean | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

/** Converts a non-2xx response into a StatusError. */
function errorFrom(res: TransportResponse): StatusError {
  const text = res.body.toString('utf8');
  try {
    const o = JSON.parse(text) as Status;
    if (o && o.kind === 'Status') return new StatusError(o);
  } catch {
    /* not JSON */
  }
  return new StatusError(failureStatus(res.status, res.status === 404 ? 'NotFound' : 'InternalError', text || `HTTP ${res.status}`));
}

interface RestClientOptions {
  userAgent?: string;
}

export class RestClient implements Client {
  private readonly baseHeaders: Record<string, string>;

  constructor(
    readonly transport: Transport,
    opts: RestClientOptions = {},
  ) {
    this.baseHeaders = { Accept: 'application/json', 'User-Agent': opts.userAgent ?? 'k8ts/v1.32.0' };
  }

  private async call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const headers: Record<string, string> = { ...this.baseHeaders };
    let buf: Buffer | undefined;
    if (body !== undefined) {
      buf = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      headers['Content-Type'] = contentType;
    }
    const res = await this.transport.request(method, path, headers, buf);
    if (res.status < 200 || res.status >= 300) throw errorFrom(res);
    return JSON.parse(res.body.toString('utf8')) as T;
  }

  get<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, opts: { subresource?: string } = {}): Promise<T> {
    return this.call<T>('GET', resourcePath(r, ns, name, opts.subresource));
  }

  list<T extends KObject = KObject>(r: ResourceRef, ns: string, o: ListOptions = {}): Promise<KList<T>> {
    return this.call<KList<T>>(
      'GET',
      resourcePath(r, ns) +
        qs({
          labelSelector: o.labelSelector,
          fieldSelector: o.fieldSelector,
          limit: o.limit,
          continue: o.continue,
          resourceVersion: o.resourceVersion,
          resourceVersionMatch: o.resourceVersionMatch,
        }),
    );
  }

  create<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, o: WriteOptions = {}): Promise<T> {
    return this.call<T>('POST', resourcePath(r, ns) + qs({ dryRun: o.dryRun ? 'All' : undefined, fieldManager: o.fieldManager }), obj);
  }

  update<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, o: WriteOptions & { subresource?: string } = {}): Promise<T> {
    const name = obj.metadata?.name ?? '';
    return this.call<T>('PUT', resourcePath(r, ns, name, o.subresource) + qs({ dryRun: o.dryRun ? 'All' : undefined, fieldManager: o.fieldManager }), obj);
  }

  patch<T extends KObject = KObject>(
    r: ResourceRef,
    ns: string,
    name: string,
    type: PatchType,
    patch: unknown,
    o: WriteOptions & { subresource?: string; force?: boolean } = {},
  ): Promise<T> {
    return this.call<T>(
      'PATCH',
      resourcePath(r, ns, name, o.subresource) +
        qs({ dryRun: o.dryRun ? 'All' : undefined, fieldManager: o.fieldManager ?? (type === 'apply' ? 'k8ts' : undefined), force: o.force }),
      patch,
      patchContentType[type],
    );
  }

  delete(r: ResourceRef, ns: string, name: string, o: DeleteOptions = {}): Promise<KObject> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
    if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
    if (o.preconditions) body.preconditions = o.preconditions;
    return this.call<KObject>('DELETE', resourcePath(r, ns, name), body);
  }

  deleteCollection(r: ResourceRef, ns: string, o: ListOptions & DeleteOptions = {}): Promise<KObject> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
    if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
    return this.call<KObject>('DELETE', resourcePath(r, ns) + qs({ labelSelector: o.labelSelector, fieldSelector: o.fieldSelector }), body);
  }

  createSubresource<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, subresource: string, body: KObject): Promise<T> {
    return this.call<T>('POST', resourcePath(r, ns, name, subresource), body);
  }

  watch<T extends KObject = KObject>(r: ResourceRef, ns: string, o: WatchOptions, onEvent: (e: WatchEvent<T>) => void): WatchHandle {
    const path =
      resourcePath(r, ns) +
      qs({
        watch: 'true',
        resourceVersion: o.resourceVersion,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        allowWatchBookmarks: o.allowWatchBookmarks ? 'true' : undefined,
        timeoutSeconds: o.timeoutSeconds,
      });
    let pending = '';
    let errorBody = '';
    let statusCode = 0;
    let resolveDone!: () => void;
    let rejectDone!: (e: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolveDone = res;
      rejectDone = rej;
    });
    const handle = this.transport.stream(
      'GET',
      path,
      { ...this.baseHeaders },
      {
        onData: (chunk) => {
          const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
          if (statusCode >= 300) {
            errorBody += text;
            return;
          }
          pending += text;
          let nl: number;
          while ((nl = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, nl);
            pending = pending.slice(nl + 1);
            if (!line.trim()) continue;
            let ev: WatchEvent<T>;
            try {
              ev = JSON.parse(line) as WatchEvent<T>;
            } catch {
              continue;
            }
            try {
              onEvent(ev);
            } catch (e) {
              console.error('watch handler error:', e);
            }
          }
        },
        onEnd: (err) => {
          if (statusCode >= 300) {
            rejectDone(errorFrom({ status: statusCode, headers: {}, body: Buffer.from(errorBody) }));
          } else if (err) rejectDone(err);
          else resolveDone();
        },
        onStatus: (s) => {
          statusCode = s;
        },
        onWatchEvent: (type, object) => {
          try {
            onEvent({ type, object: object as T });
          } catch (e) {
            console.error('watch handler error:', e);
          }
        },
      },
    );
    return { stop: () => handle.abort(), done };
  }

  async raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
    const headers: Record<string, string> = { ...this.baseHeaders };
    let buf: Buffer | undefined;
    if (body !== undefined) {
      buf = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      headers['Content-Type'] = 'application/json';
    }
    const res = await this.transport.request(method, path, headers, buf);
    return { status: res.status, body: res.body.toString('utf8') };
  }
}
