import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject, ObjectLookup } from '../../api/resource.js';
import { AdmissionChain, type AdmissionAttributes, type AdmissionPlugin } from './types.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };
const LR = { group: '', version: 'v1', resource: 'limitranges' };

/** A lookup that counts the reads reaching it. */
function countingLookup(): ObjectLookup & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    get: async (r, ns, name) => {
      calls.push(`get ${r.resource} ${ns}/${name}`);
      return { metadata: { name } } as KObject;
    },
    list: async (r, ns) => {
      calls.push(`list ${r.resource} ${ns}`);
      return [];
    },
  };
}

const attrs = (): AdmissionAttributes => ({
  operation: 'CREATE',
  resource: { group: '', version: 'v1', resource: 'pods' },
  kind: { group: '', version: 'v1', kind: 'Pod' },
  subresource: '',
  namespace: 'default',
  name: 'p',
  object: { metadata: { name: 'p' } },
  user: { username: 'u', groups: [] },
  dryRun: false,
  warnings: [],
});

describe('AdmissionChain', () => {
  it('runs admit then validate in plugin order, skipping plugins without the phase', async () => {
    const order: string[] = [];
    const plugins: AdmissionPlugin[] = [
      { name: 'A', admit: async () => void order.push('A.admit'), validate: async () => void order.push('A.validate') },
      { name: 'B', validate: async () => void order.push('B.validate') },
      { name: 'C', admit: async () => void order.push('C.admit') },
    ];
    const chain = new AdmissionChain(plugins, countingLookup());
    const a = attrs();
    await chain.admit(a);
    await chain.validate(a);
    assert.deepEqual(order, ['A.admit', 'C.admit', 'A.validate', 'B.validate']);
  });

  it('answers each distinct read once across the plugins and both phases of one request', async () => {
    const reader: AdmissionPlugin = {
      name: 'Reader',
      admit: async (_a, l) => {
        await l.get(NS, '', 'default');
        await l.list(LR, 'default');
      },
      validate: async (_a, l) => {
        await l.get(NS, '', 'default');
        await l.get(NS, '', 'other');
        await l.list(LR, 'default');
      },
    };
    const lookup = countingLookup();
    const chain = new AdmissionChain([reader, { ...reader, name: 'Reader2' }], lookup);
    const a = attrs();
    await chain.admit(a);
    await chain.validate(a);
    assert.deepEqual(lookup.calls, ['get namespaces /default', 'list limitranges default', 'get namespaces /other']);
    // another request reads again
    await chain.admit(attrs());
    assert.equal(lookup.calls.length, 5);
  });
});
