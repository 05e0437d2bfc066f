/**
 * Server-side printing of HorizontalPodAutoscalers as upstream's printer: NAME REFERENCE
 * TARGETS MINPODS MAXPODS REPLICAS AGE, TARGETS as `<current>/<target>` per metric
 * (`cpu: <unknown>/80%` while no metric value is known), at most two then `+ N more...`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/printers/internalversion/printers.go (printHorizontalPodAutoscaler, formatHPAMetrics)
 */
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import { canonicalizeQuantityString } from '../../../../apimachinery/quantity.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K } from '../../../core/v1/shared/types.js';
import type { TablePrinter } from '../../../resource.js';

const UNKNOWN = '<unknown>';
const q = (v: string | number): string => {
  try {
    return canonicalizeQuantityString(String(v));
  } catch {
    return String(v);
  }
};
const qOr = (v: string | number | undefined): string => (v === undefined ? UNKNOWN : q(v));

/** One metric's `<current>/<target>` (upstream formatHPAMetrics' switch). */
function formatMetric(spec: MetricSpec, st: MetricStatus | undefined): string {
  switch (spec.type) {
    case 'External': {
      const t = spec.external?.target;
      if (t?.averageValue !== undefined) return `${qOr(st?.external?.current?.averageValue)}/${q(t.averageValue)} (avg)`;
      return `${qOr(st?.external?.current?.value)}/${q(t?.value ?? 0)}`;
    }
    case 'Pods':
      return `${qOr(st?.pods?.current?.averageValue)}/${q(spec.pods?.target?.averageValue ?? 0)}`;
    case 'Object': {
      const t = spec.object?.target;
      if (t?.averageValue !== undefined) return `${qOr(st?.object?.current?.averageValue)}/${q(t.averageValue)} (avg)`;
      return `${qOr(st?.object?.current?.value)}/${q(t?.value ?? 0)}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const src = spec.type === 'Resource' ? spec.resource : spec.containerResource;
      const cur = spec.type === 'Resource' ? st?.resource?.current : st?.containerResource?.current;
      const name = src?.name ?? '';
      if (src?.target?.averageValue !== undefined) return `${name}: ${qOr(cur?.averageValue)}/${q(src.target.averageValue)}`;
      const current = cur?.averageUtilization !== undefined ? `${cur.averageUtilization}%` : UNKNOWN;
      const target = src?.target?.averageUtilization !== undefined ? `${src.target.averageUtilization}%` : '<auto>';
      return `${name}: ${current}/${target}`;
    }
    default:
      return '<unknown type>';
  }
}

/** Upstream formatHPAMetrics. */
export function formatHPAMetrics(specs: readonly MetricSpec[] | undefined, statuses: readonly MetricStatus[] | undefined): string {
  if (!specs || specs.length === 0) return '<none>';
  const shown = specs.slice(0, 2).map((s, i) => formatMetric(s, statuses?.[i]));
  const ret = shown.join(', ');
  return specs.length > 2 ? `${ret} + ${specs.length - 2} more...` : ret;
}

/** The HPA table (autoscaling/v2-shaped objects). */
export const hpaTable: TablePrinter<K<HorizontalPodAutoscaler>> = {
  columns: [
    NAME_COLUMN,
    column('Reference', 'string', 'Reference to the target'),
    column('Targets', 'string', 'The current and target values of the metrics'),
    column('MinPods', 'string', 'Lower limit for the number of pods that can be set by the autoscaler, default 1.'),
    column('MaxPods', 'integer', 'Upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.'),
    column('Replicas', 'integer', 'Current number of replicas of pods managed by this autoscaler.'),
    AGE_COLUMN,
  ],
  cells(obj, now) {
    const spec = obj.spec;
    const ref = `${spec?.scaleTargetRef?.kind ?? ''}/${spec?.scaleTargetRef?.name ?? ''}`;
    return [
      obj.metadata.name ?? '',
      ref,
      formatHPAMetrics(spec?.metrics, obj.status?.currentMetrics),
      spec?.minReplicas === undefined ? '<unset>' : String(spec.minReplicas),
      spec?.maxReplicas ?? 0,
      obj.status?.currentReplicas ?? 0,
      translateTimestampSince(obj.metadata.creationTimestamp, now),
    ];
  },
};
