/**
 * The three shapes of error kube-apiserver gives for a bad patch, as StatusErrors:
 * 400 BadRequest with the error text, 422 Invalid through NewGenericServerResponse
 * (which drops the text), and 500 with an empty reason for errors that are not Status
 * errors (upstream's ErrorToAPIStatus fallback).
 *
 * @see https://github.com/kubernetes/apiserver/blob/release-1.32/pkg/endpoints/handlers/patch.go
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/api/errors/errors.go (NewGenericServerResponse)
 * @see https://github.com/kubernetes/apiserver/blob/release-1.32/pkg/endpoints/handlers/responsewriters/status.go (ErrorToAPIStatus)
 */
import { StatusError, failureStatus, newBadRequest } from '../errors.js';

/** 400 BadRequest carrying `message` (upstream `errors.NewBadRequest(err.Error())`). */
export function patchBadRequest(message: string): StatusError {
  return newBadRequest(message);
}

/**
 * 422 Invalid as `errors.NewGenericServerResponse(422, "", GroupResource{}, "", msg, 0, false)`
 * builds it: the message is the generic one, the detailed `cause` text never reaches the
 * client (it is kept as the Error's `cause` for logs), and `details` is `{}`.
 */
export function patchUnprocessable(cause: string): StatusError {
  const err = new StatusError(failureStatus(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
  err.cause = new Error(cause);
  return err;
}

/**
 * 400 BadRequest with the raw error text of a patch the merge code cannot apply (no merge
 * key, an unknown `$patch`, list elements of different types). Upstream passes these
 * plain Go errors through as 500 with no reason; the patch is the client's error, so it
 * is answered 4xx here, with upstream's text.
 */
export function patchInternal(message: string): StatusError {
  return new StatusError(failureStatus(400, 'BadRequest', message));
}
