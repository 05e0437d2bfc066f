/**
 * The controller manager: starts every controller loop on the shared client.
 *
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kube-controller-manager/
 */
import type { EventRecorder } from '../client/events.js';
import type { Client } from '../client/types.js';
import { startNamespaceController } from './namespace/controller.js';
import { startServiceAccountController } from './serviceaccount/controller.js';
import { startNodeIPAMController } from './nodeipam/controller.js';

export interface ControllerContext {
  client: Client;
  recorder: EventRecorder;
  /** per-controller clients (controller name → client); `client` otherwise */
  clients?: Record<string, Client>;
  /** cluster CIDR for node podCIDR allocation (node-ipam-controller); none = not running */
  clusterCIDR?: string;
}

export interface Running {
  stop(): Promise<void>;
}

export async function startControllers(ctx: ControllerContext): Promise<Running> {
  const running: Running[] = [];
  const withClient = (name: string): ControllerContext => ({ ...ctx, client: ctx.clients?.[name] ?? ctx.client });
  running.push(await startNamespaceController(withClient('namespace-controller')));
  running.push(await startServiceAccountController(withClient('service-account-controller')));
  if (ctx.clusterCIDR) running.push(await startNodeIPAMController({ ...withClient('node-controller'), clusterCIDR: ctx.clusterCIDR }));
  return {
    async stop() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}
