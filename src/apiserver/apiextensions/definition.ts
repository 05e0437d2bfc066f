/**
 * ResourceDefinitions built at runtime from a CustomResourceDefinition: one per served
 * version, all sharing one storage prefix (`/registry/<group>/<plural>/`) and served by
 * the generic store like any built-in resource. The strategy prunes unknown fields,
 * applies schema defaults, validates against the version's schema, keeps status (or the
 * rest) on the status subresource, and bumps `metadata.generation` on non-status changes.
 *
 * Conversion strategy None: objects are stored with the storage version's apiVersion and
 * each served version rewrites apiVersion on the way out and in. Strategy Webhook: the
 * definitions carry the CRD's {@link VersionConverter} and the store converts objects
 * asynchronously on every read and write (src/apiserver/apiextensions/conversion).
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/registry/customresource/strategy.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/registry/customresource/status_strategy.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/conversion/nop_converter.go
 */
import type { CustomResourceDefinitionNames } from 'kubernetes-types/apiextensions/v1.js';
import type { CRDVersion, CRSchema, CustomResourceDefinition } from '../../api/apiextensions/v1/customresourcedefinition/types.js';
import { storageVersion } from '../../api/apiextensions/v1/customresourcedefinition/types.js';
import type { KObject, Obj, ResourceDefinition, StatusStrategy, VersionConverter } from '../../api/resource.js';
import { failureStatus, StatusError } from '../../apimachinery/errors.js';
import { customResourcePrinter, parseSimpleJSONPath, valueAt } from './printer.js';
import { defaultCustomResource, pruneCustomResource, validateCustomResource } from './schema.js';
import { RuleValidator } from './validation-rules.js';
import { type FieldError, invalid } from '../../apimachinery/field-errors.js';

/** State shared by the definitions of one CRD that the CRD controller changes while serving. */
export interface CustomResourceServingState {
  /** set once the CRD is being deleted: creates are refused */
  terminating: boolean;
}

function contentEqualExcept(a: KObject, b: KObject, skip: readonly string[]): boolean {
  const ka = Object.keys(a).filter((k) => !skip.includes(k));
  const kb = Object.keys(b).filter((k) => !skip.includes(k));
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) return false;
  return true;
}

/**
 * The strategy of one version: prune → default on every write, schema validation,
 * generation and status handling.
 */
function versionDefinition(
  crd: CustomResourceDefinition,
  v: CRDVersion,
  names: CustomResourceDefinitionNames,
  state: CustomResourceServingState,
  multiVersion: boolean,
  converter: VersionConverter | undefined,
): ResourceDefinition {
  const group = crd.spec.group;
  const schema: CRSchema | undefined = v.schema?.openAPIV3Schema;
  const statusEnabled = !!v.subresources?.status;
  const apiVersion = `${group}/${v.name}`;
  const storageAPIVersion = `${group}/${storageVersion(crd) ?? v.name}`;
  const normalise = (o: Obj): void => {
    if (!schema) return;
    pruneCustomResource(schema, o);
    defaultCustomResource(schema, o);
  };
  const rules = RuleValidator.needed(schema) ? new RuleValidator(schema!) : undefined;
  // schema errors, then list-type uniqueness and x-kubernetes-validations unless a type error blocks them (upstream hasBlockingErr)
  const validate = (o: Obj, old?: Obj): FieldError[] => {
    if (!schema) return [];
    const errs = validateCustomResource(schema, o);
    if (!rules) return errs;
    if (errs.some((e) => e.type === 'FieldValueTypeInvalid' || e.type === 'FieldValueNotSupported'))
      return [...errs, invalid('<nil>', 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation')];
    return [...errs, ...rules.validate(o, old).errors];
  };
  const ratchetWarnings = (o: Obj, old: Obj): string[] => (rules && schema && validateCustomResource(schema, o).length === 0 ? rules.validate(o, old).warnings : []);
  const status: StatusStrategy | undefined = statusEnabled
    ? {
        prepareForUpdate(obj, old) {
          normalise(obj);
          // only status may change: everything else is the stored object's
          for (const k of Object.keys(obj)) if (k !== 'status' && k !== 'metadata') delete obj[k];
          for (const k of Object.keys(old)) if (k !== 'status' && k !== 'metadata') obj[k] = structuredClone(old[k]);
          const m = obj.metadata;
          const om = old.metadata;
          m.labels = om.labels;
          m.annotations = om.annotations;
          m.finalizers = om.finalizers;
          m.ownerReferences = om.ownerReferences;
          m.generation = om.generation;
          for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) if (m[k] === undefined) delete m[k];
        },
        validateUpdate: (obj, old) => validate(obj, old),
      }
    : undefined;
  const def: ResourceDefinition = {
    group,
    version: v.name,
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    resource: names.plural,
    singular: names.singular ?? names.kind.toLowerCase(),
    namespaced: crd.spec.scope === 'Namespaced',
    shortNames: names.shortNames?.length ? [...names.shortNames] : undefined,
    categories: names.categories?.length ? [...names.categories] : undefined,
    openAPIV3Schema: schema,
    defaults: normalise,
    prepareForCreate(obj) {
      if (statusEnabled) delete obj.status;
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      if (statusEnabled) {
        if (old.status !== undefined) obj.status = structuredClone(old.status);
        else delete obj.status;
      }
      const skip = statusEnabled ? ['metadata', 'status'] : ['metadata'];
      obj.metadata.generation = contentEqualExcept(obj, old, skip) ? old.metadata.generation : (old.metadata.generation ?? 0) + 1;
    },
    validate: (obj) => validate(obj),
    validateUpdate: (obj, old) => validate(obj, old),
    warningsOnUpdate: (obj, old) => ratchetWarnings(obj, old),
    table: customResourcePrinter(v.additionalPrinterColumns),
    fieldSelectorAttrs: selectableFieldAttrs(v),
    status,
    hooks: {
      async beforeCreate() {
        if (state.terminating) {
          throw new StatusError(failureStatus(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group, kind: names.plural }));
        }
      },
    },
  };
  // upstream's key for custom resources: /registry/<group>/<plural>/, whatever the group
  def.storagePrefix = `/registry/${group}/${names.plural}/`;
  if (converter) def.versionConverter = converter;
  else if (multiVersion) {
    def.storageConversion = {
      fromStored(o) {
        const c = structuredClone(o);
        c.apiVersion = apiVersion;
        return c;
      },
      toStored(o) {
        const c = structuredClone(o) as Obj;
        c.apiVersion = storageAPIVersion;
        return c;
      },
    };
  }
  return def;
}

/**
 * Field selector attributes of a version's `selectableFields` (`spec.color` for
 * `.spec.color`): the value as text, '' when absent.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#crd-selectable-fields
 */
function selectableFieldAttrs(v: CRDVersion): ((o: Obj) => Record<string, string>) | undefined {
  const fields = (v as { selectableFields?: { jsonPath: string }[] }).selectableFields ?? [];
  const parsed: [string, NonNullable<ReturnType<typeof parseSimpleJSONPath>>][] = [];
  for (const f of fields) {
    const steps = parseSimpleJSONPath(f.jsonPath);
    if (steps) parsed.push([f.jsonPath.replace(/^\./, ''), steps]);
  }
  if (parsed.length === 0) return undefined;
  return (o) => {
    const out: Record<string, string> = {};
    for (const [name, steps] of parsed) {
      const val = valueAt(o, steps);
      out[name] = val === undefined || val === null ? '' : typeof val === 'object' ? JSON.stringify(val) : String(val);
    }
    return out;
  };
}

/**
 * The definitions of every served version of `crd`, named by `names` (the accepted names).
 * @param state shared with the CRD controller (terminating flag)
 * @param converter the CRD's conversion webhook (strategy Webhook), shared by its versions
 */
export function customResourceDefinitions(
  crd: CustomResourceDefinition,
  names: CustomResourceDefinitionNames,
  state: CustomResourceServingState,
  converter?: VersionConverter,
): ResourceDefinition[] {
  const versions = crd.spec.versions ?? [];
  const multi = versions.length > 1;
  return versions.filter((v) => v.served).map((v) => versionDefinition(crd, v, names, state, multi, converter));
}

/** What of a CRD changes how it is served (a change re-installs its resources). */
export function servingFingerprint(crd: CustomResourceDefinition, names: CustomResourceDefinitionNames): string {
  return JSON.stringify([crd.spec.scope, crd.spec.versions, names, crd.spec.conversion ?? null]);
}
