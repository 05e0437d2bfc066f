import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject, Obj, ObjectLookup } from '../../../api/resource.js';
import { StatusError } from '../../../apimachinery/errors.js';
import type { AdmissionAttributes, Operation } from '../types.js';
import { priority, priorityAdmission } from './priority.js';

const pc = (name: string, value: number, extra: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
  preemptionPolicy: 'PreemptLowerPriority',
  ...extra,
});

function lookupOf(classes: KObject[]): ObjectLookup {
  return {
    get: async (_r, _ns, name) => classes.find((c) => c.metadata?.name === name),
    list: async () => classes,
  };
}

function podAttrs(spec: Record<string, unknown>, op: Operation = 'CREATE', old?: Record<string, unknown>): AdmissionAttributes {
  return {
    operation: op,
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    subresource: '',
    namespace: 'default',
    name: 'high-priority',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'high-priority', namespace: 'default' }, spec: { containers: [], ...spec } } as Obj,
    oldObject: old ? ({ metadata: { name: 'high-priority' }, spec: old } as Obj) : undefined,
    user: { username: 'u', groups: [] },
    dryRun: false,
    warnings: [],
  };
}

async function forbiddenMessage(p: Promise<void>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 403);
    return e.message;
  }
  assert.fail('expected Forbidden');
}

describe('Priority admission', () => {
  it('is exported under both names', () => assert.equal(priority, priorityAdmission));

  it('refuses an unknown class with upstream message', async () => {
    const msg = await forbiddenMessage(priorityAdmission.admit!(podAttrs({ priorityClassName: 'high' }), lookupOf([])));
    assert.equal(msg, 'pods "high-priority" is forbidden: no PriorityClass with name high was found');
  });

  it('resolves the class into priority and preemptionPolicy', async () => {
    const a = podAttrs({ priorityClassName: 'high' });
    await priorityAdmission.admit!(a, lookupOf([pc('high', 1000, { preemptionPolicy: 'Never' })]));
    assert.equal((a.object!.spec as { priority: number }).priority, 1000);
    assert.equal((a.object!.spec as { preemptionPolicy: string }).preemptionPolicy, 'Never');
  });

  it('uses the lowest globalDefault class, else priority 0 / PreemptLowerPriority', async () => {
    const a = podAttrs({});
    await priorityAdmission.admit!(a, lookupOf([pc('d1', 50, { globalDefault: true }), pc('d2', 10, { globalDefault: true }), pc('x', 1)]));
    assert.deepEqual(a.object!.spec, { containers: [], priorityClassName: 'd2', priority: 10, preemptionPolicy: 'PreemptLowerPriority' });
    const b = podAttrs({});
    await priorityAdmission.admit!(b, lookupOf([]));
    assert.deepEqual(b.object!.spec, { containers: [], priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('rejects a spec.priority that contradicts the class', async () => {
    const msg = await forbiddenMessage(priorityAdmission.admit!(podAttrs({ priorityClassName: 'high', priority: 5 }), lookupOf([pc('high', 1000)])));
    assert.equal(
      msg,
      'pods "high-priority" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    );
  });

  it('keeps priority on update', async () => {
    const a = podAttrs({}, 'UPDATE', { priority: 7, preemptionPolicy: 'Never' });
    await priorityAdmission.admit!(a, lookupOf([]));
    assert.equal((a.object!.spec as { priority: number }).priority, 7);
  });

  it('allows only one globalDefault PriorityClass', async () => {
    const attrs = (op: Operation, obj: KObject): AdmissionAttributes => ({
      ...podAttrs({}),
      operation: op,
      resource: { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' },
      kind: { group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' },
      name: obj.metadata?.name ?? '',
      object: obj as Obj,
    });
    const existing = [pc('default', 10, { globalDefault: true })];
    const msg = await forbiddenMessage(priorityAdmission.validate!(attrs('CREATE', pc('other', 5, { globalDefault: true })), lookupOf(existing)));
    assert.equal(msg, 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass default is marked as default. Only one default can exist');
    await priorityAdmission.validate!(attrs('UPDATE', pc('default', 10, { globalDefault: true })), lookupOf(existing));
    await priorityAdmission.validate!(attrs('CREATE', pc('plain', 5)), lookupOf(existing));
  });
});
