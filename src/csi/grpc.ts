/**
 * The gRPC plumbing shared by both ends of CSI: the CSI v1 spec (`csi.proto`, copied
 * unchanged from the container-storage-interface spec) and the kubelet's plugin
 * registration API (`pluginregistration.proto`), loaded once with @grpc/proto-loader;
 * unix socket targets; {@link CSIError} carrying a gRPC status code; and
 * {@link serveUnix} to serve service implementations on a unix socket.
 *
 * Messages use proto-loader's object form: lowerCamelCase field names, enums as names
 * (`'STAGE_UNSTAGE_VOLUME'`), int64 as JS numbers (bytes; exact below 2^53), absent
 * sub-messages as null, absent maps as {}.
 *
 * @see https://github.com/container-storage-interface/spec/blob/v1.9.0/spec.md
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/kubelet/pkg/apis/pluginregistration/v1/api.proto
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const CSI_PROTO = fileURLToPath(new URL('./csi.proto', import.meta.url));
const REG_PROTO = fileURLToPath(new URL('./pluginregistration.proto', import.meta.url));

const LOAD_OPTS: protoLoader.Options = { keepCase: false, longs: Number, enums: String, defaults: true, arrays: true, objects: true };

type Services = Record<string, grpc.ServiceClientConstructor>;
let csiPkg: Services | undefined;
let regPkg: Services | undefined;

/** The csi.v1 services (Identity, Controller, Node, GroupController). */
export function csiServices(): Services {
  if (!csiPkg) {
    const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(CSI_PROTO, LOAD_OPTS)) as unknown as { csi: { v1: Services } };
    csiPkg = pkg.csi.v1;
  }
  return csiPkg;
}

/** The pluginregistration services (Registration). */
export function registrationServices(): Services {
  if (!regPkg) {
    const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(REG_PROTO, LOAD_OPTS)) as unknown as { pluginregistration: Services };
    regPkg = pkg.pluginregistration;
  }
  return regPkg;
}

/** Go's spelling of the gRPC status codes, as in `rpc error: code = NotFound desc = …`. */
const GO_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

/**
 * A failed CSI call with its gRPC status code. `message` is what upstream's Go clients
 * print (`rpc error: code = NotFound desc = volume id "x" not found`); `desc` the bare text.
 */
export class CSIError extends Error {
  constructor(
    readonly code: grpc.status,
    readonly desc: string,
  ) {
    super(`rpc error: code = ${GO_CODE_NAMES[code] ?? code} desc = ${desc}`);
    this.name = 'CSIError';
  }

  /** The Go name of the code (`NotFound`). */
  get codeName(): string {
    return GO_CODE_NAMES[this.code] ?? String(this.code);
  }
}

/** Converts whatever a gRPC call failed with into a {@link CSIError}. */
export function toCSIError(err: unknown): CSIError {
  if (err instanceof CSIError) return err;
  const e = err as Partial<grpc.ServiceError>;
  if (typeof e?.code === 'number') return new CSIError(e.code, e.details ?? e.message ?? '');
  return new CSIError(grpc.status.UNKNOWN, err instanceof Error ? err.message : String(err));
}

/**
 * `unix:///abs/path.sock`, `unix:/abs/path.sock` or `/abs/path.sock` → the gRPC target
 * `unix:///abs/path.sock`.
 * @throws CSIError InvalidArgument for anything else (CSI over TCP is not supported)
 */
export function unixTarget(endpoint: string): string {
  const p = endpoint.startsWith('unix://') ? endpoint.slice(7) : endpoint.startsWith('unix:') ? endpoint.slice(5) : endpoint;
  if (!p.startsWith('/')) throw new CSIError(grpc.status.INVALID_ARGUMENT, `unsupported CSI endpoint ${JSON.stringify(endpoint)}: want unix:///path/to/socket`);
  return `unix://${p}`;
}

/** A unary method: request object in, response object out; throw a CSIError for a status. */
// biome-ignore lint/suspicious/noExplicitAny: each method declares its own request message shape
export type UnaryImpl = (req: any) => Promise<object>;

/**
 * Serves `services` (service constructor → method name → implementation) on the unix
 * socket `socketPath` (a stale socket file is removed first). A method that throws a
 * CSIError answers with its code; any other error with Internal. Methods left out
 * answer Unimplemented (grpc-js' default).
 * @returns the server, bound and started
 */
export async function serveUnix(socketPath: string, services: [grpc.ServiceClientConstructor, Record<string, UnaryImpl>][]): Promise<grpc.Server> {
  fs.mkdirSync(path.dirname(socketPath), { recursive: true });
  fs.rmSync(socketPath, { force: true });
  const server = new grpc.Server();
  for (const [ctor, impl] of services) {
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const [name, fn] of Object.entries(impl)) {
      handlers[name] = (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        fn(call.request).then(
          (res) => cb(null, res),
          (e: unknown) => {
            const ce = e instanceof CSIError ? e : new CSIError(grpc.status.INTERNAL, e instanceof Error ? e.message : String(e));
            cb({ code: ce.code, details: ce.desc } as grpc.ServiceError, null);
          },
        );
      };
    }
    server.addService(ctor.service, handlers);
  }
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return server;
}

/** Stops a server from {@link serveUnix}: new calls are refused, running ones are cut after `graceMs`. */
export function stopServer(server: grpc.Server, graceMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(t);
      resolve();
    });
  });
}

export { grpc };
