/**
 * core/v1 PodTemplate: a stored pod template. Template defaults as for workloads,
 * validation as upstream ValidatePodTemplate (`template` validated as a pod template
 * spec), printer NAME CONTAINERS IMAGES POD LABELS (upstream printPodTemplate).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/podtemplate/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/printers/internalversion/printers.go (podTemplateColumnDefinitions)
 */
import type { PodTemplate as PodTemplateObject } from 'kubernetes-types/core/v1.js';
import { type FieldError, Path } from '../../../../apimachinery/field-errors.js';
import { jsonEqual } from '../../../../apimachinery/validation.js';
import { CONTAINERS_COLUMN, IMAGES_COLUMN } from '../../../apps/v1/shared/strategy.js';
import { layoutContainerCells, type PodTemplate, setPodTemplateDefaults, validatePodTemplateSpec } from '../../../apps/v1/shared/template.js';
import type { ResourceDefinition } from '../../../resource.js';
import { dropDisabledPodFields } from '../pod/strategy.js';
import { column, formatLabels, NAME_COLUMN } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';

const TEMPLATE = Path.root('template');

/** Upstream ValidatePodTemplate (ObjectMeta is validated by the store). */
function validatePodTemplate(obj: O<PodTemplateObject>): FieldError[] {
  return validatePodTemplateSpec(obj.template as PodTemplate | undefined, TEMPLATE);
}

/** core/v1 podtemplates. */
export const podTemplateDefinition: ResourceDefinition<K<PodTemplateObject>> = {
  group: '',
  version: 'v1',
  kind: 'PodTemplate',
  listKind: 'PodTemplateList',
  resource: 'podtemplates',
  singular: 'podtemplate',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  schemaRef: 'core/v1#PodTemplate',

  defaults(obj) {
    setPodTemplateDefaults(obj.template as PodTemplate | undefined);
  },
  prepareForCreate(obj) {
    (obj.metadata as { generation?: number }).generation = 1;
    dropDisabledPodFields(obj.template?.spec as never, undefined);
  },
  prepareForUpdate(obj, old) {
    dropDisabledPodFields(obj.template?.spec as never, old.template?.spec as never);
    const gen = old.metadata.generation ?? 1;
    (obj.metadata as { generation?: number }).generation = jsonEqual(obj.template ?? null, old.template ?? null) ? gen : gen + 1;
  },
  validate(obj) {
    return validatePodTemplate(obj);
  },
  validateUpdate(obj) {
    return validatePodTemplate(obj);
  },
  table: {
    columns: [NAME_COLUMN, { ...CONTAINERS_COLUMN, priority: 0 }, { ...IMAGES_COLUMN, priority: 0 }, column('Pod Labels', 'string', 'The labels for the pod template.')],
    cells(obj) {
      const [names, images] = layoutContainerCells(obj.template?.spec?.containers);
      return [obj.metadata.name ?? '', names, images, formatLabels(obj.template?.metadata?.labels)];
    },
  },
};
