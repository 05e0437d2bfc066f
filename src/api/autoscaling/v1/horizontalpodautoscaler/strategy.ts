/**
 * autoscaling/v1 HorizontalPodAutoscaler: a view of the stored autoscaling/v2 objects
 * (same storage prefix) through ./conversion.ts. Strategies receive v1-shaped objects and
 * apply the v2 rules to their v2 form (upstream validates the internal version for both).
 * Defaults: minReplicas 1 (upstream v1 SetDefaults_HorizontalPodAutoscaler).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/autoscaling/v1/defaults.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/autoscaling/rest/storage_autoscaling.go
 */
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v1.js';
import { jsonEqual } from '../../../../apimachinery/validation.js';
import { clone, type K, mutableMeta, type O } from '../../../core/v1/shared/types.js';
import type { Obj, ResourceDefinition } from '../../../resource.js';
import { hpaTable } from '../../v2/horizontalpodautoscaler/printing.js';
import { horizontalPodAutoscalerDefinition as v2 } from '../../v2/horizontalpodautoscaler/strategy.js';
import { validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerStatus } from '../../v2/horizontalpodautoscaler/validation.js';
import { hpaV1ToV2, hpaV2ToV1 } from './conversion.js';

type V1 = K<HorizontalPodAutoscaler>;
const toV2 = (o: O<HorizontalPodAutoscaler>) => hpaV1ToV2(o as Obj<V1>) as Parameters<typeof validateHorizontalPodAutoscaler>[0];

/** autoscaling/v1 horizontalpodautoscalers (short name `hpa`), stored as autoscaling/v2. */
export const horizontalPodAutoscalerV1Definition: ResourceDefinition<V1> = {
  group: 'autoscaling',
  version: 'v1',
  kind: 'HorizontalPodAutoscaler',
  listKind: 'HorizontalPodAutoscalerList',
  resource: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['hpa'],
  categories: ['all'],
  schemaRef: 'autoscaling/v1#HorizontalPodAutoscaler',
  storagePrefix: `/registry/${v2.resource}/`, // kube-apiserver's key: both versions share the objects
  storageConversion: {
    fromStored: (o) => hpaV2ToV1(o as never) as Obj<V1>,
    toStored: (o) => hpaV1ToV2(o) as unknown as Obj,
  },

  defaults(obj) {
    const spec = ((obj as { spec?: object }).spec ??= {}) as { minReplicas?: number };
    spec.minReplicas ??= 1;
  },
  prepareForCreate(obj) {
    (obj as { status?: unknown }).status = { currentReplicas: 0, desiredReplicas: 0 };
    mutableMeta(obj).generation = 1;
  },
  prepareForUpdate(obj, old) {
    (obj as { status?: unknown }).status = clone(old.status);
    const gen = mutableMeta(old).generation ?? 1;
    mutableMeta(obj).generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? gen : gen + 1;
  },
  validate: (obj) => validateHorizontalPodAutoscaler(toV2(obj)),
  validateUpdate: (obj) => validateHorizontalPodAutoscaler(toV2(obj)),
  table: {
    columns: hpaTable.columns,
    cells: (obj, now) => hpaTable.cells(toV2(obj), now),
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = clone(old.spec);
    },
    validateUpdate: (obj) => validateHorizontalPodAutoscalerStatus(toV2(obj)),
  },
};
