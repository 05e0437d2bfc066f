/**
 * The terminal waterfall of a PodTrace (`k8ts trace pod`): one line per step with the
 * seed's step number, component, offset, duration and a bar on a common time axis, then,
 * for a pod that is not Running, why (see explain.ts).
 */
import type { PodTrace, PodTraceStep } from '../api/trace/v1alpha1/podtrace/definition.js';
import { formatMillis } from '../api/trace/v1alpha1/podtrace/definition.js';
import type { StuckExplanation } from './explain.js';
import { SEED_STEPS } from './steps.js';

export interface WaterfallOptions {
  /** bar width in columns; default 40 */
  width?: number;
  /** show details (each plugin, late reports) indented under their step */
  details?: boolean;
}

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number): string => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

/** A bar from `offset` for `duration` on an axis of `total` ms, `width` columns. */
export function bar(offset: number, duration: number, total: number, width: number): string {
  if (total <= 0) return '▏';
  const a = Math.min(width - 1, Math.floor((offset / total) * width));
  const len = Math.max(1, Math.round((duration / total) * width));
  const b = Math.min(width, a + len);
  return ' '.repeat(a) + '█'.repeat(b - a);
}

function stepLabel(s: PodTraceStep): string {
  return s.target ? `${s.name} ${s.target}` : s.name;
}

/** The waterfall lines of `t` (and the explanation of a stuck pod). */
export function renderWaterfall(t: PodTrace, stuck: StuckExplanation | undefined, o: WaterfallOptions = {}): string {
  const width = o.width ?? 40;
  const steps = t.status.steps.filter((s) => o.details || !s.detail);
  const s = t.status.summary;
  const total = Math.max(s.totalMilliseconds, ...steps.map((x) => x.offsetMilliseconds + x.durationMilliseconds));
  const out: string[] = [];
  const head =
    t.status.phase === 'Running'
      ? `Pod ${t.metadata?.namespace}/${t.metadata?.name}: Running ${formatMillis(s.runningMilliseconds)} after the create request`
      : `Pod ${t.metadata?.namespace}/${t.metadata?.name}: ${t.status.phase} for ${formatMillis(s.totalMilliseconds)} since the create request`;
  out.push(head);
  out.push(`${lpad('#', 3)}  ${pad('STEP', 38)} ${pad('COMPONENT', 10)} ${lpad('OFFSET', 9)} ${lpad('DURATION', 9)}  ${'WATERFALL'}`);
  for (const x of steps) {
    const label = x.detail ? `  ${stepLabel(x)}` : stepLabel(x);
    out.push(
      `${lpad(String(x.seedStep), 3)}  ${pad(label.slice(0, 38), 38)} ${pad(x.component, 10)} ${lpad(formatMillis(x.offsetMilliseconds), 9)} ${lpad(formatMillis(x.durationMilliseconds), 9)}  |${bar(x.offsetMilliseconds, x.durationMilliseconds, total, width)}`,
    );
    if (x.message && (x.failure || o.details)) out.push(`${' '.repeat(5)}${x.message}`);
  }
  if (s.slowestStep) out.push(`slowest step: ${s.slowestStep}`);
  if (t.status.droppedSteps) out.push(`(${t.status.droppedSteps} steps left out: the trace keeps the first and the newest)`);
  if (stuck) {
    out.push('');
    out.push(`STUCK at step ${stuck.step} (${SEED_STEPS[stuck.step - 1]?.title ?? ''}): ${stuck.title}`);
    out.push(`  reason:  ${stuck.reason}`);
    if (stuck.message) out.push(`  message: ${stuck.message}`);
    if (stuck.since) out.push(`  since:   ${stuck.since}`);
    for (const r of stuck.rejectedBy ?? []) out.push(`  filter ${r.plugin} rejected: ${r.nodes}`);
    if (stuck.event) out.push(`  event:   ${stuck.event.type} ${stuck.event.reason} (x${stuck.event.count}, last ${stuck.event.lastTimestamp}): ${stuck.event.message}`);
    out.push(`  look at: ${stuck.hint}`);
  }
  return `${out.join('\n')}\n`;
}
