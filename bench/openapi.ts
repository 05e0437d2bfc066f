/**
 * The first GET of an OpenAPI document, as the API server answers it (handleOpenAPIAsync
 * over all built-in definitions, caches cold): how long the answer takes and the longest
 * time the event loop was held meanwhile (the gap a 1 ms interval timer sees), i.e. how
 * long every other request waits. Each case runs in a fresh process (the documents are
 * cached per process; the built-in schemas are loaded first, as the API server loads them
 * at its first write); `--ext` adds an extension API server's documents (the aggregation
 * layer's merge). Prints min / median / max per case.
 *
 * Usage: node --import tsx bench/openapi.ts [--runs 5] [--cases v3,v3-ext,v2,v2-ext,v2-pb-ext]
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { allDefinitions } from '../src/api/all.js';
import { handleOpenAPIAsync } from '../src/apiserver/openapi/handler.js';
import type { ExtensionOpenAPI } from '../src/apiserver/openapi/extensions.js';
import { OPENAPI_V2_PROTOBUF } from '../src/apiserver/openapi/v2/handler.js';
import { builtinSchemas } from '../src/apiserver/openapi/schemas.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    cases: { type: 'string', default: 'v3,v3-ext,v2,v2-ext,v2-pb-ext' },
    child: { type: 'string' },
  },
});

interface Case {
  path: string;
  headers: Record<string, string>;
  ext: boolean;
}

const CASES: Record<string, Case> = {
  v3: { path: '/openapi/v3', headers: {}, ext: false },
  'v3-ext': { path: '/openapi/v3', headers: {}, ext: true },
  v2: { path: '/openapi/v2', headers: { accept: 'application/json' }, ext: false },
  'v2-ext': { path: '/openapi/v2', headers: { accept: 'application/json' }, ext: true },
  'v2-pb-ext': { path: '/openapi/v2', headers: { accept: OPENAPI_V2_PROTOBUF, 'accept-encoding': 'gzip' }, ext: true },
};

/** An extension API server's documents (a metrics-server-like group with one resource). */
function extension(): ExtensionOpenAPI {
  const schema = { type: 'object', properties: { metadata: { type: 'object' }, usage: { type: 'object', additionalProperties: { type: 'string' } } } };
  const v3 = Buffer.from(
    JSON.stringify({
      openapi: '3.0.0',
      info: { title: 'metrics', version: 'v0' },
      paths: { '/apis/metrics.k8s.io/v1beta1/nodes': { get: { responses: { '200': { description: 'OK' } } } } },
      components: { schemas: { 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics': schema } },
    }),
  );
  const v2 = {
    swagger: '2.0',
    paths: { '/apis/metrics.k8s.io/v1beta1/nodes': { get: { responses: { '200': { description: 'OK' } } } } },
    definitions: { 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics': schema },
  };
  return { revision: 1, v3: () => new Map([['apis/metrics.k8s.io/v1beta1', v3]]), v2: () => [v2] };
}

/** One cold first request in this process: total ms and the longest event-loop stall ms. */
async function child(name: string): Promise<void> {
  const c = CASES[name]!;
  const defs = allDefinitions({ serviceCIDR: '10.96.0.0/12' });
  builtinSchemas();
  const ext = c.ext ? extension() : undefined;
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 20));
  stall = 0;
  last = performance.now();
  const t0 = performance.now();
  const r = await handleOpenAPIAsync(c.path, new URLSearchParams(), defs, new Date(), c.headers, ext);
  const total = performance.now() - t0;
  stall = Math.max(stall, performance.now() - last);
  clearInterval(timer);
  if (r.status !== 200) throw new Error(`${c.path}: ${r.status}`);
  console.log(JSON.stringify({ total, stall, bytes: r.body.length }));
}

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0]!.toFixed(0)} / ${s[Math.floor(s.length / 2)]!.toFixed(0)} / ${s[s.length - 1]!.toFixed(0)}`;
}

if (args.child) await child(args.child);
else {
  console.log('case        first answer ms (min / median / max)   longest event-loop stall ms (min / median / max)   bytes');
  for (const name of String(args.cases).split(',')) {
    const totals: number[] = [];
    const stalls: number[] = [];
    let bytes = 0;
    for (let i = 0; i < Number(args.runs); i++) {
      const p = spawnSync(process.execPath, [...process.execArgv, new URL(import.meta.url).pathname, '--child', name], { encoding: 'utf8' });
      if (p.status !== 0) throw new Error(`${name}: ${p.stderr}`);
      const r = JSON.parse(p.stdout.trim().split('\n').pop()!) as { total: number; stall: number; bytes: number };
      totals.push(r.total);
      stalls.push(r.stall);
      bytes = r.bytes;
    }
    console.log(`${name.padEnd(12)}${stats(totals).padEnd(41)}${stats(stalls).padEnd(51)}${bytes}`);
  }
}
