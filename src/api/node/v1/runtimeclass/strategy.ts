/**
 * node.k8s.io/v1 RuntimeClass (cluster-scoped): validation as upstream
 * ValidateRuntimeClass / …Update (handler a DNS label and immutable, overhead.podFixed as
 * resource limits, scheduling nodeSelector labels and unique tolerations), quantities
 * canonicalised, printer NAME HANDLER AGE. The RuntimeClass admission plugin
 * (src/apiserver/admission/plugins/runtime-class.ts) applies classes to pods.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/node/runtimeclass/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/node/validation/validation.go
 */
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { duplicate, type FieldError, invalid, Path } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Label, validateImmutableField, validateLabels } from '../../../../apimachinery/validation.js';
import { validateResourceRequirements } from '../../../core/v1/pod/validation-common.js';
import { validateTolerations } from '../../../core/v1/pod/validation-scheduling.js';
import { canonicalizeQuantityMap, checkQuantityMap } from '../../../core/v1/shared/decode.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';

/** Upstream ValidateRuntimeClass (without ObjectMeta). */
function validateRuntimeClass(rc: O<RuntimeClass>): FieldError[] {
  const handler = rc.handler ?? '';
  const errs = isDNS1123Label(handler).map((m) => invalid('handler', handler, m));
  if (rc.overhead?.podFixed) {
    errs.push(...validateResourceRequirements({ limits: rc.overhead.podFixed }, new Set(), Path.root('overhead'), {}));
  }
  const s = rc.scheduling;
  if (s) {
    const p = Path.root('scheduling');
    if (s.nodeSelector) errs.push(...validateLabels(s.nodeSelector, p.child('nodeSelector')));
    // upstream passes the tolerations path twice (scheduling.tolerations.tolerations[i])
    errs.push(...validateTolerations(s.tolerations ?? [], p.child('tolerations').child('tolerations')));
    const seen = new Set<string>();
    (s.tolerations ?? []).forEach((t, i) => {
      const key = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
      if (seen.has(key)) errs.push(duplicate(p.child('tolerations').index(i), t));
      else seen.add(key);
    });
  }
  return errs;
}

function decode(rc: O<RuntimeClass>): void {
  checkQuantityMap('RuntimeClass', 'node.k8s.io/v1', rc.overhead?.podFixed);
}

/** node.k8s.io/v1 runtimeclasses. */
export const runtimeClassDefinition: ResourceDefinition<K<RuntimeClass>> = {
  group: 'node.k8s.io',
  version: 'v1',
  kind: 'RuntimeClass',
  listKind: 'RuntimeClassList',
  resource: 'runtimeclasses',
  singular: 'runtimeclass',
  namespaced: false,
  schemaRef: 'node/v1#RuntimeClass',
  allowUnconditionalUpdate: true,

  prepareForCreate(obj) {
    decode(obj);
  },
  prepareForUpdate(obj) {
    decode(obj);
  },
  validate(obj) {
    return validateRuntimeClass(obj);
  },
  validateUpdate(obj, old) {
    return [...validateRuntimeClass(obj), ...validateImmutableField(obj.handler, old.handler, 'handler')];
  },
  canonicalize(obj) {
    canonicalizeQuantityMap(obj.overhead?.podFixed as Record<string, unknown> | undefined);
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Handler', 'string', 'handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [obj.metadata.name ?? '', obj.handler ?? '', translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
