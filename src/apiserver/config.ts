/**
 * The API server's configuration from kube-apiserver's flags (upstream
 * BuildGenericConfig): authentication (static token file, ServiceAccount JWTs,
 * bootstrap tokens), authorization (`--authorization-mode`, default `Node,RBAC`),
 * admission (src/apiserver/admission/plugins/index.ts), audit logging, encryption at
 * rest, the computed review resources and the TokenRequest subresource. It builds
 * objects only; the handler chain that uses them is src/apiserver/filters/chain.ts and
 * the resources are registered in src/api/all.ts.
 *
 * Wiring (the all-in-one server, src/cli/server.ts):
 * ```ts
 * const config = buildServerConfig({ dataDir, tokenAuthFile, auditPolicyFile, auditLogPath, encryptionProviderConfig });
 * const storage = config.wrapStorage(await openStorage(...));
 * const api = new APIServer({ storage, serverAddress, ...config.apiServer,
 *   definitions: allDefinitions({ serviceCIDR, rbacEscalationGuard: config.rbacEscalationGuard }),
 *   subresources: [...handlers, ...config.subresources] });
 * await api.start();
 * await bootstrapCluster(...); await config.bootstrap(adminClient);
 * ```
 *
 * @see https://kubernetes.io/docs/concepts/security/controlling-access/
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/apiserver/config.go
 */
import { join } from 'node:path';
import type { EscalationGuard } from '../api/rbac/definitions.js';
import type { Client } from '../client/types.js';
import type { Storage } from '../storage/interface.js';
import { admissionPlugins } from './admission/plugins/index.js';
import { readAdmissionConfiguration } from './admission/config-file.js';
import type { PodSecurityOptions } from './admission/plugins/pod-security.js';
import type { APIServerOptions } from './apiserver.js';
import { Auditor } from './audit/audit.js';
import { BootstrapTokenAuthenticator } from './authn/bootstrap-token.js';
import { Authentication } from './authn/filter.js';
import { authenticationReviews } from './authn/reviews.js';
import { ensureServiceAccountKey, generateServiceAccountKey, ServiceAccountTokens, type ServiceAccountKey } from './authn/serviceaccount.js';
import { TokenFileAuthenticator } from './authn/token-file.js';
import type { TokenAuthenticator } from './authn/types.js';
import { ensureBootstrapPolicy } from './authz/bootstrap.js';
import { NodeGraph } from './authz/node-graph.js';
import { NodeAuthorizer } from './authz/node.js';
import { podTraceReadAuthorizer } from './podtrace/authz.js';
import { RBACEscalationGuard } from './authz/rbac/guard.js';
import { RBACAuthorizer } from './authz/rbac/authorizer.js';
import { accessReviews } from './authz/reviews.js';
import { feedNodeGraph, StoreRBACSource } from './authz/sources.js';
import { type DecisionAuthorizer, UnionAuthorizer } from './authz/types.js';
import { EncryptingStorage } from './encryption/storage.js';
import { loadEncryptionConfig, type EncryptionConfig } from './encryption/config.js';
import { serviceAccountTokenHandler } from './subresources/serviceaccount-token.js';
import type { SubresourceHandler } from './subresources/types.js';

export type AuthorizationMode = 'Node' | 'RBAC' | 'AlwaysAllow';

export interface ServerConfigOptions {
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
  /** `--enable-admission-plugins` / `--disable-admission-plugins` (see admission/plugins/index.ts) */
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  /** `--admission-control-config-file` (AdmissionConfiguration; webhook client credentials) */
  admissionControlConfigFile?: string;
}

/** The parts of {@link APIServerOptions} the configuration fills. */
export type ConfiguredAPIServerOptions = Required<Pick<APIServerOptions, 'admission' | 'authentication' | 'impersonation' | 'authorizer' | 'virtualResources' | 'storeConsumers'>> &
  Pick<APIServerOptions, 'auditor'>;

export interface ServerConfig {
  /** spread into `new APIServer({...})` */
  apiServer: ConfiguredAPIServerOptions;
  authorizer: UnionAuthorizer;
  authentication: Authentication;
  serviceAccountTokens: ServiceAccountTokens;
  /** RBAC escalation prevention for the RBAC resources (`allDefinitions({ rbacEscalationGuard })`) */
  rbacEscalationGuard: EscalationGuard;
  /** serviceaccounts/token */
  subresources: SubresourceHandler[];
  /** adds encryption at rest when configured */
  wrapStorage(storage: Storage): Storage;
  /** creates the bootstrap roles and bindings (run as a system:masters client after the namespaces exist) */
  bootstrap(client: Client): Promise<void>;
  /** flushes the audit log */
  close(): Promise<void>;
}

const allowAll: DecisionAuthorizer = { name: 'AlwaysAllow', decide: () => ({ decision: 'Allow', reason: '' }) };

/**
 * Builds the configuration.
 * @throws Error on unreadable or invalid token, audit policy or encryption files, and on
 *   unknown admission plugin names
 */
export function buildServerConfig(o: ServerConfigOptions = {}): ServerConfig {
  // authorization: the union of the modes, in the order given
  const rbacSource = new StoreRBACSource();
  const graph = new NodeGraph();
  const rbac = new RBACAuthorizer(rbacSource);
  const modes = (o.authorizationModes ?? ['Node', 'RBAC']).map((m): DecisionAuthorizer => {
    if (m === 'Node') return new NodeAuthorizer(graph);
    if (m === 'RBAC') return rbac;
    return allowAll;
  });
  // PodTrace reads are decided as reads of their pods (src/apiserver/podtrace/authz.ts)
  const authorizer = new UnionAuthorizer([podTraceReadAuthorizer(modes), ...modes]);

  // authentication: static tokens, then ServiceAccount JWTs, then bootstrap tokens
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

  const admission = admissionPlugins({
    authorizer,
    podSecurity: o.podSecurity,
    enable: o.enableAdmissionPlugins,
    disable: o.disableAdmissionPlugins,
    configurations: o.admissionControlConfigFile ? readAdmissionConfiguration(o.admissionControlConfigFile) : undefined,
  });
  const auditor = o.auditor ?? (o.auditPolicyFile && o.auditLogPath ? Auditor.fromFiles(o.auditPolicyFile, o.auditLogPath) : undefined);
  let encryption: EncryptionConfig | undefined;
  if (o.encryptionProviderConfig) encryption = loadEncryptionConfig(o.encryptionProviderConfig);

  return {
    apiServer: {
      admission: admission.plugins,
      authentication,
      auditor,
      impersonation: authorizer,
      authorizer,
      virtualResources: [...accessReviews(authorizer, rbac.resolver), ...authenticationReviews(authentication, saTokens)],
      storeConsumers: [
        rbacSource,
        { attach: (api) => feedNodeGraph(graph, api) },
        ...admission.storeConsumers,
        {
          attach: (api) => {
            saTokens.lookup = api.lookup;
            bootstrapTokens.lookup = api.lookup;
            // a deleted account (or legacy token Secret) fails at once, not after the token cache's TTL
            for (const resource of ['serviceaccounts', 'secrets']) {
              api.store('', resource)?.cache.addListener({ onEvent: (ev) => ev.type === 'DELETED' && saTokens.invalidateCache() });
            }
          },
        },
      ],
    },
    authorizer,
    authentication,
    serviceAccountTokens: saTokens,
    rbacEscalationGuard: new RBACEscalationGuard(rbac.resolver, authorizer),
    subresources: [serviceAccountTokenHandler(saTokens)],
    wrapStorage(storage) {
      return encryption ? new EncryptingStorage(storage, encryption) : storage;
    },
    bootstrap: ensureBootstrapPolicy,
    async close() {
      await auditor?.close();
    },
  };
}
