#!/usr/bin/env node
// Bundles src/cli/main.ts into dist/k8ts.mjs with esbuild (dependencies stay external),
// and the CSI hostpath driver alone into dist/csi-hostpath.mjs,
// so `k8ts` starts without compiling TypeScript at run time.
// Usage: node scripts/build.mjs [--if-stale]
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist', 'k8ts.mjs');

function newest(dir) {
  let t = 0;
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

if (process.argv.includes('--if-stale') && existsSync(out)) {
  const srcT = Math.max(newest(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs);
  if (statSync(out).mtimeMs >= srcT) process.exit(0);
}

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  loader: { '.json': 'json' },
  logLevel: 'warning',
  banner: { js: "import { createRequire as __k8tsCreateRequire } from 'node:module'; const require = __k8tsCreateRequire(import.meta.url);" },
};
await Promise.all([
  build({ ...common, entryPoints: [join(root, 'src/cli/main.ts')], outfile: out }),
  // the CSI hostpath driver alone: the process a node starts for it (src/cli/csi-node.ts)
  build({ ...common, entryPoints: [join(root, 'src/csi/hostpath/main.ts')], outfile: join(root, 'dist', 'csi-hostpath.mjs') }),
  // the kwok node pool's worker thread (src/kwok/worker.ts)
  build({ ...common, entryPoints: [join(root, 'src/kwok/worker-entry.ts')], outfile: join(root, 'dist', 'kwok-worker.mjs') }),
]);

// Data files modules read next to themselves (new URL('./x', import.meta.url)): in the
// bundle, that is next to dist/k8ts.mjs.
const assets = [
  ['src/cri/remote/api.proto', 'dist/api.proto'],
  ['src/csi/csi.proto', 'dist/csi.proto'],
  ['src/csi/pluginregistration.proto', 'dist/pluginregistration.proto'],
  ['src/storage/etcd/etcd-rpc.proto', 'dist/etcd-rpc.proto'],
  ['src/apiserver/protobuf/proto', 'dist/proto'],
  ['src/apiserver/openapi/generated', 'dist/generated'],
  ['src/apiserver/openapi/v2/OpenAPIv2.proto', 'dist/OpenAPIv2.proto'],
];
for (const [from, to] of assets) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  cpSync(join(root, from), join(root, to), { recursive: true });
}
