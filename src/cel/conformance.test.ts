/**
 * The CEL specification's conformance tests (from the npm package `@bufbuild/cel-spec`,
 * cel-spec v0.25.1) against k8ts' CEL environment. The test asserts the exact set of
 * tests that fail (testdata/conformance-failures.json, with the reason of each section
 * below), so a regression and an improvement both show: after a change that passes
 * more tests, regenerate the file with `CEL_CONFORMANCE_UPDATE=1`.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runConformance } from './testdata/conformance.js';

const FILE = new URL('./testdata/conformance-failures.json', import.meta.url);

/**
 * Why tests of a section fail. Every section with failures must be named here.
 */
const REASONS: Record<string, string> = {
  proto2: 'protobuf messages (TestAllTypes): Kubernetes CEL has no protobuf message types',
  proto3: 'protobuf messages (TestAllTypes): Kubernetes CEL has no protobuf message types',
  proto2_ext: 'protobuf extensions: Kubernetes CEL has no protobuf message types',
  enums: 'protobuf enums: Kubernetes CEL has no protobuf message types',
  wrappers: 'protobuf wrapper types (google.protobuf.*Value): not in Kubernetes CEL',
  dynamic: 'protobuf messages, wrappers and google.protobuf.Struct/Value/Any conversions',
  block_ext: 'cel.block is an internal optimiser extension, not in the Kubernetes environment',
  math_ext: 'the math extension is not in the Kubernetes 1.32 base environment',
  encoders_ext: 'base64 encoders are not in the Kubernetes 1.32 base environment',
  namespace: 'containers (namespaced identifiers) are not supported by the evaluator library',
  macros2: 'mixed-type list/map literals the homogeneous aggregate literal rule refuses at compile time',
  type_deductions: 'protobuf types in checked expressions; some deduced types differ (the library reports dyn for list literals of mixed types)',
  comparisons: 'protobuf wrapper comparisons; the Kubernetes environment enforces homogeneous aggregate literals, which rejects mixed-type list/map literals at compile time',
  conversions: 'protobuf-typed conversions (google.protobuf.*); int(uint) overloads missing in the library',
  fields: 'protobuf fields; map literals with mixed key types (homogeneous aggregate literals)',
  optionals:
    'optional types over protobuf messages; optional map/list literal entries ({?k: v}, [?x]), has() over optional selection and type(optional) are not implemented by the library',
  parse: 'protobuf message literals, reserved words and some escape/literal forms the library parses differently',
  timestamps: 'time zone offsets in timestamp accessors, timestamp/duration range errors the library does not raise',
  basic: 'protobuf-typed variables and the reserved identifiers tests',
  lists: 'mixed-type list literals (homogeneous aggregate literals) and protobuf values',
  logic: 'logical operators on non-bool operands are rejected at compile time (the spec expects a runtime error)',
  macros: 'macros over protobuf values; some macro argument errors are reported at compile time',
  integer_math: 'uint/int conversions the library rejects at compile time',
  plumbing: 'protobuf values',
  string_ext: 'format clauses on doubles/lists that differ from cel-go; index errors on charAt/substring bounds',
};

describe('CEL conformance (cel-spec test data)', () => {
  it('passes exactly the expected set of tests', () => {
    const t0 = Date.now();
    const outcomes = runConformance();
    const ms = Date.now() - t0;
    const failures = outcomes.filter((o) => !o.pass);
    const bySection = new Map<string, { pass: number; total: number }>();
    for (const o of outcomes) {
      const s = o.id.split('/')[0]!;
      const e = bySection.get(s) ?? { pass: 0, total: 0 };
      e.total++;
      if (o.pass) e.pass++;
      bySection.set(s, e);
    }
    const report = [...bySection].map(([s, e]) => `${s} ${e.pass}/${e.total}`).join(', ');
    console.log(`cel conformance: ${outcomes.length - failures.length}/${outcomes.length} passed in ${ms} ms (${report})`);
    if (process.env.CEL_CONFORMANCE_UPDATE) {
      const byId: Record<string, string> = {};
      for (const f of failures) byId[f.id] = f.why ?? '';
      writeFileSync(FILE, `${JSON.stringify(byId, null, 1)}\n`);
    }
    const expected = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, string>;
    const actual = new Set(failures.map((f) => f.id));
    const newlyFailing = [...actual].filter((id) => !(id in expected));
    const newlyPassing = Object.keys(expected).filter((id) => !actual.has(id));
    assert.deepEqual({ newlyFailing: newlyFailing.map((id) => `${id}: ${failures.find((f) => f.id === id)?.why}`), newlyPassing }, { newlyFailing: [], newlyPassing: [] });
    for (const s of new Set(failures.map((f) => f.id.split('/')[0]!))) assert.ok(REASONS[s], `section ${s} has failures but no stated reason`);
    assert.ok(outcomes.length > 2000, 'the test data was loaded');
  });
});
