/**
 * What MutatingWebhookConfiguration and ValidatingWebhookConfiguration share: v1 defaults
 * (failurePolicy Fail, matchPolicy Equivalent, empty selectors, timeoutSeconds 10, rule
 * scope `*`, service port 443; mutating webhooks reinvocationPolicy Never), validation
 * as upstream validate{Mutating,Validating}WebhookConfiguration, generation 1 on create and
 * +1 when `webhooks` change, printer NAME WEBHOOKS AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/admissionregistration/v1/defaults.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/admissionregistration/validation/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/admissionregistration/mutatingwebhookconfiguration/strategy.go
 */
import type { MutatingWebhook, ValidatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import { duplicate, type FieldError, invalid, notSupported, Path, required } from '../../../apimachinery/field-errors.js';
import { isFullyQualifiedName, jsonEqual, validateLabelSelector } from '../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../core/v1/shared/printing.js';
import { mutableMeta, type O } from '../../core/v1/shared/types.js';
import type { KObject, ResourceDefinition } from '../../resource.js';
import { FAILURE_POLICIES, MATCH_POLICIES, validateAdmissionReviewVersions, validateClientConfig, validateMatchConditions, validateRuleWithOperations } from './rules.js';

type Webhook = MutatingWebhook | ValidatingWebhook;
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];

/** Upstream SetDefaults_{Validating,Mutating}Webhook, _Rule and _ServiceReference. */
function defaultWebhook(h: Webhook, mutating: boolean): void {
  h.failurePolicy ??= 'Fail';
  h.matchPolicy ??= 'Equivalent';
  h.namespaceSelector ??= {};
  h.objectSelector ??= {};
  h.timeoutSeconds ??= 10;
  if (mutating) (h as MutatingWebhook).reinvocationPolicy ??= 'Never';
  for (const r of h.rules ?? []) (r as { scope?: string }).scope ??= '*';
  const svc = h.clientConfig?.service;
  if (svc) svc.port ??= 443;
}

interface HookOptions {
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
}

function validateWebhook(h: Webhook, mutating: boolean, opts: HookOptions, p: Path): FieldError[] {
  const errs = isFullyQualifiedName(p.child('name'), h.name ?? '');
  (h.rules ?? []).forEach((r, i) => errs.push(...validateRuleWithOperations(r, p.child('rules').index(i))));
  if (h.failurePolicy !== undefined && h.failurePolicy !== null && !FAILURE_POLICIES.includes(h.failurePolicy)) {
    errs.push(notSupported(p.child('failurePolicy'), h.failurePolicy, FAILURE_POLICIES));
  }
  if (h.matchPolicy !== undefined && h.matchPolicy !== null && !MATCH_POLICIES.includes(h.matchPolicy)) {
    errs.push(notSupported(p.child('matchPolicy'), h.matchPolicy, MATCH_POLICIES));
  }
  const allowed = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : SIDE_EFFECTS;
  if (h.sideEffects === undefined || h.sideEffects === null) errs.push(required(p.child('sideEffects'), `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(h.sideEffects)) errs.push(notSupported(p.child('sideEffects'), h.sideEffects, allowed));
  const t = h.timeoutSeconds;
  if (t !== undefined && t !== null && (t > 30 || t < 1)) errs.push(invalid(p.child('timeoutSeconds'), t, 'the timeout value must be between 1 and 30 seconds'));
  if (h.namespaceSelector) errs.push(...validateLabelSelector(h.namespaceSelector, p.child('namespaceSelector')));
  if (h.objectSelector) errs.push(...validateLabelSelector(h.objectSelector, p.child('objectSelector')));
  const rp = mutating ? (h as MutatingWebhook).reinvocationPolicy : undefined;
  if (rp !== undefined && rp !== null && !REINVOCATION_POLICIES.includes(rp)) errs.push(notSupported(p.child('reinvocationPolicy'), rp, REINVOCATION_POLICIES));
  errs.push(...validateClientConfig(h.clientConfig, p.child('clientConfig')));
  errs.push(...validateMatchConditions(h.matchConditions, p.child('matchConditions')));
  return errs;
}

/** Upstream validate{Mutating,Validating}WebhookConfiguration (without ObjectMeta). */
function validateWebhooks(hooks: readonly Webhook[] | undefined, mutating: boolean, opts: HookOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (hooks ?? []).forEach((h, i) => {
    const p = Path.root('webhooks').index(i);
    errs.push(...validateWebhook(h, mutating, opts, p));
    errs.push(...validateAdmissionReviewVersions(h.admissionReviewVersions, opts.requireRecognizedAdmissionReviewVersion, p.child('admissionReviewVersions')));
    if (opts.requireUniqueWebhookNames && h.name) {
      if (names.has(h.name)) errs.push(duplicate(p.child('name'), h.name));
      else names.add(h.name);
    }
  });
  return errs;
}

/** On update, rules the old object already broke are not enforced (upstream's ratcheting options). */
function updateOptions(old: readonly Webhook[] | undefined): HookOptions {
  const hooks = old ?? [];
  const names = hooks.map((h) => h.name);
  return {
    requireNoSideEffects: hooks.every((h) => h.sideEffects !== undefined && NO_SIDE_EFFECTS.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: hooks.every(
      (h) => (h.admissionReviewVersions ?? []).length === 0 || (h.admissionReviewVersions ?? []).some((v) => v === 'v1' || v === 'v1beta1'),
    ),
    requireUniqueWebhookNames: new Set(names).size === names.length,
  };
}

const CREATE_OPTIONS: HookOptions = { requireNoSideEffects: true, requireRecognizedAdmissionReviewVersion: true, requireUniqueWebhookNames: true };

type Config = KObject & { webhooks?: Webhook[] };

/** A webhook configuration definition (`mutating` picks the kind and its extra field). */
export function webhookConfigurationDefinition<T extends Config>(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration'): ResourceDefinition<T> {
  const mutating = kind === 'MutatingWebhookConfiguration';
  const resource = `${kind.toLowerCase()}s`;
  return {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    resource,
    singular: kind.toLowerCase(),
    namespaced: false,
    categories: ['api-extensions'],
    schemaRef: `admissionregistration/v1#${kind}`,
    allowUnconditionalUpdate: true,

    defaults(obj) {
      for (const h of obj.webhooks ?? []) defaultWebhook(h, mutating);
    },
    prepareForCreate(obj) {
      mutableMeta(obj).generation = 1;
    },
    prepareForUpdate(obj, old) {
      const gen = old.metadata.generation ?? 1;
      mutableMeta(obj).generation = jsonEqual(obj.webhooks ?? null, old.webhooks ?? null) ? gen : gen + 1;
    },
    validate(obj) {
      return validateWebhooks(obj.webhooks, mutating, CREATE_OPTIONS);
    },
    validateUpdate(obj, old) {
      return validateWebhooks(obj.webhooks, mutating, updateOptions(old.webhooks));
    },
    table: {
      columns: [NAME_COLUMN, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'), AGE_COLUMN],
      cells(obj: O<T>, now) {
        return [obj.metadata.name ?? '', (obj.webhooks ?? []).length, translateTimestampSince(obj.metadata.creationTimestamp, now)];
      },
    },
  };
}
