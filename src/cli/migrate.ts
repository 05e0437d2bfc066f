/**
 * `k8ts migrate --from sqlite --to etcd`: copies a stopped server's SQLite database
 * (`<data-dir>/db/state.db`) into an etcd given with kube-apiserver's flags
 * (`--etcd-servers`, `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`,
 * `--etcd-prefix`), in the order of the objects' revisions (src/etcd/migrate.ts). The
 * database is left as it is; the server is then started with the same `--etcd-*` flags.
 * (`k8ts server --cluster-init` does the same on its first start over a SQLite data dir.)
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { copyStorage } from '../etcd/migrate.js';
import { openStorage, sqliteFile } from '../storage/index.js';
import { addStorageOptions, storageConfigFrom } from './storage-flags.js';

/** The `migrate` command. */
export function migrateCommand(): Command {
  return addStorageOptions(new Command('migrate'))
    .description("copy a stopped server's storage into another backend: --from sqlite --to etcd (keeps the order of revisions)")
    .requiredOption('--from <backend>', 'the backend to read: sqlite')
    .requiredOption('--to <backend>', 'the backend to write: etcd (given with --etcd-servers and its TLS flags)')
    .option('--data-dir <dir>', "the server's data directory (its db/state.db)", './data')
    .action(async (o) => {
      try {
        if (o.from !== 'sqlite' || o.to !== 'etcd') throw new Error(`unsupported migration --from ${o.from} --to ${o.to}: only --from sqlite --to etcd`);
        if (!o.etcdServers) throw new Error('--to etcd needs --etcd-servers');
        const dataDir = resolve(o.dataDir);
        if (!existsSync(sqliteFile(dataDir))) throw new Error(`no SQLite database at ${sqliteFile(dataDir)}`);
        const cfg = storageConfigFrom(o, dataDir);
        let from: Awaited<ReturnType<typeof openStorage>>;
        try {
          from = await openStorage({ kind: 'sqlite', dataDir, compaction: false });
        } catch (e) {
          throw new Error(`the database ${sqliteFile(dataDir)} is in use (is a k8ts server running on ${dataDir}? stop it first): ${(e as Error).message}`);
        }
        try {
          const to = await openStorage({ ...cfg.open, ...(cfg.open.kind === 'etcd' ? { compactionIntervalMs: false as const } : {}) });
          try {
            const r = await copyStorage(from, to, cfg.eventTTLSeconds);
            console.log(
              `Migrated ${r.keys} key${r.keys === 1 ? '' : 's'} from ${sqliteFile(dataDir)} to etcd (revision ${r.revision}); start the server with the same --etcd-* flags.`,
            );
          } finally {
            await to.close();
          }
        } finally {
          await from.close();
        }
      } catch (err) {
        console.error(`error: ${(err as Error).message}`);
        process.exit(1);
      }
    });
}
