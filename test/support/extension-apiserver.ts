/**
 * A small extension API server for the aggregation tests, in the manner of upstream's
 * sample-apiserver (group `wardle.example.com`, version `v1alpha1`, namespaced `flunders`):
 * HTTPS on 127.0.0.1 with a certificate for `<service>.<namespace>.svc` from a test CA; it
 * trusts a request only when its client certificate verifies against the front-proxy CA
 * (`requestheader-client-ca-file` of kube-system/extension-apiserver-authentication) with
 * an allowed name, and then takes the caller from `X-Remote-User` / `X-Remote-Group` /
 * `X-Remote-Extra-*`, which it records. It serves aggregated and legacy discovery, its
 * OpenAPI (`/openapi/v2`, `/openapi/v3` and the group-version document), a list, a get and
 * a watch of flunders.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createCA, issueCert, type KeyPairPEM } from '../../src/pki/pki.js';

export const GROUP = 'wardle.example.com';
export const VERSION = 'v1alpha1';

/** What the server saw of one trusted request. */
export interface SeenRequest {
  method: string;
  url: string;
  user: string;
  groups: string[];
  extra: Record<string, string[]>;
  /** CN of the client certificate */
  clientCN: string;
}

export interface ExtensionServer {
  port: number;
  ca: KeyPairPEM;
  seen: SeenRequest[];
  /** requests refused (no or untrusted client certificate) */
  refused: number;
  close(): Promise<void>;
}

const FLUNDER = (name: string) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'Flunder',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1', creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: { reference: 'x' },
});

const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${GROUP}/${VERSION}`,
  resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list', 'watch'], shortNames: ['fl'] }],
};

const FLUNDER_GVK = [{ group: GROUP, kind: 'Flunder', version: VERSION }];
const FLUNDER_SCHEMA = {
  description: 'Flunder is the kind the test extension server serves.',
  type: 'object',
  properties: {
    apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
    kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
    metadata: { description: 'Standard object metadata.', type: 'object' },
    spec: {
      description: 'FlunderSpec is what a flunder wants.',
      type: 'object',
      properties: { reference: { description: 'Reference names another flunder.', type: 'string' } },
    },
  },
  'x-kubernetes-group-version-kind': FLUNDER_GVK,
};
/** The extension server's OpenAPI v3 group-version document. */
export const OPENAPI_V3_DOC = {
  openapi: '3.0.0',
  info: { title: 'Wardle', version: 'v0.1.0' },
  // kubectl explain finds a resource's kind through the GET operation of its path
  paths: {
    [`/apis/${GROUP}/${VERSION}/namespaces/{namespace}/flunders/{name}`]: {
      get: {
        responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/com.example.wardle.v1alpha1.Flunder' } } } } },
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': FLUNDER_GVK[0],
      },
    },
  },
  components: { schemas: { 'com.example.wardle.v1alpha1.Flunder': FLUNDER_SCHEMA } },
};
/** The extension server's OpenAPI v2 (Swagger) document. */
export const OPENAPI_V2_DOC = {
  swagger: '2.0',
  info: { title: 'Wardle', version: 'v0.1.0' },
  paths: {
    [`/apis/${GROUP}/${VERSION}/namespaces/{namespace}/flunders/{name}`]: {
      get: {
        responses: { '200': { schema: { $ref: '#/definitions/com.example.wardle.v1alpha1.Flunder' } } },
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': FLUNDER_GVK[0],
      },
    },
  },
  definitions: { 'com.example.wardle.v1alpha1.Flunder': FLUNDER_SCHEMA },
};

function send(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  res.writeHead(code, { 'Content-Type': contentType });
  res.end(JSON.stringify(body));
}

/** Starts the server; `frontProxyCA` is the PEM the cluster publishes as requestheader-client-ca-file. */
export async function startExtensionServer(o: { frontProxyCA: string; allowedNames: string[]; serviceName: string; namespace: string }): Promise<ExtensionServer> {
  const ca = await createCA('test-extension-ca');
  const cert = await issueCert(ca, {
    commonName: 'extension-apiserver',
    dnsNames: [`${o.serviceName}.${o.namespace}.svc`, 'localhost'],
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  const seen: SeenRequest[] = [];
  const state = { refused: 0 };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const sock = req.socket as TLSSocket;
    const peer = sock.getPeerCertificate();
    const cn = peer?.subject?.CN;
    const clientCN = Array.isArray(cn) ? cn[0]! : (cn ?? '');
    if (!sock.authorized || (o.allowedNames.length && !o.allowedNames.includes(clientCN))) {
      state.refused++;
      send(res, 401, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      return;
    }
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (!k.startsWith('x-remote-extra-')) continue;
      extra[decodeURIComponent(k.slice('x-remote-extra-'.length))] = (Array.isArray(v) ? v : String(v).split(',')).map((s) => s.trim());
    }
    const groupsHeader = req.headers['x-remote-group'];
    const groups = (Array.isArray(groupsHeader) ? groupsHeader : groupsHeader ? String(groupsHeader).split(',') : []).map((s) => s.trim());
    seen.push({ method: req.method ?? '', url: req.url ?? '', user: String(req.headers['x-remote-user'] ?? ''), groups, extra, clientCN });
    const url = new URL(req.url ?? '/', 'https://x');
    const p = url.pathname.replace(/\/$/, '');
    if (p === '/apis') {
      if (String(req.headers.accept ?? '').includes('as=APIGroupDiscoveryList')) {
        const doc = {
          kind: 'APIGroupDiscoveryList',
          apiVersion: 'apidiscovery.k8s.io/v2',
          metadata: {},
          items: [
            {
              metadata: { name: GROUP },
              versions: [
                {
                  version: VERSION,
                  resources: [
                    {
                      resource: 'flunders',
                      responseKind: { group: GROUP, version: VERSION, kind: 'Flunder' },
                      scope: 'Namespaced',
                      singularResource: 'flunder',
                      verbs: ['get', 'list', 'watch'],
                      shortNames: ['fl'],
                    },
                  ],
                  freshness: 'Current',
                },
              ],
            },
          ],
        };
        return send(res, 200, doc, 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      }
      return send(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: GROUP, versions: [{ groupVersion: `${GROUP}/${VERSION}`, version: VERSION }] }] });
    }
    if (p === `/apis/${GROUP}/${VERSION}`) return send(res, 200, RESOURCE_LIST);
    if (p === '/openapi/v2') return send(res, 200, OPENAPI_V2_DOC);
    if (p === '/openapi/v3') return send(res, 200, { paths: { [`apis/${GROUP}/${VERSION}`]: { serverRelativeURL: `/openapi/v3/apis/${GROUP}/${VERSION}?hash=0123` } } });
    if (p === `/openapi/v3/apis/${GROUP}/${VERSION}`) return send(res, 200, OPENAPI_V3_DOC);
    const m = /^\/apis\/wardle\.example\.com\/v1alpha1\/namespaces\/([^/]+)\/flunders(?:\/([^/]+))?$/.exec(p);
    if (m && req.method === 'GET') {
      if (m[2])
        return m[2] === 'alpha'
          ? send(res, 200, FLUNDER('alpha'))
          : send(res, 404, {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: `flunders.wardle.example.com "${m[2]}" not found`,
              reason: 'NotFound',
              details: { name: m[2], group: GROUP, kind: 'flunders' },
              code: 404,
            });
      if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        res.flushHeaders();
        // one object added after the list the watcher started from
        const t = setTimeout(() => {
          res.write(`${JSON.stringify({ type: 'ADDED', object: FLUNDER('beta') })}\n`);
        }, 300);
        req.on('close', () => clearTimeout(t));
        return;
      }
      return send(res, 200, { kind: 'FlunderList', apiVersion: `${GROUP}/${VERSION}`, metadata: { resourceVersion: '1' }, items: [FLUNDER('alpha')] });
    }
    send(res, 404, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
  };
  const server: Server = createServer({ cert: cert.cert, key: cert.key, ca: o.frontProxyCA, requestCert: true, rejectUnauthorized: false }, handler);
  const open = new Set<import('node:stream').Duplex>();
  server.on('connection', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    port,
    ca,
    seen,
    get refused() {
      return state.refused;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
