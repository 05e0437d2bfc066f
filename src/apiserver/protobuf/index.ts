/**
 * Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), decoded
 * into the objects the JSON API works with. Replies are always JSON.
 */
export { decodeProtobufObject, preloadProtobuf, protobufRoot, PROTOBUF_KINDS, PROTOBUF_MAGIC, type DecodedObject } from './decode.js';
