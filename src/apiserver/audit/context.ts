/**
 * The per-request audit context: authorizers and admission plugins add annotations
 * (`authorization.k8s.io/decision`, `pod-security.kubernetes.io/…`) to the request being
 * audited without a handle on it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface AuditContext {
  annotations: Record<string, string>;
  /** the request's audit level (Metadata, Request, RequestResponse) */
  level?: string;
}

export const auditContext = new AsyncLocalStorage<AuditContext>();

/** Adds an annotation to the current request's audit event (no-op outside one). */
export function addAuditAnnotation(key: string, value: string): void {
  const c = auditContext.getStore();
  if (c && !(key in c.annotations)) c.annotations[key] = value;
}

const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'];

/**
 * Adds an annotation only when the request is audited at `level` or above (upstream
 * AddAnnotationWithLevel: a webhook's JSON patch is recorded at Request level).
 */
export function addAuditAnnotationWithLevel(key: string, value: string, level: 'Metadata' | 'Request' | 'RequestResponse'): void {
  const c = auditContext.getStore();
  if (c && LEVELS.indexOf(c.level ?? 'Metadata') >= LEVELS.indexOf(level)) addAuditAnnotation(key, value);
}
