/**
 * DefaultBinder: binds through the API, POST pods/<name>/binding with a v1 Binding
 * whose target is the node.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/defaultbinder/default_binder.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { R } from '../../client/types.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { BindPlugin, Handle } from '../framework/interface.js';
import { asStatus, type Status } from '../framework/status.js';

export const Name = 'DefaultBinder';

export class DefaultBinder implements BindPlugin {
  readonly name = Name;

  constructor(private readonly handle: Handle) {}

  async bind(_state: CycleState, pod: Pod, nodeName: string): Promise<Status | null> {
    const m = pod.metadata ?? {};
    try {
      await this.handle.client.createSubresource(R.pods, m.namespace ?? '', m.name ?? '', 'binding', {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: m.name, namespace: m.namespace, uid: m.uid },
        target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
      });
      return null;
    } catch (e) {
      return asStatus(e);
    }
  }
}

export function New(_args: unknown, handle: Handle): DefaultBinder {
  return new DefaultBinder(handle);
}
