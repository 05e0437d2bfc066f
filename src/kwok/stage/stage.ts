/**
 * kwok's `Stage` resource (kwok.x-k8s.io/v1alpha1): lifecycle as data. A Stage names the
 * kind it drives (`resourceRef`), which objects it applies to (`selector`: matchLabels,
 * matchAnnotations, matchExpressions whose keys are jq queries such as
 * `.metadata.deletionTimestamp`), when (`delay`: a duration, jitter up to a longer one,
 * or a time read from the object) and what happens then (`next`: a status rendered from
 * a Go template, finalizers added/removed/emptied, an Event, deletion).
 *
 * This module parses and checks Stage documents (errors name the field, as kwok's
 * validation does), and answers which stage an object is in and after how long its
 * `next` applies. Carrying `next` out is the caller's job (pods: ./pod-stages.ts).
 *
 * @see https://kwok.sigs.k8s.io/docs/user/stages-configuration/
 * @see https://github.com/kubernetes-sigs/kwok/blob/main/pkg/apis/v1alpha1/stage_types.go
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { compileJq, type JqQuery } from './jq.js';
import { parseTemplate, type Template } from './gotemplate.js';

export interface StageSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** The spec of a Stage, as kwok's v1alpha1 types name it. */
export interface StageSpec {
  resourceRef: { apiGroup?: string; kind: string };
  selector?: { matchLabels?: Record<string, string>; matchAnnotations?: Record<string, string>; matchExpressions?: StageSelectorRequirement[] };
  weight?: number;
  delay?: {
    durationMilliseconds?: number;
    durationFrom?: { expressionFrom: string };
    jitterDurationMilliseconds?: number;
    jitterDurationFrom?: { expressionFrom: string };
  };
  next: {
    statusTemplate?: string;
    finalizers?: { add?: { value: string }[]; remove?: { value: string }[]; empty?: boolean };
    delete?: boolean;
    event?: { type?: string; reason?: string; message?: string };
  };
  immediateNextStage?: boolean;
}

/** A Stage document. */
export interface StageObject {
  apiVersion: string;
  kind: 'Stage';
  metadata: { name: string };
  spec: StageSpec;
}

/** A checked Stage with its queries and template compiled. */
export interface CompiledStage {
  name: string;
  /** `apiGroup/kind` as resourceRef gives them ("v1/Pod" for the core group) */
  ref: string;
  spec: StageSpec;
  matches(obj: unknown): boolean;
  /** ms until `next` applies (0 = now), for `obj` at `nowMs` */
  delayMs(obj: unknown, nowMs: number, random?: () => number): number;
  status?: Template;
}

export const STAGE_API_VERSION = 'kwok.x-k8s.io/v1alpha1';

/** Thrown for a Stage document kwok would refuse; the message names the stage and field. */
export class StageError extends Error {}

/** The `apiGroup/kind` key of a resourceRef (kwok writes the core group as `v1`). */
export function refKey(ref: { apiGroup?: string; kind: string }): string {
  return `${ref.apiGroup || 'v1'}/${ref.kind}`;
}

/**
 * Reads the Stage documents of a (multi-document) YAML text; documents of other kinds
 * (a KwokConfiguration beside them in a kwok config file) are skipped.
 * @throws StageError on YAML errors or an invalid Stage
 */
export function loadStages(text: string, source: string): CompiledStage[] {
  const out: CompiledStage[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new StageError(`${source}: ${doc.errors[0]!.message}`);
    const o = doc.toJS() as Partial<StageObject> | null;
    if (!o || o.kind !== 'Stage') continue;
    if (o.apiVersion !== STAGE_API_VERSION)
      throw new StageError(`${source}: Stage ${o.metadata?.name ?? ''}: apiVersion must be ${STAGE_API_VERSION}, not ${String(o.apiVersion)}`);
    out.push(compileStage(o as StageObject));
  }
  return out;
}

/**
 * Checks and compiles one Stage.
 * @throws StageError naming the stage and the field
 */
export function compileStage(o: StageObject): CompiledStage {
  const name = o.metadata?.name ?? '';
  const bad = (field: string, msg: string): StageError => new StageError(`Stage ${JSON.stringify(name)}: ${field}: ${msg}`);
  if (!name) throw bad('metadata.name', 'Required value');
  const spec = o.spec;
  if (!spec?.resourceRef?.kind) throw bad('spec.resourceRef.kind', 'Required value');
  if (!spec.next) throw bad('spec.next', 'Required value');
  const labels = Object.entries(spec.selector?.matchLabels ?? {});
  const annotations = Object.entries(spec.selector?.matchAnnotations ?? {});
  const exprs = (spec.selector?.matchExpressions ?? []).map((r, i) => {
    const f = `spec.selector.matchExpressions[${i}]`;
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(r.operator))
      throw bad(`${f}.operator`, `Unsupported value: ${JSON.stringify(r.operator)}: supported values: "DoesNotExist", "Exists", "In", "NotIn"`);
    if ((r.operator === 'In' || r.operator === 'NotIn') && !r.values?.length) throw bad(`${f}.values`, 'must be specified when operator is In or NotIn');
    return { r, q: jqOrThrow(r.key, bad, `${f}.key`) };
  });
  const durationFrom = spec.delay?.durationFrom && jqOrThrow(spec.delay.durationFrom.expressionFrom, bad, 'spec.delay.durationFrom.expressionFrom');
  const jitterFrom = spec.delay?.jitterDurationFrom && jqOrThrow(spec.delay.jitterDurationFrom.expressionFrom, bad, 'spec.delay.jitterDurationFrom.expressionFrom');
  let status: Template | undefined;
  if (spec.next.statusTemplate) {
    try {
      status = parseTemplate(name, spec.next.statusTemplate);
    } catch (e) {
      throw bad('spec.next.statusTemplate', (e as Error).message);
    }
  }
  const fromTime = (q: JqQuery | undefined, obj: unknown, nowMs: number): number | undefined => {
    if (!q) return undefined;
    const v = q.eval(obj).find((x) => typeof x === 'string');
    const t = typeof v === 'string' ? Date.parse(v) : NaN;
    return Number.isNaN(t) ? undefined : Math.max(0, t - nowMs);
  };
  return {
    name,
    ref: refKey(spec.resourceRef),
    spec,
    status,
    matches(obj) {
      const meta = (obj as { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } }).metadata;
      if (labels.some(([k, v]) => meta?.labels?.[k] !== v)) return false;
      if (annotations.some(([k, v]) => meta?.annotations?.[k] !== v)) return false;
      for (const { r, q } of exprs) {
        const got = q.eval(obj).filter((v) => v !== null && v !== undefined);
        const strs = got.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
        const ok =
          r.operator === 'Exists'
            ? got.length > 0
            : r.operator === 'DoesNotExist'
              ? got.length === 0
              : r.operator === 'In'
                ? strs.some((s) => r.values!.includes(s))
                : !strs.some((s) => r.values!.includes(s));
        if (!ok) return false;
      }
      return true;
    },
    delayMs(obj, nowMs, random = Math.random) {
      const d = spec.delay;
      if (!d) return 0;
      const base = fromTime(durationFrom, obj, nowMs) ?? d.durationMilliseconds ?? 0;
      const jitter = fromTime(jitterFrom, obj, nowMs) ?? d.jitterDurationMilliseconds;
      // kwok: uniformly between the duration and the jitter duration
      return jitter !== undefined && jitter > base ? base + Math.floor(random() * (jitter - base)) : base;
    },
  };
}

function jqOrThrow(src: string, bad: (f: string, m: string) => StageError, field: string): JqQuery {
  try {
    return compileJq(src);
  } catch (e) {
    throw bad(field, (e as Error).message);
  }
}

/**
 * The stage `obj` is in: among the stages of its kind that match, one chosen at random
 * by `weight` (all weights 0: the first by name), or undefined.
 */
export function selectStage(stages: CompiledStage[], obj: unknown, random: () => number = Math.random): CompiledStage | undefined {
  const m = stages.filter((s) => s.matches(obj));
  if (m.length <= 1) return m[0];
  const total = m.reduce((t, s) => t + (s.spec.weight ?? 0), 0);
  if (total <= 0) return m.sort((a, b) => a.name.localeCompare(b.name))[0];
  let r = random() * total;
  for (const s of m) {
    r -= s.spec.weight ?? 0;
    if (r < 0) return s;
  }
  return m.at(-1);
}

/**
 * The Stages of `--kwok-stages FILE` (all kinds; the caller carries out the Pod ones).
 * @throws StageError on an unreadable file or an invalid Stage
 */
export function readKwokStages(file: string): CompiledStage[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new StageError(`--kwok-stages ${file}: ${(e as Error).message}`);
  }
  return loadStages(text, file);
}
