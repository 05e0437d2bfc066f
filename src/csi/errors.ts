/**
 * How the CSI callers classify a failed call, as upstream's: a final error means the
 * operation is not in progress on the driver any more; an infeasible error (a subset)
 * means retrying the same request cannot succeed; FailedPrecondition on an expansion
 * means the driver cannot expand the volume while it is in use.
 *
 * @see https://github.com/kubernetes-csi/external-resizer/blob/v1.13.1/pkg/util/util.go (IsFinalError, IsInfeasibleError)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_client.go (isFinalError)
 */
import { CSIError, grpc } from './grpc.js';

/** Not a gRPC status (failed before the call) or a code after which the operation may still run: not final. */
export function isFinalError(err: unknown): boolean {
  if (!(err instanceof CSIError)) return false;
  switch (err.code) {
    case grpc.status.CANCELLED:
    case grpc.status.DEADLINE_EXCEEDED:
    case grpc.status.UNAVAILABLE:
    case grpc.status.RESOURCE_EXHAUSTED:
    case grpc.status.ABORTED:
      return false;
    default:
      return true;
  }
}

/** InvalidArgument, OutOfRange or NotFound: the request itself cannot succeed. */
export function isInfeasibleError(err: unknown): boolean {
  if (!(err instanceof CSIError)) return false;
  return err.code === grpc.status.INVALID_ARGUMENT || err.code === grpc.status.OUT_OF_RANGE || err.code === grpc.status.NOT_FOUND;
}

/** FailedPrecondition: the driver expands this volume only while it is not in use. */
export function isInUseError(err: unknown): boolean {
  return err instanceof CSIError && err.code === grpc.status.FAILED_PRECONDITION;
}
