import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../http/request-info.js';
import { APIServerMetrics, reportedVerb, scopeOf } from './metrics.js';

const info = (method: string, url: string) => {
  const [path, q = ''] = url.split('?');
  return parseRequestInfo(method, path!, new URLSearchParams(q));
};

describe('apiserver metrics', () => {
  it('reports verbs and scopes as upstream (CleanVerb, CleanScope)', () => {
    assert.equal(reportedVerb(info('GET', '/api/v1/namespaces/a/pods'), undefined), 'LIST');
    assert.equal(reportedVerb(info('GET', '/api/v1/pods?watch=1'), undefined), 'WATCH');
    assert.equal(reportedVerb(info('PATCH', '/apis/apps/v1/namespaces/a/deployments/d'), 'application/apply-patch+yaml'), 'APPLY');
    assert.equal(reportedVerb(info('POST', '/api/v1/namespaces/a/pods/p/exec'), undefined), 'CONNECT');
    assert.equal(reportedVerb(info('DELETE', '/api/v1/namespaces/a/configmaps'), undefined), 'DELETECOLLECTION');
    assert.equal(scopeOf(info('POST', '/api/v1/namespaces/a/pods')), 'resource');
    assert.equal(scopeOf(info('GET', '/api/v1/namespaces/a/pods')), 'namespace');
    assert.equal(scopeOf(info('GET', '/api/v1/pods')), 'cluster');
  });

  it('counts finished requests by code, requests in flight and long-running requests', async () => {
    const m = new APIServerMetrics(() => [
      ['pods', 3],
      ['deployments.apps', 1],
    ]);
    const list = m.begin(info('GET', '/api/v1/namespaces/a/pods'), undefined, false, performance.now());
    const watch = m.begin(info('GET', '/api/v1/pods?watch=true'), undefined, false, performance.now());
    const create = m.begin(info('POST', '/api/v1/namespaces/a/configmaps'), 'application/json', true, performance.now());
    let text = (await m.exposition()).text;
    assert.match(text, /^apiserver_current_inflight_requests\{request_kind="readOnly"\} 1$/m);
    assert.match(text, /^apiserver_current_inflight_requests\{request_kind="mutating"\} 1$/m);
    assert.match(text, /^apiserver_longrunning_requests\{verb="WATCH",group="",version="v1",resource="pods",subresource="",scope="cluster",component="apiserver"\} 1$/m);
    list.done(200);
    list.done(200); // once only
    create.done(422);
    watch.done(200);
    const out = await m.exposition();
    text = out.text;
    assert.equal(out.contentType, 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(
      text,
      /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver",code="200"\} 1$/m,
    );
    assert.match(
      text,
      /^apiserver_request_total\{verb="POST",dry_run="All",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="422"\} 1$/m,
    );
    assert.match(text, /^apiserver_request_total\{verb="WATCH",.*code="200"\} 1$/m);
    assert.match(
      text,
      /^apiserver_request_duration_seconds_count\{verb="LIST",dry_run="",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver"\} 1$/m,
    );
    assert.doesNotMatch(text, /^apiserver_request_duration_seconds_count\{verb="WATCH"/m);
    assert.match(text, /^apiserver_current_inflight_requests\{request_kind="readOnly"\} 0$/m);
    assert.match(text, /^apiserver_longrunning_requests\{verb="WATCH",.*\} 0$/m);
    assert.match(text, /^apiserver_storage_objects\{resource="deployments.apps"\} 1$/m);
    assert.match(text, /^process_cpu_seconds_total \d/m);
  });
});
