/** The benchmark's MessagePort transport lives in src (the kwok worker of `k8ts server` uses it too). */
export { PortTransport, requestKind, servePort } from '../src/apiserver/port-transport.js';
