/**
 * core/v1 ComponentStatus (cluster-scoped, short name `cs`, get/list only): computed on
 * each read from the control-plane components' health, never stored — scheduler,
 * controller-manager and etcd-0 (the storage backend), as kube-apiserver lists them.
 * Printer NAME STATUS MESSAGE ERROR.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/componentstatus/rest.go
 */
import type { ComponentStatus } from 'kubernetes-types/core/v1.js';
import type { VirtualResource } from '../../../authorization/virtual.js';
import type { KObject, ResourceDefinition } from '../../../resource.js';
import { column, NAME_COLUMN } from '../shared/printing.js';

/** One component's health probe result. */
export interface ComponentHealth {
  healthy: boolean;
  /** probe output on success (upstream: the /healthz body, "ok") */
  message?: string;
  /** why the probe failed */
  error?: string;
}

/** The components in upstream's order, each with its probe. */
export type ComponentProbes = ReadonlyArray<readonly [name: string, probe: () => Promise<ComponentHealth>]>;

/** core/v1 componentstatuses (discovery, OpenAPI, printer; reads are served by {@link componentStatusResource}). */
export const componentStatusDefinition: ResourceDefinition = {
  group: '',
  version: 'v1',
  kind: 'ComponentStatus',
  listKind: 'ComponentStatusList',
  resource: 'componentstatuses',
  singular: 'componentstatus',
  namespaced: false,
  shortNames: ['cs'],
  verbs: ['get', 'list'],
  schemaRef: 'core/v1#ComponentStatus',
  table: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', 'Status of the component conditions'),
      column('Message', 'string', 'Message of the component conditions'),
      column('Error', 'string', 'Error of the component conditions'),
    ],
    cells(obj) {
      const c = ((obj as ComponentStatus).conditions ?? []).find((x) => x.type === 'Healthy');
      if (!c) return [obj.metadata.name ?? '', 'Unknown', '', ''];
      return [obj.metadata.name ?? '', c.status === 'True' ? 'Healthy' : 'Unhealthy', c.message ?? '', c.error ?? ''];
    },
  },
};

async function statusOf(name: string, probe: () => Promise<ComponentHealth>): Promise<KObject> {
  let h: ComponentHealth;
  try {
    h = await probe();
  } catch (e) {
    h = { healthy: false, error: e instanceof Error ? e.message : String(e) };
  }
  const condition: Record<string, string> = { type: 'Healthy', status: h.healthy ? 'True' : 'False' };
  if (h.message) condition.message = h.message;
  if (h.error) condition.error = h.error;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name }, conditions: [condition] };
}

/** The computed reads of componentstatuses over `probes`. */
export function componentStatusResource(probes: ComponentProbes): VirtualResource {
  return {
    group: '',
    version: 'v1',
    resource: 'componentstatuses',
    kind: 'ComponentStatus',
    namespaced: false,
    read: {
      def: componentStatusDefinition,
      async get(name) {
        const p = probes.find(([n]) => n === name);
        return p ? statusOf(p[0], p[1]) : undefined;
      },
      list() {
        return Promise.all(probes.map(([n, p]) => statusOf(n, p)));
      },
    },
  };
}
