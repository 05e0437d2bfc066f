import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { managedEtcdFrom, memberAddress } from './managed-etcd.js';

const base = { dataDir: '/nonexistent', bindAddress: '127.0.0.1', etcdClientPort: 2379, etcdPeerPort: 2380, etcdMetricsPort: 2381 };

describe('managed etcd flags', () => {
  it('none of --cluster-init, --server, --cluster-reset: no managed etcd (SQLite or --etcd-servers)', async () => {
    assert.equal(await managedEtcdFrom(base), undefined);
  });

  it('--cluster-init: the member on the bind address with the given ports and --etcd-arg settings', async () => {
    assert.deepEqual(await managedEtcdFrom({ ...base, clusterInit: true, etcdClientPort: 12379, etcdArg: ['heartbeat-interval=100'] }), {
      address: '127.0.0.1',
      ports: { client: 12379, peer: 2380, metrics: 2381 },
      extraArgs: { 'heartbeat-interval': '100' },
    });
    assert.equal(memberAddress({ bindAddress: '127.0.0.1', advertiseAddress: '10.0.0.7' }), '10.0.0.7');
  });

  it('rejects conflicting or incomplete flags with a message for the user', async () => {
    await assert.rejects(managedEtcdFrom({ ...base, clusterInit: true, etcdServers: 'https://127.0.0.1:2379' }), /cannot be used with --etcd-servers/);
    await assert.rejects(managedEtcdFrom({ ...base, tokenFile: 'x' }), /--token and --token-file need --server/);
    await assert.rejects(managedEtcdFrom({ ...base, clusterResetRestorePath: 's' }), /--cluster-reset-restore-path needs --cluster-reset/);
    await assert.rejects(managedEtcdFrom({ ...base, clusterInit: true, etcdPeerPort: 70000 }), /invalid value for --etcd-peer-port: 70000/);
    await assert.rejects(managedEtcdFrom({ ...base, server: 'https://127.0.0.1:6443' }), /--server needs --token or --token-file/);
    await assert.rejects(managedEtcdFrom({ ...base, server: 'https://127.0.0.1:6443', token: 'nonsense' }), /invalid token/);
  });
});
