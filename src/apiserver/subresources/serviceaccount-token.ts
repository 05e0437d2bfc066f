/**
 * serviceaccounts/token (TokenRequest): issues a bound, expiring ServiceAccount JWT.
 * `expirationSeconds` defaults to 3600 and must be at least 600; `boundObjectRef` may
 * name a Pod, Secret or Node that must exist (and match its UID), and the token dies
 * with it. Pod-bound tokens also carry the pod's node.
 *
 * @see https://kubernetes.io/docs/reference/kubernetes-api/authentication-resources/token-request-v1/
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/serviceaccount/storage/token.go
 */
import type { KObject } from '../../api/resource.js';
import { newBadRequest, newForbidden, newInvalid, newNotFound } from '../../apimachinery/errors.js';
import { invalid, Path } from '../../apimachinery/field-errors.js';
import type { ServiceAccountTokens } from '../authn/serviceaccount.js';
import { nodeIdentity } from '../authz/node.js';
import { writeJSON } from '../http/respond.js';
import { createRequest } from './request.js';
import type { SubresourceHandler } from './types.js';

interface TokenRequest extends KObject {
  spec?: {
    audiences?: string[];
    expirationSeconds?: number;
    boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
  };
}

const MIN_EXPIRATION = 600;
const MAX_EXPIRATION = 2 ** 32;

/** The handler over a token issuer. */
export function serviceAccountTokenHandler(tokens: ServiceAccountTokens): SubresourceHandler {
  return {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    subresource: 'token',
    responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
    verbs: ['create'],
    async handle(c, stores) {
      const { neg, body, dryRun } = createRequest<TokenRequest>(c, { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
      const ns = c.info.namespace;
      const name = c.info.name;
      const sa = (await c.store.get(ns, name)).obj;
      // admission sees the authentication.k8s.io/v1 TokenRequest (upstream TokenREST.Create's createValidation)
      const user = c.req.user ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] };
      const admitted = {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        ...body,
        metadata: { ...(body as { metadata?: object }).metadata, name, namespace: ns },
        spec: { ...(body.spec ?? {}), expirationSeconds: body.spec?.expirationSeconds ?? 3600 },
      };
      await c.store.admitRequest({
        operation: 'CREATE',
        namespace: ns,
        name,
        subresource: 'token',
        kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
        object: admitted as never,
        user,
        dryRun,
      });
      const spec = { ...(admitted.spec ?? {}) } as NonNullable<TokenRequest['spec']>;
      spec.expirationSeconds ??= 3600;
      spec.audiences = spec.audiences?.length ? spec.audiences : tokens.apiAudiences;
      const gk = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
      const sp = Path.root('spec');
      if (spec.expirationSeconds < MIN_EXPIRATION) {
        throw newInvalid(gk, name, [invalid(sp.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration less than 10 minutes')]);
      }
      if (spec.expirationSeconds > MAX_EXPIRATION) {
        throw newInvalid(gk, name, [invalid(sp.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration larger than 2^32 seconds')]);
      }
      const ref = spec.boundObjectRef;
      let pod: { name: string; uid: string } | undefined;
      let secret: { name: string; uid: string } | undefined;
      let node: { name: string; uid: string } | undefined;
      let podNode: string | undefined;
      if (ref) {
        const kinds: Record<string, { resource: string; namespaced: boolean }> = {
          Pod: { resource: 'pods', namespaced: true },
          Secret: { resource: 'secrets', namespaced: true },
          Node: { resource: 'nodes', namespaced: false },
        };
        const k = kinds[ref.kind ?? ''];
        if (!k) throw newBadRequest(`cannot bind token for serviceaccount "${name}" to object of kind "${ref.kind ?? ''}"`);
        const s = stores.store('', k.resource);
        if (!s) throw newNotFound({ group: '', resource: k.resource }, ref.name ?? '');
        const o = (await s.get(k.namespaced ? ns : '', ref.name ?? '')).obj;
        if (ref.uid && ref.uid !== o.metadata.uid) {
          throw newBadRequest(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
        }
        const r = { name: o.metadata.name!, uid: o.metadata.uid! };
        if (ref.kind === 'Pod') {
          pod = r;
          const nodeName = (o.spec as { nodeName?: string } | undefined)?.nodeName;
          if (nodeName) {
            const ns2 = stores.store('', 'nodes');
            podNode = nodeName;
            const n = ns2?.peek('', nodeName)?.obj;
            if (n) node = { name: nodeName, uid: n.metadata.uid ?? '' };
          }
        } else if (ref.kind === 'Secret') secret = r;
        else node = r;
      }
      // NodeRestriction: a kubelet may only request tokens bound to a pod on itself
      const node0 = c.req.user ? nodeIdentity(c.req.user) : undefined;
      if (node0) {
        const gr = { group: '', resource: 'serviceaccounts' };
        if (!pod) throw newForbidden(gr, name, `node requested token not bound to a pod`);
        if (podNode !== node0) throw newForbidden(gr, name, `node requested token bound to a pod scheduled on a different node`);
      }
      const issued = await tokens.issue({
        namespace: ns,
        serviceAccount: { name, uid: sa.metadata.uid ?? '' },
        audiences: spec.audiences,
        expirationSeconds: spec.expirationSeconds,
        pod,
        secret,
        node,
      });
      const out = {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name, namespace: ns, creationTimestamp: null },
        spec: { ...spec, boundObjectRef: ref ?? null },
        status: issued,
      };
      writeJSON(c.res, 201, out, { format: neg.format });
    },
  };
}
