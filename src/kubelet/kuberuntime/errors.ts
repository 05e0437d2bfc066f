/**
 * How runtime errors read in events and statuses. The remote (gRPC) runtime's
 * errors print as Go's gRPC status errors do, and upstream shows them that way:
 * `rpc error: code = NotFound desc = failed to pull and unpack image …`.
 */
import { CRIError } from '../../cri/api.js';

/** `err.Error()` of a CRI error: `rpc error: code = <Code> desc = <message>`. */
export function criErrorString(e: unknown): string {
  if (e instanceof CRIError) return `rpc error: code = ${e.code} desc = ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** `grpcstatus.Convert(err).Message()`: only the description. */
export function criErrorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function isNotFound(e: unknown): boolean {
  return e instanceof CRIError && e.code === 'NotFound';
}
