import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionReview, reviewVersion, verifyAdmissionResponse } from './review.js';

const input = {
  uid: 'u-1',
  kind: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
  resource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
  subresource: '',
  requestKind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
  requestResource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
  requestSubResource: '',
  name: 'web',
  namespace: 'default',
  operation: 'CREATE',
  user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
  object: { metadata: { name: 'web' } },
  oldObject: undefined,
  dryRun: false,
  options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
};

test('the first known version of admissionReviewVersions is used', () => {
  assert.equal(reviewVersion(['v2', 'v1beta1', 'v1']), 'v1beta1');
  assert.equal(reviewVersion(['v1']), 'v1');
  assert.equal(reviewVersion(['v2']), undefined);
});

test("AdmissionReview request members in upstream's order, null for absent objects", () => {
  const r = admissionReview('v1', input);
  assert.equal(r.apiVersion, 'admission.k8s.io/v1');
  const req = r.request as Record<string, unknown>;
  assert.deepEqual(Object.keys(req), [
    'uid',
    'kind',
    'resource',
    'requestKind',
    'requestResource',
    'name',
    'namespace',
    'operation',
    'userInfo',
    'object',
    'oldObject',
    'dryRun',
    'options',
  ]);
  assert.equal(req.oldObject, null);
  assert.deepEqual(req.userInfo, { username: 'alice', groups: ['dev', 'system:authenticated'] });
  assert.deepEqual(req.requestKind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
  const status = admissionReview('v1beta1', { ...input, subresource: 'status', requestSubResource: 'status' }).request as Record<string, unknown>;
  assert.equal(status.subResource, 'status');
  assert.equal(status.requestSubResource, 'status');
});

test('v1 responses: uid, kind and patch/patchType are checked with upstream texts', () => {
  const ok = (response: Record<string, unknown>, mutating = true) =>
    verifyAdmissionResponse('v1', 'u-1', mutating, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });
  assert.throws(() => verifyAdmissionResponse('v1', 'u-1', true, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), /^Error: webhook response was absent$/);
  assert.throws(() => ok({ uid: 'other', allowed: true }), /^Error: expected response.uid="u-1", got "other"$/);
  assert.throws(
    () => verifyAdmissionResponse('v1', 'u-1', true, { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: 'u-1' } }),
    /^Error: expected webhook response of admission.k8s.io\/v1, Kind=AdmissionReview, got admission.k8s.io\/v1beta1, Kind=AdmissionReview$/,
  );
  assert.throws(() => ok({ uid: 'u-1', allowed: true, patch: 'W10=' }), /^Error: webhook returned response.patch but not response.patchType$/);
  assert.throws(() => ok({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' }), /^Error: webhook returned response.patchType but not response.patch$/);
  assert.throws(() => ok({ uid: 'u-1', allowed: true, patch: 'W10=' }, false), /^Error: validating webhook may not return response.patch$/);
  const v = ok({ uid: 'u-1', allowed: true, patch: Buffer.from('[{"op":"add"}]').toString('base64'), patchType: 'JSONPatch', warnings: ['w'], auditAnnotations: { a: 'b' } });
  assert.deepEqual(v, { allowed: true, patch: '[{"op":"add"}]', patchType: 'JSONPatch', result: undefined, warnings: ['w'], auditAnnotations: { a: 'b' } });
});

test('v1beta1 responses are not checked for uid or kind; a patch is a JSON patch', () => {
  const v = verifyAdmissionResponse('v1beta1', 'u-1', true, { response: { allowed: false, patch: Buffer.from('[]').toString('base64'), status: { message: 'no' } } });
  assert.equal(v.allowed, false);
  assert.equal(v.patchType, 'JSONPatch');
  assert.deepEqual(v.result, { message: 'no' });
});
