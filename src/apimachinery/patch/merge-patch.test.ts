import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.js';
import { applyMergePatch, mergePatchBody } from './merge-patch.js';
import type { JsonObject } from './json-value.js';

const deploy = (): JsonObject => ({
  metadata: { name: 'x', labels: { app: 'a', tier: 'web' } },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail('expected an error');
}

describe('applyMergePatch (RFC 7386)', () => {
  it('merges objects, deletes with null, replaces lists', () => {
    const got = applyMergePatch(deploy(), {
      metadata: { labels: { tier: null, env: 'prod' } },
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'd' }] } } },
    });
    assert.deepEqual(got, {
      metadata: { name: 'x', labels: { app: 'a', env: 'prod' } },
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'd' }] } } },
    });
  });

  it('applies the captured `kubectl scale` and `kubectl label` bodies', () => {
    assert.equal((mergePatchBody(deploy(), '{"spec":{"replicas":3}}').object as JsonObject & { spec: JsonObject }).spec.replicas, 3);
    const labeled = mergePatchBody(deploy(), '{"metadata":{"labels":{"l":"v"}}}').object as JsonObject;
    assert.deepEqual((labeled.metadata as JsonObject).labels, { app: 'a', tier: 'web', l: 'v' });
  });

  it('drops nulls inside values added where nothing (or a non-object) was', () => {
    const got = applyMergePatch({ a: 'scalar' }, { a: { x: 1, y: null }, b: { c: null, d: { e: null, f: 2 } } });
    assert.deepEqual(got, { a: { x: 1 }, b: { d: { f: 2 } } });
  });

  it('a list replacing an object keeps the nulls inside it (evanphx v4)', () => {
    assert.deepEqual(applyMergePatch({ a: { x: 1 } }, { a: [{ y: null }] }), { a: [{ y: null }] });
  });

  it('a top-level array replaces the document', () => {
    assert.deepEqual(applyMergePatch(deploy(), [{ a: null, b: 1 }]), [{ b: 1 }]);
  });

  it('does not modify its inputs', () => {
    const d = deploy();
    const p = { metadata: { labels: { app: null } } };
    applyMergePatch(d, p);
    assert.deepEqual(d, deploy());
    assert.deepEqual(p, { metadata: { labels: { app: null } } });
  });
});

describe('mergePatchBody: request body errors', () => {
  it('Strict/Warn: 400 "error decoding patch: …" for bodies that are not objects', () => {
    assert.equal(
      message(() => mergePatchBody(deploy(), '[]', { fieldValidation: 'Strict' })),
      'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    assert.equal(
      message(() => mergePatchBody(deploy(), '{"a" 1}')),
      "error decoding patch: invalid character '1' after object key",
    );
    assert.equal(
      message(() => mergePatchBody(deploy(), 'null')),
      'Invalid JSON Patch',
    );
  });

  it('Ignore: 400 "Invalid JSON Patch" for malformed and scalar bodies', () => {
    assert.equal(
      message(() => mergePatchBody(deploy(), '{"a":', { fieldValidation: 'Ignore' })),
      'Invalid JSON Patch',
    );
    assert.equal(
      message(() => mergePatchBody(deploy(), '"x"', { fieldValidation: 'Ignore' })),
      'Invalid JSON Patch',
    );
    assert.deepEqual(mergePatchBody(deploy(), '[1]', { fieldValidation: 'Ignore' }).object, [1]);
  });

  it('reports duplicate fields as strict errors', () => {
    const r = mergePatchBody(deploy(), '{"spec":{"replicas":2,"replicas":3}}');
    assert.deepEqual(r.strictErrors, ['duplicate field "spec.replicas"']);
    assert.equal(((r.object as JsonObject).spec as JsonObject).replicas, 3);
  });
});
