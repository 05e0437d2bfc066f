/**
 * apps/v1 ControllerRevision: immutable snapshots of DaemonSet / StatefulSet templates.
 * Validation as upstream (data required, revision non-negative, data immutable),
 * printer NAME CONTROLLER REVISION AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/apps/controllerrevision/strategy.go
 */
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { type FieldError, Path, required } from '../../../../apimachinery/field-errors.js';
import { validateImmutableField, validateNonnegativeField } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';

function validateRevision(r: O<ControllerRevision>): FieldError[] {
  const errs: FieldError[] = [];
  if (r.data === undefined || r.data === null) errs.push(required(Path.root('data'), 'data is mandatory'));
  errs.push(...validateNonnegativeField(r.revision ?? 0, Path.root('revision')));
  return errs;
}

/** `daemonset.apps/name` for the controlling owner, `<none>` without one (upstream formatResourceName). */
function controllerName(r: O<ControllerRevision>): string {
  const ref = r.metadata.ownerReferences?.find((o) => o.controller);
  if (!ref) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  const gk = group ? `${ref.kind}.${group}` : ref.kind;
  return `${gk.toLowerCase()}/${ref.name}`;
}

/** apps/v1 controllerrevisions. */
export const controllerRevisionDefinition: ResourceDefinition<K<ControllerRevision>> = {
  group: 'apps',
  version: 'v1',
  kind: 'ControllerRevision',
  listKind: 'ControllerRevisionList',
  resource: 'controllerrevisions',
  singular: 'controllerrevision',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  schemaRef: 'apps/v1#ControllerRevision',

  validate(obj) {
    return validateRevision(obj);
  },
  validateUpdate(obj, old) {
    return [...validateRevision(obj), ...validateImmutableField(obj.data, old.data, Path.root('data'))];
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Controller', 'string', 'Controller of the object'),
      column('Revision', 'integer', 'Revision indicates the revision of the state represented by Data.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [obj.metadata.name ?? '', controllerName(obj), obj.revision ?? 0, translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
