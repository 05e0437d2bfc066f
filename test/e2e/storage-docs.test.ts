/**
 * A new user's storage, through the real kubectl on the simulated runtime, against
 * upstream v1.32's exact output:
 * - the docs task "Configure a Pod to Use a PersistentVolume for Storage" with its
 *   published manifests (pv-volume.yaml, pv-claim.yaml, pv-pod.yaml): the hostPath
 *   PersistentVolume of class `manual`, the claim bound to it, the `kubectl get pv/pvc`
 *   columns the page shows, the pod serving the volume's index.html, the clean-up in the
 *   page's order; and its "Access control" part (the `pv.beta.kubernetes.io/gid`
 *   annotation becomes a supplemental group of the pod's containers, `id` shows it);
 * - StorageClass behaviours: `local-path (default)`, switching the default with
 *   `kubectl patch`, the newest of two defaults wins, a claim without class gets the
 *   default class retroactively, `storageClassName: ""` binds only volumes without class;
 * - upstream's validation errors for claims, volumes and classes, and the protection
 *   finalizers that keep a claim in use and a bound volume.
 *
 * The node's "/mnt/data" is a directory in the test's data dir: the PersistentVolume is
 * the published one with its hostPath moved there (a test must not write outside its dirs).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, MANIFESTS, type Cluster } from './harness.js';
import { claimPod, kubectlHelpers } from './storage-support.js';

/** A kubectl table as rows of header → cell (cells cut at the header's column starts). */
function table(out: string): Record<string, string>[] {
  const [header, ...lines] = out.split('\n').filter((l) => l.trim());
  const starts: number[] = [];
  const names: string[] = [];
  for (const m of header!.matchAll(/\S+(?: \S+)*/g)) {
    starts.push(m.index);
    names.push(m[0]);
  }
  return lines.map((l) => Object.fromEntries(names.map((n, i) => [n, l.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim()])));
}

const claimYaml = (name: string, cls?: string, size = '1Gi'): string => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
${cls === undefined ? '' : `  storageClassName: "${cls}"\n`}  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: ${size}
`;

describe('e2e: storage as the docs show it (sim runtime)', { timeout: 240_000 }, () => {
  let c: Cluster;
  const { ok, fails, exists } = kubectlHelpers(() => c);
  const json = <T = any>(args: string[]): T => JSON.parse(ok(['get', ...args, '-o', 'json'])) as T;
  const eventsOf = (kind: string, name: string): { reason: string; message: string; type: string }[] =>
    json<{ items: { reason: string; message: string; type: string }[] }>(['events', '--field-selector', `involvedObject.kind=${kind},involvedObject.name=${name}`]).items;

  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('configure-persistent-volume-storage: PV, claim, pod, clean-up in the page’s order', async () => {
    const node = join(c.dir, 'node-root', 'mnt', 'data');
    fs.mkdirSync(node, { recursive: true });
    fs.writeFileSync(join(node, 'index.html'), 'Hello from Kubernetes storage\n');
    const pvYaml = fs.readFileSync(join(MANIFESTS, 'pv-volume.yaml'), 'utf8').replace('path: /mnt/data', `path: ${node}`);
    assert.equal(ok(['apply', '-f', '-'], pvYaml).trim(), 'persistentvolume/task-pv-volume created');
    await eventually(() => json(['pv', 'task-pv-volume']).status?.phase === 'Available' || undefined);
    let out = ok(['get', 'pv', 'task-pv-volume']);
    assert.match(out.split('\n')[0]!, /^NAME +CAPACITY +ACCESS MODES +RECLAIM POLICY +STATUS +CLAIM +STORAGECLASS +VOLUMEATTRIBUTESCLASS +REASON +AGE$/);
    assert.deepEqual(
      { ...table(out)[0], AGE: undefined },
      {
        NAME: 'task-pv-volume',
        CAPACITY: '10Gi',
        'ACCESS MODES': 'RWO',
        'RECLAIM POLICY': 'Retain',
        STATUS: 'Available',
        CLAIM: '',
        STORAGECLASS: 'manual',
        VOLUMEATTRIBUTESCLASS: '<unset>',
        REASON: '',
        AGE: undefined,
      },
    );
    // SetDefaults_HostPathVolumeSource: type ""
    assert.deepEqual(json(['pv', 'task-pv-volume']).spec.hostPath, { path: node, type: '' });

    assert.equal(ok(['apply', '-f', join(MANIFESTS, 'pv-claim.yaml')]).trim(), 'persistentvolumeclaim/task-pv-claim created');
    await eventually(() => json(['pvc', 'task-pv-claim']).status?.phase === 'Bound' || undefined, 30_000);
    await eventually(() => json(['pv', 'task-pv-volume']).status?.phase === 'Bound' || undefined);
    out = ok(['get', 'pv', 'task-pv-volume']);
    assert.deepEqual(
      { ...table(out)[0], AGE: undefined },
      {
        NAME: 'task-pv-volume',
        CAPACITY: '10Gi',
        'ACCESS MODES': 'RWO',
        'RECLAIM POLICY': 'Retain',
        STATUS: 'Bound',
        CLAIM: 'default/task-pv-claim',
        STORAGECLASS: 'manual',
        VOLUMEATTRIBUTESCLASS: '<unset>',
        REASON: '',
        AGE: undefined,
      },
    );
    out = ok(['get', 'pvc', 'task-pv-claim']);
    assert.match(out.split('\n')[0]!, /^NAME +STATUS +VOLUME +CAPACITY +ACCESS MODES +STORAGECLASS +VOLUMEATTRIBUTESCLASS +AGE$/);
    assert.deepEqual(
      { ...table(out)[0], AGE: undefined },
      {
        NAME: 'task-pv-claim',
        STATUS: 'Bound',
        VOLUME: 'task-pv-volume',
        CAPACITY: '10Gi',
        'ACCESS MODES': 'RWO',
        STORAGECLASS: 'manual',
        VOLUMEATTRIBUTESCLASS: '<unset>',
        AGE: undefined,
      },
    );
    const claim = json(['pvc', 'task-pv-claim']);
    assert.equal(claim.metadata.annotations['pv.kubernetes.io/bind-completed'], 'yes');
    assert.equal(claim.metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'yes');
    assert.deepEqual(claim.metadata.finalizers, ['kubernetes.io/pvc-protection']);

    assert.equal(ok(['apply', '-f', join(MANIFESTS, 'pvc-pod.yaml')]).trim(), 'pod/task-pv-pod created');
    await eventually(() => json(['pod', 'task-pv-pod']).status?.phase === 'Running' || undefined, 60_000);
    assert.equal(ok(['exec', 'task-pv-pod', '--', 'curl', '-s', 'http://localhost/']), 'Hello from Kubernetes storage\n');
    // a volume the pod got through a claim: no volume errors on the way
    assert.deepEqual(
      eventsOf('Pod', 'task-pv-pod').filter((e) => e.type === 'Warning'),
      [],
    );

    const pvDescribe = ok(['describe', 'pv', 'task-pv-volume']);
    for (const line of [
      /^Name: +task-pv-volume$/m,
      /^Labels: +type=local$/m,
      /^Annotations: +pv\.kubernetes\.io\/bound-by-controller: yes$/m,
      /^Finalizers: +\[kubernetes\.io\/pv-protection\]$/m,
      /^StorageClass: +manual$/m,
      /^Status: +Bound$/m,
      /^Claim: +default\/task-pv-claim$/m,
      /^Reclaim Policy: +Retain$/m,
      /^Access Modes: +RWO$/m,
      /^VolumeMode: +Filesystem$/m,
      /^Capacity: +10Gi$/m,
      /^ +Type: +HostPath \(bare host directory volume\)$/m,
      /^ +HostPathType: +$/m,
    ])
      assert.match(pvDescribe, line);
    const pvcDescribe = ok(['describe', 'pvc', 'task-pv-claim']);
    for (const line of [/^Status: +Bound$/m, /^Volume: +task-pv-volume$/m, /^Capacity: +10Gi$/m, /^Used By: +task-pv-pod$/m]) assert.match(pvcDescribe, line);

    // clean up: the pod, the claim, the volume (kubectl waits for each to be gone)
    assert.equal(ok(['delete', 'pod', 'task-pv-pod']).trim(), 'pod "task-pv-pod" deleted');
    assert.equal(ok(['delete', 'pvc', 'task-pv-claim']).trim(), 'persistentvolumeclaim "task-pv-claim" deleted');
    // Retain: the volume is Released, keeping its claim reference
    await eventually(() => json(['pv', 'task-pv-volume']).status?.phase === 'Released' || undefined);
    assert.equal(table(ok(['get', 'pv', 'task-pv-volume']))[0]!.CLAIM, 'default/task-pv-claim');
    assert.equal(ok(['delete', 'pv', 'task-pv-volume']).trim(), 'persistentvolume "task-pv-volume" deleted');
    assert.equal(exists(['pv', 'task-pv-volume']), false);
    assert.equal(fs.readFileSync(join(node, 'index.html'), 'utf8'), 'Hello from Kubernetes storage\n', 'the data stays on the node');
  });

  it('Access control: the PV’s pv.beta.kubernetes.io/gid is a supplemental group of the pod’s containers, not in the pod', async () => {
    ok(
      ['apply', '-f', '-'],
      `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv1
  annotations:
    pv.beta.kubernetes.io/gid: "1234"
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  hostPath: {path: ${join(c.dir, 'node-root', 'pv1')}}
---
${claimYaml('gid-claim', 'manual')}---
${claimPod('gid-pod', 'gid-claim', { gracePeriod: 1 })}`,
    );
    await eventually(() => json(['pod', 'gid-pod']).status?.phase === 'Running' || undefined, 60_000);
    assert.equal(json(['pvc', 'gid-claim']).spec.volumeName, 'pv1');
    assert.match(ok(['exec', 'gid-pod', '--', 'id']), /^uid=0 gid=0 groups=1234$/m);
    assert.equal(json(['pod', 'gid-pod']).spec.securityContext?.supplementalGroups, undefined);
    ok(['delete', 'pod', 'gid-pod']);
    ok(['delete', 'pvc', 'gid-claim']);
    ok(['delete', 'pv', 'pv1']);
  });

  it('StorageClasses: the default, switching it, two defaults, retroactive default, ""', async () => {
    let rows = table(ok(['get', 'sc']));
    assert.deepEqual(
      rows.map((r) => [r.NAME, r.PROVISIONER, r.RECLAIMPOLICY, r.VOLUMEBINDINGMODE, r.ALLOWVOLUMEEXPANSION]),
      [['local-path (default)', 'hostpath.csi.k8ts.io', 'Delete', 'WaitForFirstConsumer', 'true']],
    );
    ok(['apply', '-f', '-'], 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: fast\nprovisioner: hostpath.csi.k8ts.io\nvolumeBindingMode: Immediate\n');
    // the docs' "Change the default StorageClass"
    const mark = (name: string, v: string): string =>
      ok(['patch', 'storageclass', name, '-p', `{"metadata": {"annotations":{"storageclass.kubernetes.io/is-default-class":"${v}"}}}`]).trim();
    assert.equal(mark('local-path', 'false'), 'storageclass.storage.k8s.io/local-path patched');
    assert.equal(mark('fast', 'true'), 'storageclass.storage.k8s.io/fast patched');
    rows = table(ok(['get', 'sc']));
    assert.deepEqual(
      rows.map((r) => r.NAME),
      ['fast (default)', 'local-path'],
    );
    assert.match(ok(['describe', 'sc', 'fast']), /^IsDefaultClass: +Yes$/m);
    assert.match(ok(['describe', 'sc', 'local-path']), /^IsDefaultClass: +No$/m);

    // two defaults: DefaultStorageClass admission takes the newest (fast)
    mark('local-path', 'true');
    assert.deepEqual(
      table(ok(['get', 'sc'])).map((r) => r.NAME),
      ['fast (default)', 'local-path (default)'],
    );
    ok(['create', '-f', '-'], claimYaml('two-defaults'));
    assert.equal(json(['pvc', 'two-defaults']).spec.storageClassName, 'fast');
    ok(['delete', 'pvc', 'two-defaults', '--wait=false']);

    // no default: a claim without class waits; once a default exists the PV controller gives it that class
    for (const n of ['local-path', 'fast']) ok(['annotate', 'sc', n, 'storageclass.kubernetes.io/is-default-class-']);
    ok(['create', '-f', '-'], claimYaml('later'));
    await eventually(() =>
      eventsOf('PersistentVolumeClaim', 'later').find(
        (e) => e.reason === 'FailedBinding' && e.message === 'no persistent volumes available for this claim and no storage class is set',
      ),
    );
    assert.equal(json(['pvc', 'later']).spec.storageClassName, undefined);
    assert.equal(table(ok(['get', 'pvc', 'later']))[0]!.STORAGECLASS, '');
    mark('local-path', 'true');
    await eventually(() => json(['pvc', 'later']).spec.storageClassName === 'local-path' || undefined, 30_000);
    await eventually(() =>
      eventsOf('PersistentVolumeClaim', 'later').find((e) => e.reason === 'WaitForFirstConsumer' && e.message === 'waiting for first consumer to be created before binding'),
    );
    assert.equal(table(ok(['get', 'pvc', 'later']))[0]!.STORAGECLASS, 'local-path');

    // "" is no class: binds the volume without class, not the smaller one of class manual
    ok(
      ['create', '-f', '-'],
      `apiVersion: v1
kind: PersistentVolume
metadata:
  name: classless
spec:
  accessModes: [ReadWriteOnce]
  capacity: {storage: 2Gi}
  hostPath: {path: ${join(c.dir, 'node-root', 'classless')}}
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: manual-1g
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  hostPath: {path: ${join(c.dir, 'node-root', 'manual')}}
`,
    );
    await eventually(() => json(['pv', 'manual-1g']).status?.phase === 'Available' || undefined);
    ok(['create', '-f', '-'], claimYaml('no-class', ''));
    await eventually(() => json(['pvc', 'no-class']).status?.phase === 'Bound' || undefined, 30_000);
    assert.equal(json(['pvc', 'no-class']).spec.volumeName, 'classless');
    assert.equal(json(['pvc', 'no-class']).spec.storageClassName, '');
    assert.equal(json(['pv', 'manual-1g']).status.phase, 'Available');
    for (const n of ['later', 'no-class']) ok(['delete', 'pvc', n]);
  });

  it('errors as upstream prints them: claims, volumes, classes', () => {
    ok(['create', '-f', '-'], claimYaml('fixed', 'manual'));
    // immutable claim spec (upstream appends a Go cmp.Diff of the two specs after this line)
    for (const patch of ['{"spec":{"accessModes":["ReadWriteMany"]}}', '{"spec":{"storageClassName":"other"}}']) {
      assert.equal(
        fails(['patch', 'pvc', 'fixed', '-p', patch]).split('\n')[0],
        'The PersistentVolumeClaim "fixed" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
      );
    }
    ok(['delete', 'pvc', 'fixed']);

    const pv = (name: string, spec: string): string => `apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
    assert.equal(
      fails(['create', '-f', '-'], pv('no-capacity', '  accessModes: [ReadWriteOnce]\n  hostPath: {path: /data}\n')),
      'The PersistentVolume "no-capacity" is invalid: \n* spec.capacity: Required value\n* spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"',
    );
    assert.equal(
      fails(
        ['create', '-f', '-'],
        pv('two-sources', '  accessModes: [ReadWriteOnce]\n  capacity: {storage: 1Gi}\n  hostPath: {path: /data}\n  nfs: {server: nfs.example.com, path: /exports}\n'),
      ),
      'The PersistentVolume "two-sources" is invalid: spec.nfs: Forbidden: may not specify more than 1 volume type',
    );
    assert.equal(
      fails(['create', '-f', '-'], pv('no-source', '  accessModes: [ReadWriteOnce]\n  capacity: {storage: 1Gi}\n')),
      'The PersistentVolume "no-source" is invalid: spec: Required value: must specify a volume type',
    );
    assert.equal(
      fails(
        ['create', '-f', '-'],
        pv('bad-policy', '  accessModes: [ReadWriteOnce]\n  capacity: {storage: 1Gi}\n  persistentVolumeReclaimPolicy: Keep\n  hostPath: {path: /data, type: Dir}\n'),
      ),
      'The PersistentVolume "bad-policy" is invalid: \n' +
        '* spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"\n' +
        '* spec.hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
    );
    ok(['create', '-f', '-'], pv('fixed-pv', '  accessModes: [ReadWriteOnce]\n  capacity: {storage: 1Gi}\n  hostPath: {path: /data}\n'));
    assert.equal(
      fails(['patch', 'pv', 'fixed-pv', '-p', '{"spec":{"hostPath":{"path":"/other"}}}']).split('\n')[0],
      'The PersistentVolume "fixed-pv" is invalid: spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation',
    );
    ok(['delete', 'pv', 'fixed-pv']);

    ok(['apply', '-f', '-'], 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: standard\nprovisioner: example.com/nfs\nparameters:\n  type: pd-standard\n');
    const scErr = (patch: string): string => fails(['patch', 'sc', 'standard', '-p', patch]);
    assert.equal(scErr('{"provisioner":"example.com/other"}'), 'The StorageClass "standard" is invalid: provisioner: Forbidden: updates to provisioner are forbidden.');
    assert.equal(scErr('{"parameters":{"type":"pd-ssd"}}'), 'The StorageClass "standard" is invalid: parameters: Forbidden: updates to parameters are forbidden.');
    assert.equal(scErr('{"reclaimPolicy":"Retain"}'), 'The StorageClass "standard" is invalid: reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.');
    assert.equal(
      scErr('{"volumeBindingMode":"WaitForFirstConsumer"}'),
      'The StorageClass "standard" is invalid: volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
    );
    assert.equal(
      fails(
        ['create', '-f', '-'],
        'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: bad\nprovisioner: example.com/nfs\nreclaimPolicy: Recycle\nvolumeBindingMode: Later\n',
      ),
      'The StorageClass "bad" is invalid: \n' +
        '* reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"\n' +
        '* volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
    );
    assert.equal(
      fails(['create', '-f', '-'], 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: bad\nprovisioner: ""\n'),
      'The StorageClass "bad" is invalid: provisioner: Required value',
    );
    ok(['delete', 'sc', 'standard']);
  });

  it('a claim in use stays Terminating until its pod is gone; a bound volume keeps pv-protection', async () => {
    ok(
      ['apply', '-f', '-'],
      `${claimYaml('in-use', 'local-path')}---
${claimPod('user', 'in-use')}`,
    );
    await eventually(() => json(['pod', 'user']).status?.phase === 'Running' || undefined, 60_000);
    const pvName = json(['pvc', 'in-use']).spec.volumeName as string;
    // provisioning finished before the pod was bound to the node: no volume errors on the pod
    assert.deepEqual(
      eventsOf('Pod', 'user').filter((e) => e.type === 'Warning'),
      [],
    );
    const described = ok(['describe', 'pvc', 'in-use']);
    for (const line of [
      /^StorageClass: +local-path$/m,
      /^Status: +Bound$/m,
      new RegExp(`^Volume: +${pvName}$`, 'm'),
      /^ +volume\.kubernetes\.io\/selected-node: e2e-node$/m,
      /^Used By: +user$/m,
      /Normal +WaitForFirstConsumer .* persistentvolume-controller +waiting for first consumer to be created before binding$/m,
      /Normal +ProvisioningSucceeded .* +Successfully provisioned volume pvc-/m,
    ])
      assert.match(described, line);

    // a claim whose provisioner never answers: the scheduler waits in PreBind (upstream's
    // bindTimeoutSeconds 600), the pod stays Pending without a node instead of failing to mount
    ok(
      ['apply', '-f', '-'],
      `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: nobody
provisioner: example.com/nobody
volumeBindingMode: WaitForFirstConsumer
---
${claimYaml('waits', 'nobody')}---
${claimPod('waiter', 'waits')}`,
    );
    const ext = await eventually(() => eventsOf('PersistentVolumeClaim', 'waits').find((e) => e.reason === 'ExternalProvisioning'));
    assert.equal(
      ext.message,
      "Waiting for a volume to be created either by the external provisioner 'example.com/nobody' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    );
    assert.equal(json(['pvc', 'waits']).metadata.annotations['volume.kubernetes.io/selected-node'], 'e2e-node');
    const waiter = json(['pod', 'waiter']);
    assert.equal(waiter.spec.nodeName, undefined, 'not bound to the node while its claim is unbound');
    assert.equal(waiter.status.phase, 'Pending');
    ok(['delete', 'pod', 'waiter', '--wait=false']);
    ok(['delete', 'pvc', 'waits']);

    // the volume first: bound, so pv-protection keeps it
    assert.equal(ok(['delete', 'pv', pvName, '--wait=false']).trim(), `persistentvolume "${pvName}" deleted`);
    await eventually(() => json(['pv', pvName]).metadata.deletionTimestamp);
    assert.ok(json(['pv', pvName]).metadata.finalizers.includes('kubernetes.io/pv-protection'));
    assert.equal(table(ok(['get', 'pv', pvName]))[0]!.STATUS, 'Terminating');
    // then the claim: the pod uses it, so pvc-protection keeps it
    assert.equal(ok(['delete', 'pvc', 'in-use', '--wait=false']).trim(), 'persistentvolumeclaim "in-use" deleted');
    await eventually(() => json(['pvc', 'in-use']).metadata.deletionTimestamp);
    assert.deepEqual(json(['pvc', 'in-use']).metadata.finalizers, ['kubernetes.io/pvc-protection']);
    assert.equal(table(ok(['get', 'pvc', 'in-use']))[0]!.STATUS, 'Terminating');
    assert.match(ok(['describe', 'pvc', 'in-use']), /^Status: +Terminating \(lasts \S+\)$/m);
    assert.equal(json(['pod', 'user']).status.phase, 'Running');
    // the pod goes: the claim, then the volume
    ok(['delete', 'pod', 'user', '--grace-period=1']);
    await eventually(() => !exists(['pvc', 'in-use']) || undefined, 30_000);
    await eventually(() => !exists(['pv', pvName]) || undefined, 30_000);
  });
});
