/**
 * The API server's front door, assembled from options: authentication (client
 * certificates from the TLS listener; bearer tokens from a static token file,
 * ServiceAccount JWTs and bootstrap tokens), impersonation, authorization
 * (`Node,RBAC`), the admission plugins in upstream's order, audit logging, encryption
 * at rest, the security resources (RBAC, reviews, CSRs, quotas, limit ranges), the
 * TokenRequest subresource, and the controllers that go with them.
 *
 * Wiring (the all-in-one server):
 * ```ts
 * const sec = buildSecurity({ dataDir, tokenAuthFile, auditPolicyFile, auditLogPath, encryptionProviderConfig });
 * const storage = sec.wrapStorage(await openStorage(...));
 * const api = new APIServer({ storage, definitions: [...all, ...sec.definitions], subresources: [...subs, ...sec.subresources],
 *   admission: sec.admission, authorizer: sec.authorizer, ... });
 * sec.install(api);            // before listen(): authentication/audit/impersonation/review filter
 * await api.start();
 * await bootstrapCluster(...); await sec.bootstrap(adminClient);
 * await sec.startControllers({ clientFor, ca: pki.ca });
 * ```
 *
 * @see https://kubernetes.io/docs/concepts/security/controlling-access/
 */
import { join } from 'node:path';
import type { ResourceDefinition, UserInfo } from '../api/resource.js';
import { authenticationDefinitions } from '../api/authentication/definitions.js';
import { authorizationDefinitions } from '../api/authorization/definitions.js';
import type { VirtualResource } from '../api/authorization/virtual.js';
import { csrDefinition } from '../api/certificates/definition.js';
import { limitRangeDefinition } from '../api/core/v1/limitrange/strategy.js';
import { resourceQuotaDefinition } from '../api/core/v1/resourcequota/strategy.js';
import { rbacDefinitions } from '../api/rbac/definitions.js';
import { newBadRequest, newUnauthorized } from '../apimachinery/errors.js';
import type { Client } from '../client/types.js';
import { startClusterRoleAggregation } from '../controllers/clusterroleaggregation/controller.js';
import { startCSRController } from '../controllers/csr/controller.js';
import { startResourceQuotaController } from '../controllers/resourcequota/controller.js';
import { startRootCACertPublisher } from '../controllers/rootcacertpublisher/controller.js';
import type { Storage } from '../storage/interface.js';
import { certificatePlugins } from './admission/plugins/certificates.js';
import { defaultTolerationSeconds } from './admission/plugins/default-toleration-seconds.js';
import { limitRanger } from './admission/plugins/limit-ranger.js';
import { namespaceLifecycle } from './admission/plugins/namespace-lifecycle.js';
import { nodeRestriction } from './admission/plugins/node-restriction.js';
import { podSecurity, type PodSecurityOptions } from './admission/plugins/pod-security.js';
import { priority } from './admission/plugins/priority.js';
import { resourceQuota } from './admission/plugins/resource-quota.js';
import { serviceAccount } from './admission/plugins/service-account.js';
import type { AdmissionPlugin } from './admission/types.js';
import { forbiddenFor, type APIServer } from './apiserver.js';
import { Auditor } from './audit/audit.js';
import { BootstrapTokenAuthenticator } from './authn/bootstrap-token.js';
import { Authentication } from './authn/filter.js';
import { impersonate } from './authn/impersonation.js';
import { authenticationReviews } from './authn/reviews.js';
import { ensureServiceAccountKey, generateServiceAccountKey, ServiceAccountTokens, type ServiceAccountKey } from './authn/serviceaccount.js';
import { TokenFileAuthenticator } from './authn/token-file.js';
import type { TokenAuthenticator } from './authn/types.js';
import { ensureBootstrapPolicy } from './authz/bootstrap.js';
import { controllerUser } from './authz/controller-policy.js';
import { NodeGraph } from './authz/node-graph.js';
import { NodeAuthorizer } from './authz/node.js';
import { RBACEscalationGuard } from './authz/rbac/guard.js';
import { RBACAuthorizer } from './authz/rbac/authorizer.js';
import { accessReviews } from './authz/reviews.js';
import { feedNodeGraph, StoreRBACSource } from './authz/sources.js';
import { type DecisionAuthorizer, UnionAuthorizer } from './authz/types.js';
import { EncryptingStorage } from './encryption/storage.js';
import { loadEncryptionConfig, type EncryptionConfig } from './encryption/config.js';
import { decodeObjectBody } from './http/body.js';
import { negotiateOutput } from './http/negotiate.js';
import { parseRequestInfo } from './http/request-info.js';
import { writeError, writeJSON } from './http/respond.js';
import type { ApiRequest, ResponseWriter } from './http/types.js';
import { serviceAccountTokenHandler } from './subresources/serviceaccount-token.js';
import type { SubresourceHandler } from './subresources/types.js';

export type AuthorizationMode = 'Node' | 'RBAC' | 'AlwaysAllow';

export interface SecurityOptions {
  /** data dir: the ServiceAccount signing key lives in `<dataDir>/tls/sa.key` */
  dataDir?: string;
  /** a ServiceAccount key to use instead of `<dataDir>/tls/sa.key` (tests) */
  serviceAccountKey?: ServiceAccountKey;
  /** `--token-auth-file` */
  tokenAuthFile?: string;
  /** `--service-account-issuer` (default https://kubernetes.default.svc.cluster.local) */
  serviceAccountIssuer?: string;
  /** `--api-audiences` (default: the issuer) */
  apiAudiences?: string[];
  /** `--authorization-mode` (default Node,RBAC) */
  authorizationModes?: AuthorizationMode[];
  /** `--audit-policy-file` and `--audit-log-path` (both needed to audit) */
  auditPolicyFile?: string;
  auditLogPath?: string;
  /** an auditor to use instead of the files (tests) */
  auditor?: Auditor;
  /** `--encryption-provider-config` */
  encryptionProviderConfig?: string;
  /** PodSecurity defaults and exemptions */
  podSecurity?: PodSecurityOptions;
}

export interface SecurityControllerOptions {
  /** a client acting as `user` */
  clientFor(user: UserInfo): Client;
  /** the cluster CA (signs approved CSRs, published as kube-root-ca.crt) */
  ca?: { cert: string; key: string };
}

export interface Security {
  authorizer: UnionAuthorizer;
  /** admission plugins in upstream's order */
  admission: AdmissionPlugin[];
  /** RBAC, access reviews, TokenReview/SelfSubjectReview, CSRs, ResourceQuota, LimitRange */
  definitions: ResourceDefinition[];
  /** serviceaccounts/token */
  subresources: SubresourceHandler[];
  authentication: Authentication;
  serviceAccountTokens: ServiceAccountTokens;
  /** adds encryption at rest when configured */
  wrapStorage(storage: Storage): Storage;
  /** connects caches and puts the authentication/audit/impersonation/review filters in front of `api.handle` */
  install(api: APIServer): void;
  /** creates the bootstrap roles and bindings (run as a system:masters client after the namespaces exist) */
  bootstrap(client: Client): Promise<void>;
  /** the quota, CSR, ClusterRole aggregation and root CA publisher controllers, each as its own ServiceAccount */
  startControllers(o: SecurityControllerOptions): Promise<{ stop(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * The client a controller of the controller manager uses, split as upstream: lists and
 * watches (the shared informers) as `system:kube-controller-manager`, everything else as
 * the controller's own ServiceAccount `kube-system/<name>` (`--use-service-account-credentials`).
 */
export function controllerClient(clientFor: (u: UserInfo) => Client, name: string): Client {
  const informers = clientFor({ username: 'system:kube-controller-manager', groups: ['system:authenticated'] });
  const own = clientFor(controllerUser(name));
  return {
    get: (r, ns, n, o) => own.get(r, ns, n, o),
    list: (r, ns, o) => informers.list(r, ns, o),
    watch: (r, ns, o, cb) => informers.watch(r, ns, o, cb),
    create: (r, ns, obj, o) => own.create(r, ns, obj, o),
    update: (r, ns, obj, o) => own.update(r, ns, obj, o),
    patch: (r, ns, n, t, p, o) => own.patch(r, ns, n, t, p, o),
    delete: (r, ns, n, o) => own.delete(r, ns, n, o),
    deleteCollection: (r, ns, o) => own.deleteCollection(r, ns, o),
    createSubresource: (r, ns, n, sub, body) => own.createSubresource(r, ns, n, sub, body),
    raw: (m, path, body) => (m === 'GET' ? informers : own).raw(m, path, body),
  };
}

const allowAll: DecisionAuthorizer = { name: 'AlwaysAllow', decide: () => ({ decision: 'Allow', reason: '' }) };

/**
 * Builds the security layer.
 * @throws Error on unreadable or invalid token, audit policy or encryption files
 */
export function buildSecurity(o: SecurityOptions = {}): Security {
  const rbacSource = new StoreRBACSource();
  const graph = new NodeGraph();
  const rbac = new RBACAuthorizer(rbacSource);
  const modes = (o.authorizationModes ?? ['Node', 'RBAC']).map((m): DecisionAuthorizer => {
    if (m === 'Node') return new NodeAuthorizer(graph);
    if (m === 'RBAC') return rbac;
    return allowAll;
  });
  const authorizer = new UnionAuthorizer(modes);

  const key = o.serviceAccountKey ?? (o.dataDir ? ensureServiceAccountKey(join(o.dataDir, 'tls')) : generateServiceAccountKey());
  const saTokens = new ServiceAccountTokens({
    key,
    issuers: o.serviceAccountIssuer ? [o.serviceAccountIssuer] : undefined,
    apiAudiences: o.apiAudiences,
  });
  const bootstrapTokens = new BootstrapTokenAuthenticator();
  const tokenAuthenticators: TokenAuthenticator[] = [];
  if (o.tokenAuthFile) tokenAuthenticators.push(TokenFileAuthenticator.fromFile(o.tokenAuthFile));
  tokenAuthenticators.push(saTokens, bootstrapTokens);
  const authentication = new Authentication(tokenAuthenticators);

  const quota = resourceQuota();
  const admission: AdmissionPlugin[] = [
    namespaceLifecycle,
    limitRanger,
    serviceAccount(),
    nodeRestriction,
    podSecurity(o.podSecurity),
    priority,
    defaultTolerationSeconds(),
    ...certificatePlugins(authorizer),
    quota,
  ];

  const guard = new RBACEscalationGuard(rbac.resolver, authorizer);
  const definitions: ResourceDefinition[] = [
    ...rbacDefinitions(guard),
    ...authorizationDefinitions(),
    ...authenticationDefinitions(),
    csrDefinition as unknown as ResourceDefinition,
    resourceQuotaDefinition as unknown as ResourceDefinition,
    limitRangeDefinition as unknown as ResourceDefinition,
  ];
  const virtual = new Map<string, VirtualResource>();
  for (const v of [...accessReviews(authorizer, rbac.resolver), ...authenticationReviews(authentication, saTokens)]) {
    virtual.set(`${v.group}/${v.version}/${v.resource}`, v);
  }

  const auditor = o.auditor ?? (o.auditPolicyFile && o.auditLogPath ? Auditor.fromFiles(o.auditPolicyFile, o.auditLogPath) : undefined);
  let encryption: EncryptionConfig | undefined;
  if (o.encryptionProviderConfig) encryption = loadEncryptionConfig(o.encryptionProviderConfig);

  /** POST of a computed resource: authorize, compute, answer 201. */
  const serveVirtual = async (req: ApiRequest, res: ResponseWriter): Promise<boolean> => {
    if (req.method !== 'POST') return false;
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    if (!path.startsWith('/apis/authorization.k8s.io/') && !path.startsWith('/apis/authentication.k8s.io/')) return false;
    const info = parseRequestInfo(req.method, path, new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1)));
    if (!info.isResourceRequest || info.name || info.subresource) return false;
    const v = virtual.get(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
    if (!v || v.namespaced !== !!info.namespace) return false;
    const user = req.user;
    if (!user) throw newUnauthorized();
    const d = authorizer.decide({ user, ...info, path });
    if (d.decision !== 'Allow') throw forbiddenFor(user, info, d.reason || undefined);
    const neg = negotiateOutput(req.headers['accept'], false);
    const body = decodeObjectBody(req.headers['content-type'], req.body);
    const want = `${v.group}/${v.version}`;
    // missing parts default from the URL, as upstream's decoder does
    body.apiVersion ||= want;
    body.kind ||= v.kind;
    if (body.apiVersion !== want || body.kind !== v.kind) {
      throw newBadRequest(`the object provided is unrecognized (must be of type ${v.kind}): ${String(body.kind)} in version "${String(body.apiVersion)}" cannot be handled as a ${v.kind}`);
    }
    const out = await v.create(body, { user, namespace: info.namespace });
    writeJSON(res, 201, out, { format: neg.format });
    return true;
  };

  return {
    authorizer,
    admission,
    definitions,
    subresources: [serviceAccountTokenHandler(saTokens)],
    authentication,
    serviceAccountTokens: saTokens,
    wrapStorage(storage) {
      return encryption ? new EncryptingStorage(storage, encryption) : storage;
    },
    install(api) {
      rbacSource.attach(api);
      feedNodeGraph(graph, api);
      quota.attach(api);
      saTokens.lookup = api.lookup;
      bootstrapTokens.lookup = api.lookup;
      const inner = api.handle.bind(api);
      const afterAudit = async (req: ApiRequest, res: ResponseWriter, authErr?: unknown): Promise<void> => {
        try {
          if (authErr) throw authErr;
          if (req.user) impersonate(req, authorizer);
          if (await serveVirtual(req, res)) return;
        } catch (e) {
          if (!res.closed) writeError(res, e);
          return;
        }
        return inner(req, res);
      };
      const authErrors = new WeakMap<ApiRequest, unknown>();
      const audited = auditor ? auditor.wrap((req, res) => afterAudit(req, res, authErrors.get(req))) : undefined;
      api.handle = async (req: ApiRequest, res: ResponseWriter): Promise<void> => {
        let authErr: unknown;
        try {
          await authentication.authenticate(req);
        } catch (e) {
          authErr = e;
        }
        if (!audited) return afterAudit(req, res, authErr);
        if (authErr) authErrors.set(req, authErr);
        return audited(req, res);
      };
    },
    bootstrap: ensureBootstrapPolicy,
    async startControllers(c) {
      const running: { stop(): Promise<void> }[] = [];
      running.push(await startClusterRoleAggregation(controllerClient(c.clientFor, 'clusterrole-aggregation-controller')));
      running.push(await startResourceQuotaController({ client: controllerClient(c.clientFor, 'resourcequota-controller') }));
      running.push(await startCSRController({ client: controllerClient(c.clientFor, 'certificate-controller'), ca: c.ca }));
      if (c.ca) running.push(await startRootCACertPublisher(controllerClient(c.clientFor, 'root-ca-cert-publisher'), c.ca.cert));
      return {
        async stop() {
          for (const r of running.reverse()) await r.stop();
        },
      };
    },
    async close() {
      await auditor?.close();
    },
  };
}
