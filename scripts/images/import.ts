/**
 * Imports one tag of an OCI image layout into a containerd's `k8s.io` namespace under
 * any name, via `ctr images import --base-name` (see src/cri/containerd/images.ts).
 * This is how a node gets the pause image offline under exactly its `sandbox_image`
 * name, e.g. the layout tag 3.10 of scripts/images/build.sh's `pause` as
 * `registry.k8s.io/pause:3.10`.
 *
 * CLI: `node --import tsx scripts/images/import.ts LAYOUT[:TAG] SOCKET NAME:TAG`
 *   e.g. `… import.ts .tmp/images/pause data/containerd/containerd.sock registry.k8s.io/pause:3.10`
 */
import { importLayout } from '../../src/cri/containerd/images.js';

const [src, socket, name] = process.argv.slice(2);
if (!src || !socket || !name) {
  console.error('usage: import.ts LAYOUT[:TAG] SOCKET NAME:TAG');
  process.exit(2);
}
const [layout, tag] = src.includes(':') ? src.split(':') : [src, undefined];
await importLayout(socket.replace(/^unix:\/\//, ''), layout!, name, tag);
console.log(`imported ${name}`);
