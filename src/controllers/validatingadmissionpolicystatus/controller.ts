/**
 * The ValidatingAdmissionPolicy status controller (kube-controller-manager's
 * `validatingadmissionpolicy-status-controller`): for each policy whose generation is
 * newer than `status.observedGeneration`, type-checks its expressions against the
 * schemas of the kinds it matches and writes `status.observedGeneration` and
 * `status.typeChecking` (`expressionWarnings` when something does not type-check).
 * Kinds come from discovery and schemas from the OpenAPI v3 documents, read through the
 * controller's client (as upstream's ClientDiscoveryResolver does).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/validatingadmissionpolicystatus/controller.go
 */
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import type { KObject } from '../../api/resource.js';
import { isNotFound } from '../../apimachinery/errors.js';
import { type GVK, type KindSchema, typeCheckPolicy, type TypeResolver } from '../../apiserver/admission/policy/validating/typecheck.js';
import { Informer } from '../../client/informer.js';
import type { Client, ResourceRef } from '../../client/types.js';

/** upstream ControllerName (the field manager of its status writes). */
export const CONTROLLER_NAME = 'validatingadmissionpolicy-status-controller';

const VAP: ResourceRef = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
};

type Policy = ValidatingAdmissionPolicy & KObject;

/** Kinds from discovery and schemas from /openapi/v3, cached for one reconcile pass. */
export function clientTypeResolver(client: Client): TypeResolver {
  const lists = new Map<string, Promise<{ name: string; kind: string }[]>>();
  const docs = new Map<string, Promise<Record<string, Record<string, unknown>> | undefined>>();
  const gvPath = (g: string, v: string) => (g === '' ? `/api/${v}` : `/apis/${g}/${v}`);
  const getJSON = async (path: string): Promise<unknown> => {
    const r = await client.raw('GET', path);
    return r.status === 200 ? JSON.parse(r.body) : undefined;
  };
  return {
    async kindsFor(g, v, resource) {
      const key = gvPath(g, v);
      if (!lists.has(key))
        lists.set(
          key,
          getJSON(key)
            .then((l) => (l as { resources?: { name: string; kind: string }[] } | undefined)?.resources ?? [])
            .catch(() => []),
        );
      const found = (await lists.get(key)!).find((x) => x.name === resource);
      return found ? [{ group: g, version: v, kind: found.kind }] : [];
    },
    async schemaFor(gvk: GVK): Promise<KindSchema | undefined> {
      const key = `/openapi/v3${gvPath(gvk.group, gvk.version)}`;
      if (!docs.has(key))
        docs.set(
          key,
          getJSON(key)
            .then((d) => (d as { components?: { schemas?: Record<string, Record<string, unknown>> } } | undefined)?.components?.schemas)
            .catch(() => undefined),
        );
      const components = await docs.get(key)!;
      if (!components) return undefined;
      for (const s of Object.values(components)) {
        const gvks = s['x-kubernetes-group-version-kind'] as GVK[] | undefined;
        if (gvks?.some((x) => x.group === gvk.group && x.version === gvk.version && x.kind === gvk.kind)) return { schema: s, components };
      }
      return undefined;
    },
  };
}

/** Starts the controller; resolves once its informer has synced. */
export async function startValidatingAdmissionPolicyStatusController(client: Client): Promise<{ stop(): Promise<void> }> {
  const policies = new Informer<Policy>(client, VAP);
  const queue = new Set<string>();
  let running = false;
  const reconcile = async (name: string): Promise<void> => {
    const p = policies.list().find((x) => x.metadata?.name === name);
    if (!p) return;
    const generation = p.metadata?.generation ?? 0;
    if (generation <= (p.status?.observedGeneration ?? 0)) return;
    const warnings = await typeCheckPolicy(p, clientTypeResolver(client));
    const status = { observedGeneration: generation, typeChecking: { expressionWarnings: warnings.length ? warnings : null } };
    try {
      await client.patch(VAP, '', name, 'merge', { status }, { subresource: 'status', fieldManager: CONTROLLER_NAME });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  };
  const drain = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      while (queue.size) {
        const [name] = queue;
        queue.delete(name!);
        try {
          await reconcile(name!);
        } catch {
          setTimeout(() => enqueue(name!), 1000).unref();
        }
      }
    } finally {
      running = false;
    }
  };
  const enqueue = (name: string): void => {
    queue.add(name);
    setImmediate(() => void drain());
  };
  const onPolicy = (p: Policy) => enqueue(p.metadata?.name ?? '');
  policies.addEventHandler({ add: onPolicy, update: (_o, n) => onPolicy(n) });
  policies.start();
  await policies.waitForSync();
  return {
    async stop() {
      policies.stop();
    },
  };
}
