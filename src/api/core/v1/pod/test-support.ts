/**
 * Test support for the pod strategy: load the shared example manifests and run a pod
 * through the create path (defaults → prepareForCreate → validate → canonicalize) the way
 * the generic store does. Used by this folder's tests; other components' tests may use it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { FieldError } from '../../../../apimachinery/field-errors.js';
import type { KObject, Obj, StrategyContext } from '../../../resource.js';
import { addDefaultTolerationSeconds, podDefinition } from './strategy.js';
import type { Pod } from './types.js';

/** test/fixtures/manifests: the published example manifests (each names its source; see EXPECTED.md there). */
const MANIFEST_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../../../test/fixtures/manifests');

/** Every YAML document of a manifest file, parsed with a full YAML 1.2 parser (KYAML is flow style). */
export function loadManifest(file: string): KObject[] {
  const text = readFileSync(join(MANIFEST_DIR, file), 'utf8');
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KObject | null)
    .filter((o): o is KObject => !!o && typeof o === 'object');
}

/** File names of all manifests. */
export function manifestFiles(): string[] {
  return readdirSync(MANIFEST_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

/** A fixed strategy context. */
export function testContext(now = new Date('2025-01-01T00:00:00Z'), namespace = 'default'): StrategyContext {
  return { user: { username: 'admin', groups: ['system:masters'] }, namespace, now: () => now };
}

/**
 * The create path for a pod as the API server runs it (defaults, the DefaultTolerationSeconds
 * admission plugin, the strategy; metadata system fields filled in
 * like the store would). Returns the stored object and the validation errors.
 */
export function createPod(input: Pod, ctx: StrategyContext = testContext()): { pod: Obj<Pod>; errors: FieldError[] } {
  const pod = structuredClone(input) as Obj<Pod>;
  pod.metadata ??= {};
  pod.metadata.namespace ??= ctx.namespace;
  if (!pod.metadata.name && pod.metadata.generateName) pod.metadata.name = pod.metadata.generateName + 'abcde';
  (pod.metadata as { uid?: string }).uid ??= '00000000-0000-0000-0000-000000000001';
  (pod.metadata as { creationTimestamp?: string }).creationTimestamp ??= '2025-01-01T00:00:00Z';
  podDefinition.defaults!(pod);
  // what the DefaultTolerationSeconds admission plugin adds between defaulting and prepareForCreate
  addDefaultTolerationSeconds(pod);
  podDefinition.prepareForCreate!(pod, ctx);
  const errors = podDefinition.validate!(pod, ctx);
  if (errors.length === 0) podDefinition.canonicalize!(pod);
  return { pod, errors };
}

/** A pod built from a workload's pod template (Deployment, Job, …), as its controller would create it. */
export function podFromTemplate(obj: KObject): Pod {
  const spec = obj.spec as {
    template?: { metadata?: Pod['metadata']; spec?: Pod['spec'] };
    jobTemplate?: { spec?: { template?: { metadata?: Pod['metadata']; spec?: Pod['spec'] } } };
  };
  const tmpl = spec.template ?? spec.jobTemplate?.spec?.template;
  if (!tmpl) throw new Error(`${obj.kind} has no pod template`);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...(structuredClone(tmpl.metadata) ?? {}), name: `${obj.metadata?.name ?? 'x'}-abcde`, namespace: obj.metadata?.namespace },
    spec: structuredClone(tmpl.spec),
  };
}
