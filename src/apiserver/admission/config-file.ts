/**
 * `--admission-control-config-file`: an AdmissionConfiguration
 * (`apiserver.config.k8s.io/v1`, also `v1alpha1`/`v1beta1`) listing per plugin its
 * configuration, inline (`configuration`) or in a file (`path`, relative to this file).
 * k8ts reads the MutatingAdmissionWebhook and ValidatingAdmissionWebhook entries (client
 * credentials towards webhooks, ./webhook/authentication-info.ts); other plugins' entries
 * are accepted and not used.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/config.go
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

const VERSIONS = new Set(['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.k8s.io/v1alpha1']);

/** Plugin name → its configuration object. */
export type PluginConfigurations = Map<string, unknown>;

/**
 * Reads the file and each plugin's configuration.
 * @throws Error when a file cannot be read or parsed, or the kind is not AdmissionConfiguration
 */
export function readAdmissionConfiguration(path: string): PluginConfigurations {
  const doc = (parse(readFileSync(path, 'utf8')) ?? {}) as { apiVersion?: string; kind?: string; plugins?: { name?: string; path?: string; configuration?: unknown }[] };
  if (doc.kind !== 'AdmissionConfiguration' || !VERSIONS.has(doc.apiVersion ?? '')) {
    throw new Error(
      `unable to read admission control configuration from ${JSON.stringify(path)}: unexpected kind ${JSON.stringify(`${doc.apiVersion ?? ''}, Kind=${doc.kind ?? ''}`)}`,
    );
  }
  const out: PluginConfigurations = new Map();
  for (const p of doc.plugins ?? []) {
    if (!p.name) continue;
    if (p.configuration !== undefined) out.set(p.name, p.configuration);
    else if (p.path) out.set(p.name, parse(readFileSync(isAbsolute(p.path) ? p.path : resolve(dirname(path), p.path), 'utf8')));
  }
  return out;
}
