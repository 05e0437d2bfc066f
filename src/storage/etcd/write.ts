/**
 * Writes against etcd, each one transaction guarded the way kube-apiserver's etcd3
 * store guards it: create only if the key's create revision is 0 (absent), update
 * and conditional delete only if its mod revision is the expected one; on a failed
 * guard the same transaction reads the key, so the caller learns why.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/etcd3/store.go (Create, GuaranteedUpdate, conditionalDelete)
 */
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError, type KeyValue } from '../interface.js';
import { etcdError, num, type EtcdClient, type RawTxnResponse } from './client.js';
import { keyBytes, toKv } from './convert.js';

/** Runs a transaction, translating transport errors. */
async function txn(client: EtcdClient, req: Parameters<EtcdClient['txn']>[0]): Promise<RawTxnResponse> {
  try {
    return await client.txn(req);
  } catch (err) {
    throw etcdError(err);
  }
}

/**
 * Creates `key` unless it exists, attached to `lease` (a lease ID, '0' for none).
 * @throws KeyExistsError when the key exists
 */
export async function create(client: EtcdClient, key: string, value: string, lease = '0'): Promise<KeyValue> {
  const k = keyBytes(key);
  const res = await txn(client, {
    compare: [{ result: 'EQUAL', target: 'CREATE', key: k, createRevision: '0' }],
    success: [{ requestPut: { key: k, value: Buffer.from(value, 'utf8'), lease } }],
    failure: [],
  });
  if (!res.succeeded) throw new KeyExistsError(key);
  const rev = num(res.header.revision);
  return { key, value, createRevision: rev, modRevision: rev };
}

/**
 * Replaces `key`'s value if its mod revision is `expectedModRevision`. The success
 * branch reads the key back without its value, for its create revision.
 *
 * @throws KeyNotFoundError when absent; RevisionMismatchError (with the current kv) on another revision
 */
export async function update(client: EtcdClient, key: string, value: string, expectedModRevision: number, lease = '0'): Promise<KeyValue> {
  const k = keyBytes(key);
  const res = await txn(client, {
    compare: [{ result: 'EQUAL', target: 'MOD', key: k, modRevision: String(expectedModRevision) }],
    success: [{ requestPut: { key: k, value: Buffer.from(value, 'utf8'), lease } }, { requestRange: { key: k, keysOnly: true } }],
    failure: [{ requestRange: { key: k } }],
  });
  if (!res.succeeded) throw mismatch(key, res);
  const after = res.responses[1]?.responseRange?.kvs[0];
  const rev = num(res.header.revision);
  return { key, value, createRevision: after ? num(after.createRevision) : 0, modRevision: rev };
}

/**
 * Deletes `key` (if its mod revision is `expectedModRevision`, when given) and
 * returns its last value at the deletion's revision.
 *
 * @throws KeyNotFoundError when absent; RevisionMismatchError (with the current kv) on another revision
 */
export async function del(client: EtcdClient, key: string, expectedModRevision?: number): Promise<KeyValue> {
  const k = keyBytes(key);
  const res = await txn(client, {
    compare: expectedModRevision ? [{ result: 'EQUAL', target: 'MOD', key: k, modRevision: String(expectedModRevision) }] : [],
    success: [{ requestDeleteRange: { key: k, prevKv: true } }],
    failure: [{ requestRange: { key: k } }],
  });
  if (!res.succeeded) throw mismatch(key, res);
  const prev = res.responses[0]?.responseDeleteRange?.prevKvs[0];
  if (!prev) throw new KeyNotFoundError(key);
  return { ...toKv(prev), modRevision: num(res.header.revision) };
}

/** The error of a failed mod-revision guard, from the failure branch's read. */
function mismatch(key: string, res: RawTxnResponse): Error {
  const cur = res.responses[0]?.responseRange?.kvs[0];
  return cur ? new RevisionMismatchError(key, toKv(cur)) : new KeyNotFoundError(key);
}
