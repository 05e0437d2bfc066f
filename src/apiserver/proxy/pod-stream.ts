/**
 * The common part of pods/exec, pods/attach and pods/portforward: decode the
 * options, admit them (CONNECT: webhooks and policies matching `pods/exec` see the
 * PodExecOptions), check the pod, container and node as upstream, then proxy the client's
 * upgrade to the kubelet URL (query values `1` for the stream flags, `command` per
 * argument, `port` as a comma list).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/strategy.go (streamParams, streamLocation)
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newBadRequest } from '../../apimachinery/errors.js';
import { queryBool } from '../../api/core/v1/pod/log-options.js';
import type { ResourceContext } from '../endpoints/resource.js';
import type { StoreLookup, SubresourceHandler } from '../subresources/types.js';
import type { KubeletClient } from './kubelet.js';
import { getPod, kubeletOf, seg, validateContainer } from './pod-location.js';
import { takeUpgrade } from './upgrade.js';

type Kind = 'exec' | 'attach' | 'portforward';

/** The kubelet path and query for `kind` on `pod` (upstream streamParams). */
export function kubeletStreamPath(kind: Kind, pod: Pod, container: string, q: URLSearchParams): string {
  const ns = seg(pod.metadata?.namespace ?? '');
  const name = seg(pod.metadata?.name ?? '');
  const p = new URLSearchParams();
  if (kind === 'portforward') {
    const ports: string[] = [];
    for (const v of q.getAll('ports')) {
      for (const one of v.split(',')) {
        if (!one) continue;
        const n = Number(one);
        if (!Number.isInteger(n) || n < 1 || n > 65535) throw newBadRequest(`invalid port ${JSON.stringify(one)}: must be between 1 and 65535, inclusive`);
        ports.push(String(n));
      }
    }
    if (ports.length) p.append('port', ports.join(','));
    const qs = p.toString();
    return `/portForward/${ns}/${name}${qs ? `?${qs}` : ''}`;
  }
  for (const f of ['stdin', 'stdout', 'stderr', 'tty']) if (queryBool(q, f)) p.append(f, '1');
  if (kind === 'exec') for (const c of q.getAll('command')) p.append('command', c);
  return `/${kind}/${ns}/${name}/${seg(container)}?${p.toString()}`;
}

/**
 * The options object of a connect request as admission sees it (v1 PodExecOptions,
 * PodAttachOptions, PodPortForwardOptions decoded from the query; members in Go's order,
 * false and empty ones left out as Go's omitempty does, `command` always present).
 */
export function connectOptions(kind: Kind, optionsKind: string, q: URLSearchParams): Record<string, unknown> {
  const o: Record<string, unknown> = { kind: optionsKind, apiVersion: 'v1' };
  if (kind === 'portforward') {
    const ports = q
      .getAll('ports')
      .flatMap((v) => v.split(','))
      .filter(Boolean)
      .map(Number)
      .filter((n) => Number.isInteger(n));
    if (ports.length) o.ports = ports;
    return o;
  }
  for (const f of ['stdin', 'stdout', 'stderr', 'tty']) if (queryBool(q, f)) o[f] = true;
  const container = q.get('container');
  if (container) o.container = container;
  if (kind === 'exec') {
    const command = q.getAll('command');
    o.command = command.length ? command : null;
  }
  return o;
}

/** A subresource handler for `kind` (verbs get — WebSocket — and create — SPDY POST). */
export function streamSubresource(kind: Kind, optionsKind: string, kubelet: KubeletClient): SubresourceHandler {
  return {
    group: '',
    version: 'v1',
    resource: 'pods',
    subresource: kind,
    responseKind: { group: '', version: 'v1', kind: optionsKind },
    verbs: ['create', 'get'],
    async handle(c: ResourceContext, stores: StoreLookup) {
      if (c.info.verb !== 'get' && c.info.verb !== 'create') throw newBadRequest(`${c.req.method} is not supported on pods/${kind}`);
      // CONNECT admission with the options object, before the pod is looked at (upstream ConnectResource)
      const user = c.req.user ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] };
      await c.store.admitRequest({
        operation: 'CONNECT',
        namespace: c.info.namespace,
        name: c.info.name,
        subresource: kind,
        kind: { group: '', version: 'v1', kind: optionsKind },
        object: connectOptions(kind, optionsKind, c.query) as never,
        user,
      });
      const up = takeUpgrade(c.req);
      const pod = await getPod(c);
      const container = kind === 'portforward' ? '' : validateContainer(pod, c.query.get('container') ?? undefined);
      if (!pod.spec?.nodeName) throw newBadRequest(`pod ${c.info.name} does not have a host assigned`);
      const loc = await kubeletOf(pod, stores, kubelet);
      const path = kubeletStreamPath(kind, pod, container, c.query);
      if (!up) throw newBadRequest('Upgrade request required');
      await kubelet.proxyUpgrade(up, loc, path);
    },
  };
}
