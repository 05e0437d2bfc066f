/**
 * How runtime errors read in events and statuses. The remote (gRPC) runtime's
 * errors print as Go's gRPC status errors do, and upstream shows them that way:
 * `rpc error: code = NotFound desc = failed to pull and unpack image …`.
 */
import { CRIError } from '../../cri/api.js';

/** `err.Error()` of a CRI error: `rpc error: code = <Code> desc = <message>`. */
export function criErrorString(e: unknown): string {
  // the remote runtime's messages already read as Go's (`rpc error: code = NotFound desc = …`)
  if (e instanceof CRIError) return e.message.startsWith('rpc error: ') ? e.message : `rpc error: code = ${e.code} desc = ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** `grpcstatus.Convert(err).Message()`: only the description. */
export function criErrorMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const desc = /^rpc error: code = \w+ desc = ([\s\S]*)$/.exec(m);
  return desc ? desc[1]! : m;
}

export function isNotFound(e: unknown): boolean {
  return e instanceof CRIError && e.code === 'NotFound';
}
