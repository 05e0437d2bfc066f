/**
 * The shape every step of the handler chain shares: a handler takes one request and
 * answers it on the writer; a filter wraps a handler in one concern (authentication,
 * audit, …) and returns the wrapped handler.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/server/config.go (DefaultBuildHandlerChain)
 */
import type { ApiRequest, ResponseWriter } from '../http/types.js';

/**
 * Serves one request. Resolves when the response is written (or, for watches and
 * streams, when it ends); errors are written to `res` as metav1.Status, so a handler
 * rejects only on a programming error (the panic-recovery filter answers those).
 */
export type Handler = (req: ApiRequest, res: ResponseWriter) => Promise<void>;
