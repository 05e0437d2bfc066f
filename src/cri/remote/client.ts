/**
 * Low-level CRI v1 gRPC client: loads api.proto once, opens one channel to a unix
 * socket shared by `runtime.v1.RuntimeService` and `runtime.v1.ImageService`, and turns
 * each unary RPC into a promise whose failures are `CRIError`s.
 *
 * Messages use proto-loader's object form: lowerCamelCase field names, enums as their
 * names (`'CONTAINER_RUNNING'`), int64 as JS numbers (ns timestamps lose sub-µs digits),
 * bytes as Buffer, absent sub-messages as null, absent maps as {}.
 *
 * @see https://github.com/kubernetes/cri-api/blob/v0.32.0/pkg/apis/runtime/v1/api.proto
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/cri-client/pkg/remote_runtime.go
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { CRIError, type CRIErrorCode } from '../api.js';

/** Absolute path of the CRI subset .proto this client speaks. */
export const PROTO_PATH = fileURLToPath(new URL('./api.proto', import.meta.url));

/** Upstream kubelet's default `--runtime-request-timeout` (2 min), in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** The kubelet's max gRPC message size for CRI (16 MiB), in bytes. */
const MAX_MSG_BYTES = 16 * 1024 * 1024;

let pkgCache: grpc.GrpcObject | undefined;
function criPackage(): grpc.GrpcObject {
  if (!pkgCache) {
    const def = protoLoader.loadSync(PROTO_PATH, {
      keepCase: false,
      longs: Number,
      enums: String,
      defaults: true,
      arrays: true,
      objects: true,
    });
    pkgCache = grpc.loadPackageDefinition(def);
  }
  return pkgCache;
}

/**
 * Accepts `unix:///abs/path.sock`, `unix:/abs/path.sock` or a bare absolute path and
 * returns the gRPC target `unix:///abs/path.sock`.
 * @throws CRIError InvalidArgument for any other scheme (CRI over TCP is not supported).
 */
export function criTarget(endpoint: string): string {
  let path: string;
  if (endpoint.startsWith('unix://')) path = endpoint.slice('unix://'.length);
  else if (endpoint.startsWith('unix:')) path = endpoint.slice('unix:'.length);
  else if (endpoint.startsWith('/')) path = endpoint;
  else throw new CRIError('InvalidArgument', `unsupported CRI endpoint ${JSON.stringify(endpoint)}: want unix:///path/to/socket`);
  if (!path.startsWith('/')) throw new CRIError('InvalidArgument', `CRI endpoint ${JSON.stringify(endpoint)} is not an absolute socket path`);
  return `unix://${path}`;
}

const CODE_NAMES: Partial<Record<grpc.status, CRIErrorCode>> = {
  [grpc.status.NOT_FOUND]: 'NotFound',
  [grpc.status.ALREADY_EXISTS]: 'AlreadyExists',
  [grpc.status.INVALID_ARGUMENT]: 'InvalidArgument',
  [grpc.status.UNAVAILABLE]: 'Unavailable',
  [grpc.status.DEADLINE_EXCEEDED]: 'DeadlineExceeded',
  [grpc.status.UNIMPLEMENTED]: 'Unimplemented',
};

/** Upstream Go spelling of status codes, for "rpc error: code = X desc = Y". */
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
 * Maps a gRPC failure to a `CRIError`. The message is what upstream's kubelet sees
 * and prints in events (`rpc error: code = NotFound desc = …`); codes without a
 * CRIErrorCode of their own become 'Unknown'.
 */
export function toCRIError(err: unknown): CRIError {
  if (err instanceof CRIError) return err;
  const e = err as Partial<grpc.ServiceError>;
  if (typeof e?.code === 'number') {
    const desc = e.details ?? e.message ?? '';
    return new CRIError(CODE_NAMES[e.code as grpc.status] ?? 'Unknown', `rpc error: code = ${GO_CODE_NAMES[e.code] ?? e.code} desc = ${desc}`);
  }
  return new CRIError('Unknown', err instanceof Error ? err.message : String(err));
}

type Unary = (req: object, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

/** One connection to a CRI endpoint: both services over one channel. */
export class CRIClient {
  readonly target: string;
  private readonly channel: grpc.Channel;
  private readonly runtime: grpc.Client;
  private readonly image: grpc.Client;
  private readonly meta = new grpc.Metadata();

  /** @param endpoint `unix:///path.sock` (see criTarget). Connects lazily. */
  constructor(endpoint: string) {
    this.target = criTarget(endpoint);
    const pkg = criPackage() as unknown as { runtime: { v1: Record<string, grpc.ServiceClientConstructor> } };
    const opts: grpc.ChannelOptions = {
      'grpc.max_receive_message_length': MAX_MSG_BYTES,
      'grpc.max_send_message_length': MAX_MSG_BYTES,
    };
    this.channel = new grpc.Channel(this.target, grpc.credentials.createInsecure(), opts);
    const { RuntimeService, ImageService } = pkg.runtime.v1;
    this.runtime = new RuntimeService!(this.target, grpc.credentials.createInsecure(), { channelOverride: this.channel });
    this.image = new ImageService!(this.target, grpc.credentials.createInsecure(), { channelOverride: this.channel });
  }

  /**
   * Resolves once the channel is connected.
   * @throws CRIError Unavailable when it is not connected within `timeoutMs`.
   */
  waitForReady(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.runtime.waitForReady(Date.now() + timeoutMs, (err) => {
        if (err) reject(new CRIError('Unavailable', `CRI endpoint ${this.target} not ready after ${timeoutMs} ms: ${err.message}`));
        else resolve();
      });
    });
  }

  /** Calls `runtime.v1.RuntimeService/<method>` with a deadline of `timeoutMs`. */
  callRuntime<T>(method: string, req: object, timeoutMs: number): Promise<T> {
    return this.call(this.runtime, method, req, timeoutMs);
  }

  /** Calls `runtime.v1.ImageService/<method>` with a deadline of `timeoutMs`. */
  callImage<T>(method: string, req: object, timeoutMs: number): Promise<T> {
    return this.call(this.image, method, req, timeoutMs);
  }

  private call<T>(client: grpc.Client, method: string, req: object, timeoutMs: number): Promise<T> {
    const fn = (client as unknown as Record<string, Unary>)[method];
    if (!fn) return Promise.reject(new CRIError('Unimplemented', `CRI method ${method} is not in api.proto`));
    return new Promise<T>((resolve, reject) => {
      fn.call(client, req, this.meta, { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err) reject(toCRIError(err));
        else resolve(res as T);
      });
    });
  }

  /** Closes the channel; pending calls fail with Unavailable/Cancelled. */
  close(): void {
    this.runtime.close();
    this.image.close();
    this.channel.close();
  }
}
