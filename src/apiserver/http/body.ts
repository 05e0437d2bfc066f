/**
 * Decoding request bodies into objects: JSON, YAML and Kubernetes protobuf
 * (`k8s\0` + runtime.Unknown), with upstream's error texts for undecodable data.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/runtime/serializer/json/json.go
 */
import { parse as parseYAML } from 'yaml';
import type { KObject } from '../../api/resource.js';
import { newBadRequest, newUnsupportedMediaType } from '../../apimachinery/errors.js';
import { decodeProtobufObject } from '../protobuf/index.js';
import { bodyFormat } from './negotiate.js';

/** Upstream's limit on request bodies: 3 MiB. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export const ACCEPTED_OBJECT_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** Parses JSON text with upstream-like error messages. */
export function parseJSONBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw newBadRequest(`couldn't get version/kind; json parse error: ${msg}`);
  }
}

/**
 * Decodes an object body by Content-Type.
 * @throws StatusError 415 for unsupported types, 400 for undecodable bodies or non-objects
 */
export function decodeObjectBody(contentType: string | undefined, body: Buffer | undefined): KObject {
  const fmt = bodyFormat(contentType) ?? (contentType ? undefined : 'json');
  if (!body || body.length === 0) throw newBadRequest('the body of the request was empty');
  let v: unknown;
  switch (fmt) {
    case 'json':
      v = parseJSONBody(body.toString('utf8'));
      break;
    case 'yaml':
      try {
        v = parseYAML(body.toString('utf8'));
      } catch (e) {
        throw newBadRequest(`error converting YAML to JSON: ${e instanceof Error ? e.message : String(e)}`);
      }
      break;
    case 'protobuf':
      v = decodeProtobufObject(body).object;
      break;
    default:
      throw newUnsupportedMediaType(contentType ?? '', ACCEPTED_OBJECT_TYPES);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw newBadRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  return v as KObject;
}

/** meta/v1 DeleteOptions as a DELETE body carries it (JSON field names). */
export interface DeleteOptionsBody {
  apiVersion?: string;
  kind?: string;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun?: string[];
}

/**
 * Decodes the DeleteOptions body of a DELETE (or deletecollection) by Content-Type: JSON,
 * YAML or protobuf. Like upstream, any group version's DeleteOptions is accepted
 * (client-go sends `v1` DeleteOptions to core resources, `apps/v1` ones to apps …),
 * and a body without apiVersion/kind is taken as meta.k8s.io/v1 DeleteOptions.
 *
 * @returns the options; `{}` for an empty body
 * @throws StatusError 415 for unsupported types; 400 for undecodable bodies or another kind
 *   (`decoded object cannot be converted to DeleteOptions`)
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/delete.go
 */
export function decodeDeleteOptions(contentType: string | undefined, body: Buffer | undefined): DeleteOptionsBody {
  if (!body || body.length === 0) return {};
  const o = decodeObjectBody(contentType, body) as DeleteOptionsBody;
  if (o.kind && o.kind !== 'DeleteOptions') throw newBadRequest('decoded object cannot be converted to DeleteOptions');
  return o;
}
