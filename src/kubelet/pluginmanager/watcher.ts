/**
 * The kubelet's plugin manager: watches `<kubelet-dir>/plugins_registry/` for plugin
 * sockets, asks each new one who it is (pluginregistration.v1 GetInfo), hands CSI
 * plugins to the CSI registration handler and reports the outcome back
 * (NotifyRegistrationStatus); a socket that disappears deregisters its plugin. A
 * failed registration is tried again after `retryMs`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/pluginmanager/operationexecutor/operation_generator.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { grpc, registrationServices, toCSIError } from '../../csi/grpc.js';
import { CSI_PLUGIN_TYPE, type PluginInfo } from '../../csi/types.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { CSIDrivers } from '../volumes/csi/drivers.js';

interface Known {
  name?: string;
  /** when a failed registration may be tried again (ms since the epoch) */
  retryAt?: number;
}

type Unary = (req: object, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, res: unknown) => void) => void;

function callReg<T>(socket: string, method: string, req: object, timeoutMs = 10_000): Promise<T> {
  const Reg = registrationServices().Registration!;
  const c = new Reg(`unix://${socket}`, grpc.credentials.createInsecure());
  return new Promise<T>((resolve, reject) => {
    ((c as unknown as Record<string, Unary>)[method] as Unary).call(c, req, { deadline: Date.now() + timeoutMs }, (e, res) => {
      c.close();
      if (e) reject(toCSIError(e));
      else resolve(res as T);
    });
  });
}

export class PluginWatcher {
  private readonly known = new Map<string, Known>();
  private timer: TimerHandle | undefined;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly dir: string,
    private readonly csi: CSIDrivers,
    private readonly clock: Clock,
    private readonly log: (line: string) => void = () => undefined,
    private readonly periodMs = 1000,
    private readonly retryMs = 5000,
  ) {}

  start(): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o750 });
    const loop = (): void => {
      if (this.stopped) return;
      this.timer = this.clock.setTimeout(() => {
        this.running = this.reconcile().finally(loop);
      }, this.periodMs);
    };
    this.running = this.reconcile().finally(loop);
  }

  /** One pass: registers new sockets, deregisters vanished ones. */
  async reconcile(): Promise<void> {
    let names: string[] = [];
    try {
      names = fs.readdirSync(this.dir).filter((n) => !n.startsWith('.'));
    } catch {
      return;
    }
    const now = this.clock.now();
    const present = new Set<string>();
    for (const n of names) {
      const p = path.join(this.dir, n);
      let isSock = false;
      try {
        isSock = fs.statSync(p).isSocket();
      } catch {
        continue;
      }
      if (!isSock) continue;
      present.add(p);
      const k = this.known.get(p);
      if (k?.name || (k?.retryAt !== undefined && now < k.retryAt)) continue;
      await this.register(p);
    }
    for (const [p, k] of this.known) {
      if (present.has(p)) continue;
      this.known.delete(p);
      if (k.name) await this.csi.deregister(k.name).catch((e: unknown) => this.log(`kubernetes.io/csi: DeRegisterPlugin ${k.name} failed: ${(e as Error).message}`));
    }
  }

  private async register(socket: string): Promise<void> {
    let info: PluginInfo;
    try {
      info = await callReg<PluginInfo>(socket, 'GetInfo', {});
    } catch (e) {
      this.known.set(socket, { retryAt: this.clock.now() + this.retryMs });
      this.log(`RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${socket}, err: ${(e as Error).message}`);
      return;
    }
    let error = '';
    try {
      if (info.type !== CSI_PLUGIN_TYPE) throw new Error(`RegisterPlugin error -- no handler registered for plugin type: ${info.type} at socket ${socket}`);
      this.csi.validate(info.name, info.supportedVersions);
      await this.csi.register(info.name, info.endpoint || socket);
      this.known.set(socket, { name: info.name });
    } catch (e) {
      error = `RegisterPlugin error -- plugin registration failed with err: ${(e as Error).message}`;
      this.known.set(socket, { retryAt: this.clock.now() + this.retryMs });
      this.log(error);
    }
    await callReg(socket, 'NotifyRegistrationStatus', { pluginRegistered: !error, error }).catch((e: unknown) =>
      this.log(`RegisterPlugin error -- failed to send registration status at socket ${socket}, err: ${(e as Error).message}`),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    await this.running.catch(() => undefined);
  }
}
