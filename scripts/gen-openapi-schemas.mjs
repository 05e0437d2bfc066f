#!/usr/bin/env node
// Regenerates src/apiserver/openapi/generated/schemas.json (OpenAPI v3 components.schemas
// for the Kubernetes types) from node_modules/kubernetes-types with the TypeScript
// compiler API. Run after upgrading kubernetes-types or editing
// src/apiserver/openapi/generator/; a unit test fails while the committed file is stale.
//
//   node --import tsx scripts/gen-openapi-schemas.mjs          write the file
//   node --import tsx scripts/gen-openapi-schemas.mjs --check  exit 1 if it is stale
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { GENERATED_FILE, renderSchemasFile } from '../src/apiserver/openapi/generator/generate.ts';

const text = renderSchemasFile();
if (process.argv.includes('--check')) {
  let old = '';
  try {
    old = readFileSync(GENERATED_FILE, 'utf8');
  } catch {}
  if (old !== text) {
    console.error(`${GENERATED_FILE} is stale: run node --import tsx scripts/gen-openapi-schemas.mjs`);
    process.exit(1);
  }
} else {
  mkdirSync(dirname(GENERATED_FILE), { recursive: true });
  writeFileSync(GENERATED_FILE, text);
  console.log(`wrote ${GENERATED_FILE} (${text.length} bytes)`);
}
