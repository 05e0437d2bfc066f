/**
 * Admission: plugins that mutate (admit) then validate requests after authentication
 * and authorization and before storage, in upstream's fixed order.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/admission/interfaces.go
 */
import type { GroupVersionResource, Obj, ObjectLookup, UserInfo } from '../../api/resource.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  resource: GroupVersionResource;
  kind: { group: string; version: string; kind: string };
  subresource: string;
  namespace: string;
  name: string;
  /** the new object (CREATE/UPDATE); mutating plugins change it in place */
  object?: Obj;
  /** the current object (UPDATE/DELETE) */
  oldObject?: Obj;
  user: UserInfo;
  dryRun: boolean;
  /** warnings to return to the client (`Warning: 299 - "…"`) */
  warnings: string[];
  /** audit annotations a plugin wants recorded */
  auditAnnotations?: Record<string, string>;
}

/** One admission plugin. Errors thrown must be StatusErrors (Forbidden, Invalid, NotFound…). */
export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase. */
  admit?(a: AdmissionAttributes, lookup: ObjectLookup): Promise<void>;
  /** Validating phase (must not mutate). */
  validate?(a: AdmissionAttributes, lookup: ObjectLookup): Promise<void>;
}

/** Runs plugins in order: every `admit`, then (after strategy validation) every `validate`. */
export class AdmissionChain {
  constructor(
    readonly plugins: AdmissionPlugin[],
    private readonly lookup: ObjectLookup,
  ) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit) await p.admit(a, this.lookup);
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate) await p.validate(a, this.lookup);
  }
}
