/**
 * The audit step of the handler chain (upstream WithAudit): one audit.k8s.io/v1 Event
 * per stage (RequestReceived, ResponseStarted for watches, ResponseComplete) at the
 * level the policy gives, written as JSON lines to the audit log.
 *
 * @see https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/audit.go
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import type { UserInfo } from '../../api/resource.js';
import { requestInfoOf } from '../filters/request-info.js';
import type { Handler } from '../filters/types.js';
import { decodeProtobufObject } from '../protobuf/index.js';
import type { ResponseWriter } from '../http/types.js';
import { auditContext, type AuditContext } from './context.js';
import { evaluatePolicy, parsePolicy, type Policy, type Stage } from './policy.js';

/** Receives serialised events (one JSON object per call). */
export interface AuditSink {
  write(line: string): void;
  close?(): Promise<void>;
}

/** Appends lines to a file (`-` = stdout). */
export function fileSink(path: string): AuditSink {
  if (path === '-') return { write: (l) => void process.stdout.write(`${l}\n`) };
  const s: WriteStream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  return {
    write: (l) => void s.write(`${l}\n`),
    close: () => new Promise((r) => s.end(() => r())),
  };
}

/** MicroTime: 2006-01-02T15:04:05.000000Z */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function userJSON(u: UserInfo | undefined): Record<string, unknown> {
  if (!u) return {};
  const o: Record<string, unknown> = { username: u.username };
  if (u.uid) o.uid = u.uid;
  if (u.groups.length) o.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) o.extra = u.extra;
  return o;
}

function parseBody(contentType: string | undefined, body: Buffer | undefined): unknown {
  if (!body || body.length === 0) return undefined;
  if (contentType?.startsWith('application/vnd.kubernetes.protobuf')) {
    try {
      return decodeProtobufObject(body).object;
    } catch {
      return undefined;
    }
  }
  if (contentType && !contentType.includes('json')) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function stripManagedFields(o: unknown): unknown {
  if (!o || typeof o !== 'object') return o;
  const m = (o as { metadata?: { managedFields?: unknown } }).metadata;
  if (!m?.managedFields) return o;
  return { ...(o as object), metadata: { ...m, managedFields: undefined } };
}

export interface AuditOptions {
  policy: Policy;
  sink: AuditSink;
  now?: () => Date;
}

export class Auditor {
  private readonly now: () => Date;
  constructor(private readonly o: AuditOptions) {
    this.now = o.now ?? (() => new Date());
  }

  /** Flushes and closes the sink. */
  async close(): Promise<void> {
    await this.o.sink.close?.();
  }

  static fromFiles(policyPath: string, logPath: string): Auditor {
    return new Auditor({ policy: parsePolicy(readFileSync(policyPath, 'utf8')), sink: fileSink(logPath) });
  }

  /**
   * Wraps `next`; `user` is read after `next` has run authentication, or from
   * `req.user` when the caller authenticated already.
   */
  wrap(next: Handler): Handler {
    return async (req, res) => {
      const info = requestInfoOf(req);
      const decision = evaluatePolicy(this.o.policy, req.user, info);
      if (decision.level === 'None') return next(req, res);
      const received = this.now();
      const ctx: AuditContext = { annotations: {}, level: decision.level };
      const base: Record<string, unknown> = {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: decision.level,
        auditID: req.headers['audit-id'] ?? randomUUID(),
        stage: 'RequestReceived',
        requestURI: req.url,
        verb: info.verb,
        user: userJSON(req.user),
        sourceIPs: [req.remoteAddress ?? '127.0.0.1'],
      };
      if (req.headers['user-agent']) base.userAgent = req.headers['user-agent'];
      if (info.isResourceRequest) {
        const ref: Record<string, string> = { resource: info.resource };
        if (info.namespace) ref.namespace = info.namespace;
        if (info.name) ref.name = info.name;
        ref.apiGroup = info.apiGroup;
        ref.apiVersion = info.apiVersion;
        if (info.subresource) ref.subresource = info.subresource;
        if (!ref.apiGroup) delete ref.apiGroup;
        base.objectRef = ref;
      }
      const omit = new Set<Stage>(decision.omitStages);
      const emit = (stage: Stage, extra: Record<string, unknown>): void => {
        if (omit.has(stage)) return;
        const ev = { ...base, stage, ...extra, requestReceivedTimestamp: microTime(received), stageTimestamp: microTime(this.now()) };
        if (Object.keys(ctx.annotations).length) (ev as Record<string, unknown>).annotations = { ...ctx.annotations };
        try {
          this.o.sink.write(JSON.stringify(ev));
        } catch {
          // a failing audit backend does not fail the request
        }
      };
      const userBefore = req.user;
      emit('RequestReceived', {});
      let status = 0;
      let started = false;
      const chunks: Buffer[] = [];
      const wantResponse = decision.level === 'RequestResponse' && info.verb !== 'watch';
      const wrapped: ResponseWriter = {
        writeHead(s, h) {
          status = s;
          if (info.verb === 'watch' && !started && s < 300) {
            started = true;
            emit('ResponseStarted', { responseStatus: { metadata: {}, code: s } });
          }
          res.writeHead(s, h);
        },
        write(c) {
          if (wantResponse) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
          res.write(c);
        },
        end(c) {
          if (wantResponse && c !== undefined) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
          res.end(c);
        },
        onClose: (cb) => res.onClose(cb),
        get closed() {
          return res.closed;
        },
      };
      // a watch's response body is never audited: in-process watchers keep taking shared objects
      if (res.writeWatchEvent !== undefined && !wantResponse) wrapped.writeWatchEvent = (type, object) => res.writeWatchEvent!(type, object);
      let panicked = false;
      try {
        await auditContext.run(ctx, () => next(req, wrapped));
      } catch (e) {
        panicked = true;
        throw e;
      } finally {
        const extra: Record<string, unknown> = {};
        if (userBefore && req.user && req.user !== userBefore) extra.impersonatedUser = userJSON(req.user);
        else if (!userBefore && req.user) base.user = userJSON(req.user);
        const code = status || (panicked ? 500 : 200);
        const rs: Record<string, unknown> = { metadata: {}, code };
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        if (code >= 400) {
          const st = parseBody('application/json', body) as { status?: string; message?: string; reason?: string } | undefined;
          if (st?.status) rs.status = st.status;
          if (st?.message) rs.message = st.message;
          if (st?.reason) rs.reason = st.reason;
        }
        extra.responseStatus = rs;
        if (decision.level === 'Request' || decision.level === 'RequestResponse') {
          const ro = parseBody(req.headers['content-type'], req.body);
          if (ro !== undefined) extra.requestObject = decision.omitManagedFields ? stripManagedFields(ro) : ro;
        }
        if (wantResponse && body) {
          const ro = parseBody('application/json', body);
          if (ro !== undefined) extra.responseObject = decision.omitManagedFields ? stripManagedFields(ro) : ro;
        }
        emit(panicked ? 'Panic' : 'ResponseComplete', extra);
      }
    };
  }
}
