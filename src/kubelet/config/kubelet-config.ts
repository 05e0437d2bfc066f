/**
 * The kubelet's `--config` file: a KubeletConfiguration (kubelet.config.k8s.io/v1beta1).
 * k8ts reads the fields it acts on — `staticPodPath`, `fileCheckFrequency`,
 * `syncFrequency` and `volumeStatsAggPeriod` — and
 * ignores the rest, as upstream's lenient decoding does for fields it does not know.
 * A command-line flag wins over the file (upstream: flags take precedence).
 *
 * @see https://kubernetes.io/docs/reference/config-api/kubelet-config.v1beta1/
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/cmd/kubelet/app/server.go (loadConfigFile)
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { parseGoDuration } from '../../util/duration.js';

export const KUBELET_CONFIG_GROUP_VERSION = 'kubelet.config.k8s.io/v1beta1';

/** What k8ts takes from a KubeletConfiguration. */
export interface KubeletFileConfig {
  /** directory (or file) of static pod manifests; a relative path is relative to the config file, as upstream resolves it */
  staticPodPath?: string;
  /** how often the static pod path is re-read, ms (upstream default 20 s) */
  fileCheckFrequencyMs?: number;
  /** how often each pod is synced (volumes checked for expansion, status refreshed), ms (upstream default 1 min) */
  syncFrequencyMs?: number;
  /** how often the volume stats are calculated, ms (upstream default 1m; 0 disables them) */
  volumeStatsAggPeriodMs?: number;
}

/**
 * Loads a KubeletConfiguration file.
 * @throws Error `failed to load Kubelet config file <file>, error: <why>` when the file cannot be read, is not a
 *   kubelet.config.k8s.io/v1beta1 KubeletConfiguration, or has a malformed `fileCheckFrequency`, `syncFrequency` or `volumeStatsAggPeriod`
 */
export function loadKubeletConfigFile(file: string): KubeletFileConfig {
  const fail = (why: string): never => {
    throw new Error(`failed to load Kubelet config file ${file}, error: ${why}`);
  };
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return fail((e as Error).message);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return fail('not a KubeletConfiguration object');
  const o = doc as Record<string, unknown>;
  if (o.apiVersion !== KUBELET_CONFIG_GROUP_VERSION || o.kind !== 'KubeletConfiguration') {
    return fail(
      `no kind ${JSON.stringify(o.kind ?? '')} is registered for version ${JSON.stringify(o.apiVersion ?? '')}: want kind KubeletConfiguration in ${KUBELET_CONFIG_GROUP_VERSION}`,
    );
  }
  const out: KubeletFileConfig = {};
  if (o.staticPodPath !== undefined && o.staticPodPath !== '') {
    if (typeof o.staticPodPath !== 'string') return fail('staticPodPath: must be a string');
    out.staticPodPath = isAbsolute(o.staticPodPath) ? o.staticPodPath : resolve(dirname(resolve(file)), o.staticPodPath);
  }
  for (const [field, key] of [
    ['fileCheckFrequency', 'fileCheckFrequencyMs'],
    ['syncFrequency', 'syncFrequencyMs'],
    ['volumeStatsAggPeriod', 'volumeStatsAggPeriodMs'],
  ] as const) {
    const v = o[field];
    if (v === undefined) continue;
    try {
      if (typeof v !== 'string') throw new Error(`time: invalid duration ${JSON.stringify(String(v))}`);
      out[key] = parseGoDuration(v);
    } catch (e) {
      return fail(`${field}: ${(e as Error).message}`);
    }
  }
  return out;
}
