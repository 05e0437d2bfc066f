/**
 * autoscaling/v2 HorizontalPodAutoscaler, the storage version: defaults, validation,
 * status kept on spec updates and spec kept on status updates, generation 1 on create and
 * +1 on spec changes, printer NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE, short
 * name `hpa`, category `all`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go
 */
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import { jsonEqual } from '../../../../apimachinery/validation.js';
import { clone, type K, mutableMeta } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { defaultHorizontalPodAutoscaler } from './defaults.js';
import { hpaTable } from './printing.js';
import { validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerStatus } from './validation.js';

/** autoscaling/v2 horizontalpodautoscalers (short name `hpa`). */
export const horizontalPodAutoscalerDefinition: ResourceDefinition<K<HorizontalPodAutoscaler>> = {
  group: 'autoscaling',
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  listKind: 'HorizontalPodAutoscalerList',
  resource: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['hpa'],
  categories: ['all'],
  schemaRef: 'autoscaling/v2#HorizontalPodAutoscaler',

  defaults: defaultHorizontalPodAutoscaler,
  prepareForCreate(obj) {
    // upstream resets status to its zero value; desiredReplicas has no omitempty
    (obj as { status?: unknown }).status = { desiredReplicas: 0 };
    mutableMeta(obj).generation = 1;
  },
  prepareForUpdate(obj, old) {
    (obj as { status?: unknown }).status = clone(old.status);
    const gen = mutableMeta(old).generation ?? 1;
    mutableMeta(obj).generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? gen : gen + 1;
  },
  validate: validateHorizontalPodAutoscaler,
  validateUpdate: validateHorizontalPodAutoscaler,
  table: hpaTable,
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = clone(old.spec);
    },
    validateUpdate: validateHorizontalPodAutoscalerStatus,
  },
};
