/**
 * The folder rule of docs/DESIGN.md, checked over the import graph: no import cycle
 * between the top-level folders of src/, the shared folders stay leaves, and the API
 * server imports no controller, kubelet, CRI or scheduler code. Test code (see {@link TEST_CODE}) may reach across
 * folders and is left out. A failure names every import that makes up the offending edge.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const SRC = dirname(new URL(import.meta.url).pathname);

/** from-folder → to-folder → the imports (`file -> specifier`) that make the edge. */
type FolderGraph = Map<string, Map<string, string[]>>;

/** The relative module specifiers a source file imports or re-exports (static and dynamic). */
function importsOf(text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

/**
 * Test code, which may reach across folders: `*.test.ts`, and the helpers tests share —
 * `testing/` and `testdata/` folders, `test-*.ts`, `*-tests.ts` (conformance suites) and
 * `fake-*.ts` files.
 */
const TEST_CODE = /\.test\.ts$|(^|\/)(testing|testdata|[^/]*-tests)\/|(^|\/)(test-[^/]*|[^/]*-tests|fake-[^/]*)\.ts$/;

/** Every .ts file below `dir` that is not test code ({@link TEST_CODE}), relative to `root`. */
function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(root, p);
    return e.name.endsWith('.ts') && !TEST_CODE.test(relative(root, p).split(sep).join('/')) ? [p] : [];
  });
}

/** The import graph between the top-level folders of `root` (imports within a folder left out). */
function folderGraph(root: string): FolderGraph {
  const g: FolderGraph = new Map();
  for (const file of sourceFiles(root)) {
    const rel = relative(root, file);
    if (!rel.includes(sep)) continue; // files directly in src/ belong to no folder
    const from = rel.split(sep)[0]!;
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const target = relative(root, resolve(dirname(file), spec));
      if (target.startsWith('..') || !target.includes(sep)) continue;
      const to = target.split(sep)[0]!;
      if (to === from) continue;
      const edges = g.get(from) ?? new Map<string, string[]>();
      g.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `src/${rel} -> ${spec}`]);
    }
  }
  return g;
}

/** The strongly connected components of more than one folder (Tarjan), each sorted, sorted by first name. */
function stronglyConnected(g: FolderGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...g.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** "a -> b" with the imports behind it, one per line. */
function describeEdge(g: FolderGraph, from: string, to: string): string {
  return [`${from} -> ${to}:`, ...(g.get(from)?.get(to) ?? []).map((x) => `  ${x}`)].join('\n');
}

describe('architecture: imports between the top-level folders of src/', () => {
  const graph = folderGraph(SRC);

  it('reads static, re-export and dynamic imports, and only relative ones', () => {
    const specs = importsOf(
      [
        "import { a } from './a.js';",
        "import type { B } from '../b/b.js';",
        "export { c } from './c.js';",
        "export * from './d.js';",
        "import './side-effect.js';",
        "const e = await import('./e.js');",
        "import { x } from 'node:fs';",
        "// import { commented } from './not-a-real-import.js' is still read as text",
      ].join('\n'),
    );
    assert.deepEqual(specs, ['./a.js', '../b/b.js', './c.js', './d.js', './side-effect.js', './e.js', './not-a-real-import.js']);
  });

  it('finds a cycle in a graph that has one', () => {
    const g: FolderGraph = new Map([
      ['a', new Map([['b', ['x']]])],
      ['b', new Map([['c', ['y']]])],
      ['c', new Map([['a', ['z']]])],
      ['d', new Map([['a', ['w']]])],
    ]);
    assert.deepEqual(stronglyConnected(g), [['a', 'b', 'c']]);
  });

  it('tells test code from the code it tests', () => {
    for (const p of [
      'kubelet/kubelet.test.ts',
      'client/testing/fake-client.ts',
      'controllers/util/test-cluster.ts',
      'cri/runtime-tests.ts',
      'storage/backend-tests/kv.ts',
      'util/fake-clock.ts',
      'apiserver/openapi/testdata/defs.ts',
    ])
      assert.ok(TEST_CODE.test(p), p);
    for (const p of ['kubelet/kubelet.ts', 'controllers/util/informers.ts', 'apimachinery/field-errors.ts', 'cri/api.ts', 'streaming/spdy/session.ts'])
      assert.ok(!TEST_CODE.test(p), p);
  });

  it('sees the folders it checks', () => {
    for (const f of ['apiserver', 'client', 'controllers', 'kubelet', 'cri']) assert.ok(graph.has(f), `no imports read from src/${f}`);
    assert.ok(graph.get('kubelet')?.has('cri'), 'the kubelet imports the CRI: the graph must show it');
  });

  it('has no import cycle between top-level folders (test code aside)', () => {
    const cycles = stronglyConnected(graph);
    const report = cycles.map((scc) => {
      const inside = new Set(scc);
      const edges = scc.flatMap((a) => [...(graph.get(a)?.keys() ?? [])].filter((b) => inside.has(b)).map((b) => describeEdge(graph, a, b)));
      return `cycle between ${scc.join(', ')}:\n${edges.join('\n')}`;
    });
    assert.deepEqual(report, []);
  });

  it('keeps the shared folders leaves: apimachinery, streaming, pki and util import no other folder, api only apimachinery', () => {
    const allowed: Record<string, string[]> = { apimachinery: [], streaming: [], pki: [], util: [], api: ['apimachinery'] };
    const bad = Object.entries(allowed).flatMap(([from, ok]) => [...(graph.get(from)?.keys() ?? [])].filter((to) => !ok.includes(to)).map((to) => describeEdge(graph, from, to)));
    assert.deepEqual(bad, []);
  });

  it('keeps the API server free of controller, kubelet, runtime and scheduler code', () => {
    const bad = ['controllers', 'kubelet', 'cri', 'scheduler'].filter((to) => graph.get('apiserver')?.has(to)).map((to) => describeEdge(graph, 'apiserver', to));
    assert.deepEqual(bad, []);
  });
});
