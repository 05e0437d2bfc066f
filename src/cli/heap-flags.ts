/**
 * V8 heap settings of the `k8ts server` process, applied at run time (the server is
 * started as `node dist/k8ts.mjs server`, with no place for node flags).
 *
 * The young generation stays at its initial size (1 MiB semi-spaces) instead of growing
 * to 16 MiB semi-spaces under load: V8 commits the young generation as resident memory
 * (up to ~48 MiB) while the API server's short-lived garbage (request bodies, watch
 * events, encodings) needs no more than the initial size between scavenges. Measured with
 * `npm run bench:scale` (2,000 kwok nodes, 5,000 pods, pairs run side by side): RSS total
 * 511 → 492 MB and 520 → 464 MB, server CPU per pod 5.79 → 5.29 ms and 5.17 → 5.30 ms
 * (within the benchmark's noise). `--max-semi-space-size` cannot be changed once the
 * heap exists; the growth factor is read at each growth decision, so it can.
 *
 * A process started with its own semi-space flag (on the command line or in
 * NODE_OPTIONS) keeps it.
 *
 * @see https://nodejs.org/api/cli.html#--max-semi-space-sizesize-in-mib
 */
import { setFlagsFromString } from 'node:v8';

/** The flag this module sets. */
export const SERVER_HEAP_FLAG = '--semi-space-growth-factor=1';

/**
 * Applies {@link SERVER_HEAP_FLAG} unless the process was started with a semi-space flag
 * of its own. Returns whether it was applied.
 */
export function applyServerHeapFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const own = (a: string) => /^--(max|min)[-_]semi[-_]space[-_]size|^--semi[-_]space[-_]growth[-_]factor/.test(a);
  if (execArgv.some(own) || nodeOptions.split(/\s+/).some(own)) return false;
  setFlagsFromString(SERVER_HEAP_FLAG);
  return true;
}
