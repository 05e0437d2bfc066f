/**
 * A container's environment (upstream makeEnvironmentVariables): envFrom, then env
 * with `$(VAR)` expansion and valueFrom (fieldRef, resourceFieldRef,
 * configMapKeyRef, secretKeyRef, `optional`), then the service-link variables not
 * already set. Errors carry upstream's messages and become CreateContainerConfigError.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_pods.go
 */
import type { ConfigMap, Container, Pod, Secret } from 'kubernetes-types/core/v1.js';
import { fieldRefValue, resourceFieldRefValue, type NodeAllocatable, type RuntimeFieldValues } from './downward.js';
import { expand } from './expand.js';

export interface EnvDeps {
  getConfigMap(ns: string, name: string): Promise<ConfigMap | undefined>;
  getSecret(ns: string, name: string): Promise<Secret | undefined>;
  serviceEnv: Map<string, string>;
  runtimeValues: RuntimeFieldValues;
  alloc: NodeAllocatable;
}

/** A configuration error of the container (reason CreateContainerConfigError). */
export class ContainerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContainerConfigError';
  }
}

const C_IDENTIFIER = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/**
 * @returns the environment as ordered [name, value] pairs (later duplicates replace earlier ones)
 * @throws ContainerConfigError e.g. `configmap "special-config" not found`,
 *   `couldn't find key special.how in ConfigMap default/special-config`
 */
export async function makeEnvironmentVariables(pod: Pod, c: Container, d: EnvDeps): Promise<Map<string, string>> {
  const ns = pod.metadata?.namespace ?? '';
  const env = new Map<string, string>();
  const cms = new Map<string, ConfigMap | undefined>();
  const secrets = new Map<string, Secret | undefined>();
  const cm = async (name: string): Promise<ConfigMap | undefined> => {
    if (!cms.has(name)) cms.set(name, await d.getConfigMap(ns, name));
    return cms.get(name);
  };
  const secret = async (name: string): Promise<Secret | undefined> => {
    if (!secrets.has(name)) secrets.set(name, await d.getSecret(ns, name));
    return secrets.get(name);
  };

  for (const ef of c.envFrom ?? []) {
    const prefix = ef.prefix ?? '';
    if (ef.configMapRef) {
      const name = ef.configMapRef.name ?? '';
      const o = await cm(name);
      if (!o) {
        if (ef.configMapRef.optional) continue;
        throw new ContainerConfigError(`configmap ${JSON.stringify(name)} not found`);
      }
      for (const [k, v] of Object.entries(o.data ?? {})) if (C_IDENTIFIER.test(prefix + k)) env.set(prefix + k, v);
    } else if (ef.secretRef) {
      const name = ef.secretRef.name ?? '';
      const o = await secret(name);
      if (!o) {
        if (ef.secretRef.optional) continue;
        throw new ContainerConfigError(`secret ${JSON.stringify(name)} not found`);
      }
      for (const [k, v] of Object.entries(o.data ?? {})) if (C_IDENTIFIER.test(prefix + k)) env.set(prefix + k, Buffer.from(v, 'base64').toString('utf8'));
    }
  }

  const lookup = (n: string): string | undefined => env.get(n) ?? d.serviceEnv.get(n);
  for (const e of c.env ?? []) {
    let value = e.value ?? '';
    if (e.value !== undefined) value = expand(e.value, lookup);
    else if (e.valueFrom) {
      const vf = e.valueFrom;
      try {
        if (vf.fieldRef) value = fieldRefValue(pod, vf.fieldRef.fieldPath, d.runtimeValues);
        else if (vf.resourceFieldRef) value = resourceFieldRefValue(pod, vf.resourceFieldRef, c.name, d.alloc);
      } catch (err) {
        throw new ContainerConfigError((err as Error).message);
      }
      if (vf.configMapKeyRef) {
        const ref = vf.configMapKeyRef;
        const o = await cm(ref.name ?? '');
        if (!o) {
          if (ref.optional) continue;
          throw new ContainerConfigError(`configmap ${JSON.stringify(ref.name ?? '')} not found`);
        }
        const v = o.data?.[ref.key];
        if (v === undefined) {
          if (ref.optional) continue;
          throw new ContainerConfigError(`couldn't find key ${ref.key} in ConfigMap ${ns}/${ref.name}`);
        }
        value = v;
      } else if (vf.secretKeyRef) {
        const ref = vf.secretKeyRef;
        const o = await secret(ref.name ?? '');
        if (!o) {
          if (ref.optional) continue;
          throw new ContainerConfigError(`secret ${JSON.stringify(ref.name ?? '')} not found`);
        }
        const v = o.data?.[ref.key];
        if (v === undefined) {
          if (ref.optional) continue;
          throw new ContainerConfigError(`couldn't find key ${ref.key} in Secret ${ns}/${ref.name}`);
        }
        value = Buffer.from(v, 'base64').toString('utf8');
      }
    }
    env.set(e.name, value);
  }
  for (const [k, v] of d.serviceEnv) if (!env.has(k)) env.set(k, v);
  return env;
}

/** Upstream ExpandContainerCommandAndArgs: `$(VAR)` in command and args from the final environment. */
export function expandCommandAndArgs(c: Container, env: Map<string, string>): { command: string[]; args: string[] } {
  const lookup = (n: string): string | undefined => env.get(n);
  return {
    command: (c.command ?? []).map((s) => expand(s, lookup)),
    args: (c.args ?? []).map((s) => expand(s, lookup)),
  };
}
