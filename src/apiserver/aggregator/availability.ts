/**
 * The APIServices' Available condition (upstream's remote and local
 * AvailableConditionControllers). An APIService without a Service is `Local` (always
 * available). One with a Service is checked in upstream's order, and the first failing
 * check is the reason:
 *
 * - `ServiceNotFound` — `service/<name> in "<ns>" is not present`
 * - for ClusterIP Services: `ServicePortError` — `service/<name> in "<ns>" is not listening on port <port>`;
 *   `EndpointsNotFound` — `cannot find endpoints for service/<name> in "<ns>"`;
 *   `MissingEndpoints` — `endpoints for service/<name> in "<ns>" have no addresses with port name "<port name>"`
 * - `FailedDiscoveryCheck` — a GET of `/apis/<group>/<version>` on the backend (front-proxy
 *   identity `system:kube-aggregator` in `system:masters`, TLS not verified, 5 s) did not
 *   answer 2xx: `failing or missing response from <url>: …`
 * - otherwise `Passed` — `all checks passed`.
 *
 * The status is written only when it changed (the transition time only when the
 * condition's status did). Every APIService is checked again every 30 s (upstream's
 * resync), when its Service or Endpoints change, and after a failed check with backoff.
 *
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/controllers/status/remote/remote_available_controller.go
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/controllers/status/local/local_available_controller.go
 */
import * as https from 'node:https';
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import { localAvailableCondition } from '../../api/apiregistration/v1/apiservice/local.js';
import type { APIService, APIServiceCondition } from '../../api/apiregistration/v1/apiservice/strategy.js';
import type { KObject } from '../../api/resource.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import type { Informer } from '../../client/informer.js';
import type { Client } from '../../client/types.js';
import { type Clock, realClock, type TimerHandle } from '../../util/clock.js';
import { dialErrorText, type ProxyClientCert } from './proxy.js';
import { KeyQueue } from './queue.js';
import { hostPort, resolveServiceEndpoint, type ServiceLookup } from '../util/service-resolver.js';
import { APISERVICES } from './resources.js';

/** Upstream's resync of every APIService, ms. */
const RESYNC_MS = 30_000;
/** Timeout of one discovery check, ms (upstream: the client's 5 s). */
const CHECK_TIMEOUT_MS = 5_000;

export interface AvailabilityOptions {
  client: Client;
  apiServices: Informer<APIService>;
  services: Informer<Service & KObject>;
  endpoints: Informer<Endpoints & KObject>;
  /** where the discovery check goes (the shared service resolver's lookup) */
  resolver: ServiceLookup;
  proxyClient: ProxyClientCert;
  clock?: Clock;
  /** resync period, ms (default 30 000) */
  resyncMs?: number;
}

/** Upstream SetAPIServiceCondition: the transition time is kept while the status is unchanged. */
function setCondition(svc: APIService, c: APIServiceCondition): void {
  const list = (svc.status ??= {}).conditions ?? [];
  const i = list.findIndex((x) => x.type === c.type);
  if (i < 0) {
    svc.status.conditions = [...list, c];
    return;
  }
  const old = list[i]!;
  const next = { ...c, lastTransitionTime: old.status === c.status ? old.lastTransitionTime : c.lastTransitionTime };
  svc.status.conditions = list.map((x, j) => (j === i ? next : x));
}

/**
 * GETs `url` as the aggregator would; resolves to undefined on a 2xx/3xx answer, else to the error text.
 */
export function discoveryCheck(host: string, port: number, path: string, client: ProxyClientCert): Promise<string | undefined> {
  const url = `https://${hostPort(host, port)}${path}`;
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: string | undefined): void => {
      if (settled) return;
      settled = true;
      resolve(v);
    };
    const req = https.request(
      {
        host,
        port,
        path,
        method: 'GET',
        cert: client.cert,
        key: client.key,
        rejectUnauthorized: false,
        agent: false,
        headers: { 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters' },
      },
      (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        done(code < 200 || code >= 300 ? `failing or missing response from ${url}: bad status from ${url}: ${code}` : undefined);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done(`failing or missing response from ${url}: Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
    }, CHECK_TIMEOUT_MS);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e: NodeJS.ErrnoException) => done(`failing or missing response from ${url}: Get "${url}": ${dialErrorText(e, { host, port })}`));
    req.end();
  });
}

/** Keeps every APIService's Available condition current. */
export class AvailableConditionController {
  private readonly queue: KeyQueue;
  private readonly clock: Clock;
  private resync?: TimerHandle;

  constructor(private readonly o: AvailabilityOptions) {
    this.clock = o.clock ?? realClock;
    this.queue = new KeyQueue({ sync: (k) => this.sync(k), clock: this.clock });
  }

  start(): void {
    const enqueueFor = (o: KObject): void => {
      for (const a of this.o.apiServices.list()) {
        const s = a.spec?.service;
        if (s && s.name === o.metadata?.name && s.namespace === o.metadata?.namespace) this.queue.add(a.metadata!.name!);
      }
    };
    this.o.apiServices.addEventHandler({ add: (a) => this.queue.add(a.metadata!.name!), update: (_, a) => this.queue.add(a.metadata!.name!) });
    for (const inf of [this.o.services, this.o.endpoints]) inf.addEventHandler({ add: enqueueFor, update: (_, o) => enqueueFor(o), delete: enqueueFor });
    const tick = (): void => {
      for (const a of this.o.apiServices.list()) this.queue.add(a.metadata!.name!);
      this.resync = this.clock.setTimeout(tick, this.o.resyncMs ?? RESYNC_MS);
    };
    this.resync = this.clock.setTimeout(tick, this.o.resyncMs ?? RESYNC_MS);
  }

  stop(): void {
    if (this.resync) this.clock.clearTimeout(this.resync);
    this.queue.stop();
  }

  /** One APIService's check (upstream sync); rejects to be retried with backoff. */
  async sync(name: string): Promise<void> {
    const original = this.o.apiServices.getByName('', name);
    if (!original) return;
    const apiService = structuredClone(original);
    const now = new Date(this.clock.now());
    const svcRef = apiService.spec?.service;
    if (!svcRef) {
      setCondition(apiService, localAvailableCondition(now));
      return this.update(original, apiService);
    }
    const ns = svcRef.namespace ?? '';
    const svcName = svcRef.name ?? '';
    const port = svcRef.port ?? 443;
    const cond = (status: APIServiceCondition['status'], reason: string, message: string): APIServiceCondition => ({
      type: 'Available',
      status,
      lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      reason,
      message,
    });
    const fail = (reason: string, message: string): Promise<void> => {
      setCondition(apiService, cond('False', reason, message));
      return this.update(original, apiService);
    };
    const service = this.o.services.getByName(ns, svcName);
    if (!service) return fail('ServiceNotFound', `service/${svcName} in "${ns}" is not present`);
    if ((service.spec?.type ?? 'ClusterIP') === 'ClusterIP') {
      const sp = (service.spec?.ports ?? []).find((p) => p.port === port);
      if (!sp) return fail('ServicePortError', `service/${svcName} in "${ns}" is not listening on port ${port}`);
      const portName = sp.name ?? '';
      const eps = this.o.endpoints.getByName(ns, svcName);
      if (!eps) return fail('EndpointsNotFound', `cannot find endpoints for service/${svcName} in "${ns}"`);
      const active = (eps.subsets ?? []).some((ss) => (ss.addresses ?? []).length > 0 && (ss.ports ?? []).some((p) => (p.name ?? '') === portName));
      if (!active) return fail('MissingEndpoints', `endpoints for service/${svcName} in "${ns}" have no addresses with port name "${portName}"`);
    }
    let error: string | undefined;
    try {
      const to = await resolveServiceEndpoint(this.o.resolver, ns, svcName, port);
      const spec = apiService.spec!;
      const path = name === 'v1.' ? `/api/${spec.version}` : `/apis/${spec.group}/${spec.version}`;
      error = await discoveryCheck(to.host, to.port, path, this.o.proxyClient);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    if (error !== undefined) {
      await fail('FailedDiscoveryCheck', error);
      throw new Error(error); // retried with backoff, as upstream
    }
    setCondition(apiService, cond('True', 'Passed', 'all checks passed'));
    return this.update(original, apiService);
  }

  private async update(original: APIService, next: APIService): Promise<void> {
    if (jsonEqual(original.status ?? {}, next.status ?? {})) return;
    await this.o.client.update<APIService>(APISERVICES, '', next, { subresource: 'status' });
  }
}
