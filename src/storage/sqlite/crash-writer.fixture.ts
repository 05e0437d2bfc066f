/**
 * Child process for the kill -9 durability test in sqlite.test.ts (not a test
 * itself). Opens the store under argv[2] and writes `/registry/crash/<n>` keys
 * with `CONCURRENCY` writes in flight until killed, printing `ack <key> <rev>`
 * after each write resolved. stdout to a pipe is synchronous on Linux, so a line
 * the parent reads was written after the acknowledgement.
 */
import { openStorage } from '../index.js';

const CONCURRENCY = 16;
const VALUE = JSON.stringify({ kind: 'Pod', pad: 'x'.repeat(4000) });

const storage = await openStorage({ kind: 'sqlite', dataDir: process.argv[2]!, compaction: false });
process.stdout.write('ready\n');
let next = 0;
async function worker(): Promise<void> {
  for (;;) {
    const key = `/registry/crash/${next++}`;
    const kv = await storage.create(key, VALUE);
    process.stdout.write(`ack ${key} ${kv.modRevision}\n`);
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
