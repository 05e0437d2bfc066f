/**
 * OpenTelemetry export of pod creation traces (`--tracing-config-file`): an OTLP/HTTP
 * receiver written here collects what the server exports; each pod's trace arrives as one
 * trace ID with spans from kube-apiserver, kube-scheduler and kubelet; a create request's
 * W3C traceparent is honoured (the pod's root span is its child, in its trace).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { request } from 'node:https';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startCluster, eventually, freePort, MANIFESTS, type Cluster } from './harness.js';

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, string>;
}

/** A minimal OTLP/HTTP JSON traces receiver (POST /v1/traces). */
function otlpReceiver(port: number): Promise<{ server: Server; spans: ReceivedSpan[]; posts: string[] }> {
  const spans: ReceivedSpan[] = [];
  const posts: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')?.value?.stringValue ?? '';
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const attributes: Record<string, string> = {};
            for (const a of s.attributes ?? []) attributes[a.key] = String(a.value?.stringValue ?? a.value?.intValue ?? a.value?.boolValue ?? '');
            spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, attributes });
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, spans, posts })));
}

/** POST a pod with a traceparent header, with the kubeconfig's client certificate. */
function createPodWithTraceparent(kubeconfig: string, ns: string, pod: object, traceparent: string): Promise<number> {
  const kc = parse(readFileSync(kubeconfig, 'utf8'));
  const server = new URL(kc.clusters[0].cluster.server);
  const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
  const body = JSON.stringify(pod);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: server.hostname,
        port: server.port,
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/pods`,
        ca: b64(kc.clusters[0].cluster['certificate-authority-data']),
        cert: b64(kc.users[0].user['client-certificate-data']),
        key: b64(kc.users[0].user['client-key-data']),
        headers: { 'Content-Type': 'application/json', traceparent, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('e2e: pod traces over OpenTelemetry (--tracing-config-file)', () => {
  let c: Cluster;
  let rx: Awaited<ReturnType<typeof otlpReceiver>>;
  before(async () => {
    const port = await freePort();
    rx = await otlpReceiver(port);
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-otel-'));
    const cfg = join(dir, 'tracing.yaml');
    writeFileSync(cfg, `apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:${port}\nsamplingRatePerMillion: 1000000\n`);
    c = await startCluster({ args: ['--tracing-config-file', cfg] });
  });
  after(async () => {
    await c?.stop();
    rx?.server.close();
  });

  it('exports one trace per pod with spans from kube-apiserver, kube-scheduler and kubelet under one trace ID', async () => {
    const r = c.kubectl(['apply', '-f', join(MANIFESTS, 'simple-pod.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    const mine = await eventually(() => {
      const s = rx.spans.filter((x) => x.attributes['k8s.pod.name'] === 'nginx' && x.attributes['k8s.namespace.name'] === 'default');
      return s.some((x) => x.name === 'Running') && s.some((x) => x.name === 'Pod creation') ? s : undefined;
    }, 30_000);
    assert.match(rx.posts[0]!, /^POST \/v1\/traces application\/json/);
    const traceIds = new Set(mine.map((s) => s.traceId));
    assert.equal(traceIds.size, 1, [...traceIds].join(' '));
    assert.match([...traceIds][0]!, /^[0-9a-f]{32}$/);
    const services = new Set(mine.map((s) => s.service));
    assert.deepEqual([...services].sort(), ['kube-apiserver', 'kube-scheduler', 'kubelet']);
    const root = mine.find((s) => s.name === 'Pod creation')!;
    assert.equal(root.parentSpanId, '');
    for (const s of mine) if (s !== root) assert.equal(s.parentSpanId, root.spanId, s.name);
    const byService = (svc: string): string[] => mine.filter((s) => s.service === svc).map((s) => s.name);
    assert.ok(byService('kube-apiserver').includes('Authentication'));
    assert.ok(byService('kube-apiserver').includes('StorageCommit'));
    assert.ok(byService('kube-scheduler').includes('QueueWait'));
    assert.ok(byService('kube-scheduler').includes('Filter NodeResourcesFit'));
    assert.ok(byService('kubelet').includes('RunPodSandbox'));
    assert.ok(byService('kubelet').includes('StartContainer nginx'));
    assert.equal(mine.find((s) => s.name === 'RunPodSandbox')?.attributes['k8ts.step.seed'], '15');
    // another pod: another trace
    assert.equal(c.kubectl(['run', 'second', '--image=nginx']).code, 0);
    const second = await eventually(() => {
      const s = rx.spans.filter((x) => x.attributes['k8s.pod.name'] === 'second');
      return s.some((x) => x.name === 'Running') ? s : undefined;
    }, 30_000);
    assert.equal(new Set(second.map((s) => s.traceId)).size, 1);
    assert.ok(!traceIds.has(second[0]!.traceId));
  });

  it('continues the trace of the create request’s traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const code = await createPodWithTraceparent(
      c.kubeconfig,
      'default',
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'traced' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
      `00-${traceId}-${parent}-01`,
    );
    assert.equal(code, 201);
    const spans = await eventually(() => {
      const s = rx.spans.filter((x) => x.attributes['k8s.pod.name'] === 'traced');
      return s.some((x) => x.name === 'Running') && s.some((x) => x.name === 'Pod creation') ? s : undefined;
    }, 30_000);
    assert.deepEqual([...new Set(spans.map((s) => s.traceId))], [traceId]);
    assert.equal(spans.find((s) => s.name === 'Pod creation')?.parentSpanId, parent);
  });
});
