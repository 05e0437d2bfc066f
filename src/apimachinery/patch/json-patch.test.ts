import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.js';
import { applyJsonPatch, decodeJsonPatch, jsonPatchBody } from './json-patch.js';
import type { Json, JsonObject } from './json-value.js';

const pod = (): JsonObject => ({
  metadata: { name: 'x', labels: { app: 'a' }, finalizers: ['f1', 'f2'] },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

function status(fn: () => unknown): { code: number; reason?: string; message?: string; details?: unknown } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    const { code, reason, message, details } = e.status;
    return { code, reason, message, details };
  }
  assert.fail('expected an error');
}

const invalid = {
  code: 422,
  reason: 'Invalid',
  message: 'the server rejected our request due to an error in our request',
  details: {},
};

const apply = (doc: Json, ops: JsonObject[]): Json => applyJsonPatch(doc, ops);

describe('applyJsonPatch: RFC 6902 operations', () => {
  it('add, remove, replace, move, copy, test', () => {
    const got = apply(pod(), [
      { op: 'test', path: '/metadata/name', value: 'x' },
      { op: 'add', path: '/metadata/labels/tier', value: 'web' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:2' },
      { op: 'remove', path: '/metadata/labels/app' },
      { op: 'copy', from: '/metadata/labels/tier', path: '/metadata/annotations' },
      { op: 'move', from: '/metadata/finalizers/0', path: '/metadata/finalizers/-' },
    ]);
    assert.deepEqual(got, {
      metadata: { name: 'x', labels: { tier: 'web' }, annotations: 'web', finalizers: ['f2', 'f1'] },
      spec: { containers: [{ name: 'c', image: 'nginx:2' }] },
    });
  });

  it('does not modify the original document', () => {
    const orig = pod();
    apply(orig, [{ op: 'add', path: '/metadata/labels/x', value: 'y' }]);
    assert.deepEqual(orig, pod());
  });

  it('inserts at an index, appends with -, and counts negative indices from the end', () => {
    const doc = { l: ['a', 'b', 'c'] };
    assert.deepEqual(apply(doc, [{ op: 'add', path: '/l/1', value: 'x' }]), { l: ['a', 'x', 'b', 'c'] });
    assert.deepEqual(apply(doc, [{ op: 'add', path: '/l/3', value: 'x' }]), { l: ['a', 'b', 'c', 'x'] });
    assert.deepEqual(apply(doc, [{ op: 'add', path: '/l/-', value: 'x' }]), { l: ['a', 'b', 'c', 'x'] });
    assert.deepEqual(apply(doc, [{ op: 'remove', path: '/l/-1' }]), { l: ['a', 'b'] });
    assert.deepEqual(apply(doc, [{ op: 'replace', path: '/l/-3', value: 'z' }]), { l: ['z', 'b', 'c'] });
  });

  it('decodes ~1 and ~0 in path tokens', () => {
    const doc = { metadata: { annotations: { 'a/b': '1', 'c~d': '2' } } };
    assert.deepEqual(
      apply(doc, [
        { op: 'replace', path: '/metadata/annotations/a~1b', value: 'x' },
        { op: 'remove', path: '/metadata/annotations/c~0d' },
      ]),
      { metadata: { annotations: { 'a/b': 'x' } } },
    );
  });

  it('keeps evanphx v4 quirks: replace of a missing key adds it, copy from a missing key adds null', () => {
    assert.deepEqual(apply({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }]), { a: 1, b: 2 });
    assert.deepEqual(apply({ a: 1 }, [{ op: 'copy', from: '/zz', path: '/b' }]), { a: 1, b: null });
    assert.deepEqual(apply({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }]), { b: 2 });
  });

  it('test passes on deep equality and on an explicit null for a missing member', () => {
    assert.deepEqual(apply(pod(), [{ op: 'test', path: '/spec', value: { containers: [{ image: 'nginx', name: 'c' }] } }]), pod());
    assert.deepEqual(apply(pod(), [{ op: 'test', path: '/metadata/nope', value: null }]), pod());
  });
});

describe('applyJsonPatch: failures are 422 with the generic text', () => {
  const cases: [string, JsonObject][] = [
    ['failed test', { op: 'test', path: '/metadata/name', value: 'y' }],
    ['missing parent', { op: 'add', path: '/metadata/nope/x', value: 1 }],
    ['remove missing key', { op: 'remove', path: '/metadata/nope' }],
    ['index out of range', { op: 'add', path: '/metadata/finalizers/5', value: 'x' }],
    ['bad index', { op: 'replace', path: '/metadata/finalizers/x', value: 'x' }],
    ['unknown op', { op: 'frobnicate', path: '/a' }],
    ['missing op', { path: '/a' }],
    ['missing path', { op: 'add', value: 1 }],
    ['empty path', { op: 'add', path: '', value: 1 }],
    ['into a scalar', { op: 'add', path: '/metadata/name/x', value: 1 }],
  ];
  for (const [name, op] of cases) {
    it(name, () => {
      assert.deepEqual(
        status(() => apply(pod(), [op])),
        invalid,
      );
    });
  }

  it('keeps the reason as the cause for logs', () => {
    try {
      apply(pod(), [{ op: 'test', path: '/metadata/name', value: 'y' }]);
      assert.fail('expected an error');
    } catch (e) {
      assert.ok(e instanceof StatusError);
      assert.equal((e.cause as Error).message, 'testing value /metadata/name failed: test failed');
    }
  });

  it('limits the bytes copy operations add', () => {
    const big = { a: 'x'.repeat(100) };
    assert.deepEqual(
      status(() => applyJsonPatch(big, [{ op: 'copy', from: '/a', path: '/b' }], { maxCopyBytes: 50 })),
      invalid,
    );
    assert.deepEqual(applyJsonPatch(big, [{ op: 'copy', from: '/a', path: '/b' }], { maxCopyBytes: 200 }), { a: big.a, b: big.a });
  });
});

describe('decodeJsonPatch: request body errors', () => {
  it('400 with "error decoding patch: " in Strict/Warn mode', () => {
    assert.deepEqual(
      status(() => decodeJsonPatch('{"op":"add"}')),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
        details: undefined,
      },
    );
    assert.equal(
      status(() => decodeJsonPatch('["add"]', { fieldValidation: 'Strict' })).message,
      'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp',
    );
    assert.equal(
      status(() => decodeJsonPatch('[{"op":"add","path":5}]')).message,
      'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string',
    );
    assert.equal(status(() => decodeJsonPatch('[{"op":"add",}]')).message, "error decoding patch: invalid character '}' looking for beginning of object key string");
  });

  it('400 with the bare decoder text when fieldValidation=Ignore', () => {
    assert.equal(status(() => decodeJsonPatch('{}', { fieldValidation: 'Ignore' })).message, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    assert.equal(status(() => decodeJsonPatch('[1]', { fieldValidation: 'Ignore' })).message, 'json: cannot unmarshal number into Go value of type jsonpatch.Operation');
    assert.equal(status(() => decodeJsonPatch('', { fieldValidation: 'Ignore' })).message, 'unexpected end of JSON input');
  });

  it('413 above the operation limit', () => {
    const body = JSON.stringify(Array.from({ length: 4 }, () => ({ op: 'test', path: '/a', value: 1 })));
    assert.deepEqual(
      status(() => decodeJsonPatch(body, { maxOperations: 3 })),
      {
        code: 413,
        reason: 'RequestEntityTooLarge',
        message: 'Request entity too large: The allowed maximum operations in a JSON patch is 3, got 4',
        details: undefined,
      },
    );
  });

  it('reports unknown and duplicate operation fields as strict errors', () => {
    const { strictErrors, object } = jsonPatchBody({ a: 1 }, '[{"op":"add","path":"/b","value":2,"extra":true,"op":"add"}]');
    assert.deepEqual(object, { a: 1, b: 2 });
    assert.deepEqual(strictErrors, ['json patch unknown field "[0].extra"', 'json patch duplicate field "[0].op"']);
  });

  it('a null body is an empty patch', () => {
    assert.deepEqual(jsonPatchBody({ a: 1 }, 'null').object, { a: 1 });
  });
});
