/**
 * Saving an etcd snapshot through Maintenance.Snapshot, as `etcdctl snapshot save`
 * does: the stream's blobs written in order to `<file>.part`, fsynced, then renamed to
 * `<file>` (a failed save leaves no partial snapshot under the name).
 *
 * @see https://github.com/etcd-io/etcd/blob/v3.5.17/client/v3/snapshot/v3_snapshot.go
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { etcdError, type EtcdClient } from './client.js';

/**
 * @returns the snapshot's size in bytes and the revision in the stream's header
 * @throws StorageError when etcd fails the stream
 */
export async function saveEtcdSnapshot(client: EtcdClient, file: string): Promise<{ size: number; revision: number }> {
  const part = `${file}.part`;
  const fd = openSync(part, 'w', 0o600);
  let size = 0;
  let revision = 0;
  try {
    const stream = client.snapshotStream();
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (m: { header?: { revision?: string }; blob: Buffer }) => {
        if (m.header?.revision) revision = Math.max(revision, Number(m.header.revision));
        if (m.blob?.length) {
          writeSync(fd, m.blob);
          size += m.blob.length;
        }
      });
      stream.on('error', (e) => reject(etcdError(e)));
      stream.on('end', () => resolve());
    });
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(part, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(part, file);
  return { size, revision };
}
