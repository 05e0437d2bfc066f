/**
 * The audit filter (upstream WithAudit): records the request and its response as
 * audit.k8s.io/v1 Events at the level the audit policy gives (see src/apiserver/audit).
 * Everything inside it — impersonation, authorization, the handlers — is audited,
 * including the impersonated user and authorization annotations.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/audit.go
 */
import type { Auditor } from '../audit/audit.js';
import type { Handler } from './types.js';

/** Wraps `next` in the auditor; without one (no `--audit-policy-file`) returns `next` itself. */
export function withAudit(next: Handler, auditor: Auditor | undefined): Handler {
  return auditor ? auditor.wrap(next) : next;
}
