/**
 * The node-driver-registrar's role: serves pluginregistration.v1 `Registration` on
 * `<kubelet-dir>/plugins_registry/<driver>-reg.sock`, telling the kubelet's plugin
 * watcher the driver's name and CSI socket; logs what the kubelet answers in
 * NotifyRegistrationStatus. Removing the socket (on stop) deregisters the driver.
 *
 * @see https://github.com/kubernetes-csi/node-driver-registrar/blob/master/cmd/csi-node-driver-registrar/node_register.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { registrationServices, serveUnix, stopServer, type grpc } from './grpc.js';
import { CSI_PLUGIN_TYPE, type PluginInfo } from './types.js';

/** `<kubeletDir>/plugins_registry`, where the kubelet's plugin watcher looks for sockets. */
export function pluginsRegistryDir(kubeletDir: string): string {
  return path.join(kubeletDir, 'plugins_registry');
}

/** `<kubeletDir>/plugins/<driver>/csi.sock`, where a driver's own socket conventionally lives. */
export function driverSocketPath(kubeletDir: string, driver: string): string {
  return path.join(kubeletDir, 'plugins', driver, 'csi.sock');
}

export interface RegistrarOptions {
  kubeletDir: string;
  driverName: string;
  /** the driver's CSI socket (absolute path) */
  driverEndpoint: string;
  log?: (line: string) => void;
}

export interface RunningRegistrar {
  /** the registration socket */
  socket: string;
  /** resolves with the kubelet's first NotifyRegistrationStatus */
  registered: Promise<{ pluginRegistered: boolean; error: string }>;
  stop(): Promise<void>;
}

export async function startRegistrar(o: RegistrarOptions): Promise<RunningRegistrar> {
  const socket = path.join(pluginsRegistryDir(o.kubeletDir), `${o.driverName}-reg.sock`);
  let notify!: (s: { pluginRegistered: boolean; error: string }) => void;
  const registered = new Promise<{ pluginRegistered: boolean; error: string }>((r) => (notify = r));
  const info: PluginInfo = { type: CSI_PLUGIN_TYPE, name: o.driverName, endpoint: o.driverEndpoint, supportedVersions: ['1.0.0'] };
  const server: grpc.Server = await serveUnix(socket, [
    [
      registrationServices().Registration!,
      {
        GetInfo: async () => {
          o.log?.(`Received GetInfo call: ${JSON.stringify({})}`);
          return info;
        },
        NotifyRegistrationStatus: async (s: { pluginRegistered: boolean; error: string }) => {
          o.log?.(`Received NotifyRegistrationStatus call: ${JSON.stringify(s)}`);
          if (!s.pluginRegistered) o.log?.(`Registration process failed with error: ${s.error}, restarting registration container.`);
          notify(s);
          return {};
        },
      },
    ],
  ]);
  return {
    socket,
    registered,
    async stop() {
      fs.rmSync(socket, { force: true });
      await stopServer(server);
    },
  };
}
