/**
 * The node's service proxy in kube-proxy's iptables mode: informers on Services and
 * EndpointSlices (and this node's Node for its addresses), a bounded-frequency sync
 * (a change is programmed at once unless a sync ran less than `minSyncPeriodMs` ago, then
 * at that bound: upstream's `--iptables-min-sync-period`, default 1 s) and a periodic
 * resync (`--iptables-sync-period`, default 30 s). Each sync writes the whole rule set
 * with one `iptables-restore --noflush` and deletes the chains of Services that went away.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/proxy/iptables/proxier.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/util/async/bounded_frequency_runner.go
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { Informer } from '../client/informer.js';
import { R, type Client } from '../client/types.js';
import type { KObject } from '../api/resource.js';
import { IPTables, NetExec } from './iptables.js';
import { ProxyMetrics } from './metrics.js';
import { endpointsFor, servicePorts, sliceServiceKey } from './model.js';
import { buildRules, LARGE_CLUSTER_ENDPOINTS, type RuleSet, type ServicePortState } from './rules.js';

/** Every chain is rewritten at least this often (upstream proxyutil.FullSyncPeriod). */
const FULL_SYNC_PERIOD_MS = 3600_000;
import { cidrContains, localIPv4Addresses } from './addresses.js';

export interface ProxierOptions {
  /** reads services and endpointslices (list/watch) */
  client: Client;
  nodeName: string;
  /** where the commands run (a network namespace in tests); default this process's */
  exec?: NetExec;
  /** `--cluster-cidr`: pod traffic (not masqueraded to cluster IPs) */
  clusterCIDR?: string;
  /** `--masquerade-all` */
  masqueradeAll?: boolean;
  /** `--nodeport-addresses` CIDRs; empty/undefined = all local addresses */
  nodePortAddresses?: string[];
  /** `--iptables-localhost-nodeports` (default true) */
  localhostNodePorts?: boolean;
  /** `--iptables-min-sync-period`, ms (default 1000) */
  minSyncPeriodMs?: number;
  /** `--iptables-sync-period`, ms (default 30 000) */
  syncPeriodMs?: number;
  metrics?: ProxyMetrics;
  log?: (msg: string, err?: unknown) => void;
}

/** One sync's outcome, for callers and tests. */
export interface SyncResult {
  /** wall time of the sync, ms (rule build + iptables-save + iptables-restore) */
  durationMs: number;
  /** a full sync (every chain written), else partial */
  full: boolean;
  /** when the sync began (Date.now() ms) */
  startedAt: number;
  rules: RuleSet;
  services: number;
  endpoints: number;
}

export class Proxier {
  readonly metrics: ProxyMetrics;
  readonly iptables: IPTables;
  private readonly services: Informer<Service & KObject>;
  private readonly slices: Informer<EndpointSlice & KObject>;
  /** service key → slice name → slice */
  private readonly slicesByService = new Map<string, Map<string, EndpointSlice>>();
  private readonly minSync: number;
  private readonly syncPeriod: number;
  private timer?: NodeJS.Timeout;
  private periodic?: NodeJS.Timeout;
  private running = false;
  private pending = false;
  private lastSyncStart = 0;
  private lastJumpCheck = 0;
  private stopped = false;
  private initialized = false;
  private syncWaiters: { after: number; resolve: (r: SyncResult) => void }[] = [];
  private changeSeq = 0;
  /** Services (`ns/name`) whose Service or EndpointSlices changed since the last sync */
  private changed = new Set<string>();
  private needFullSync = true;
  private lastFullSync = 0;
  private lastCleanup = 0;
  /** the last successful sync */
  last?: SyncResult & { seq: number };

  constructor(private readonly o: ProxierOptions) {
    this.metrics = o.metrics ?? new ProxyMetrics();
    this.iptables = new IPTables(o.exec ?? new NetExec());
    this.minSync = o.minSyncPeriodMs ?? 1000;
    this.syncPeriod = o.syncPeriodMs ?? 30_000;
    this.services = new Informer<Service & KObject>(o.client, R.services);
    this.slices = new Informer<EndpointSlice & KObject>(o.client, R.endpointslices);
  }

  /** Starts the informers, waits for their first lists and programs the rules once. */
  async start(): Promise<SyncResult> {
    const changed =
      (kind: 'service' | 'endpoint') =>
      (...keys: (string | undefined)[]): void => {
        (kind === 'service' ? this.metrics.serviceChangesTotal : this.metrics.endpointChangesTotal).inc({ ip_family: 'IPv4' });
        for (const k of keys) if (k) this.changed.add(k);
        this.changeSeq++;
        this.requestSync();
      };
    const onService = changed('service');
    const svcKey = (s: Service & KObject) => `${s.metadata?.namespace}/${s.metadata?.name}`;
    this.services.addEventHandler({ add: (s) => onService(svcKey(s)), update: (_, s) => onService(svcKey(s)), delete: (s) => onService(svcKey(s)) });
    const indexSlice = (s: EndpointSlice, del: boolean) => {
      const key = sliceServiceKey(s);
      if (!key) return;
      const m = this.slicesByService.get(key) ?? new Map<string, EndpointSlice>();
      if (del) m.delete(s.metadata?.name ?? '');
      else m.set(s.metadata?.name ?? '', s);
      if (m.size) this.slicesByService.set(key, m);
      else this.slicesByService.delete(key);
    };
    const onSlice = changed('endpoint');
    this.slices.addEventHandler({
      add: (s) => (indexSlice(s, false), onSlice(sliceServiceKey(s))),
      update: (old, s) => {
        if (sliceServiceKey(old) !== sliceServiceKey(s)) indexSlice(old, true);
        indexSlice(s, false);
        onSlice(sliceServiceKey(old), sliceServiceKey(s));
      },
      delete: (s) => (indexSlice(s, true), onSlice(sliceServiceKey(s))),
    });
    this.services.start();
    this.slices.start();
    await Promise.all([this.services.waitForSync(), this.slices.waitForSync()]);
    this.initialized = true;
    const first = this.syncedAfter(this.changeSeq);
    this.requestSync();
    this.periodic = setInterval(() => this.requestSync(), this.syncPeriod);
    this.periodic.unref?.();
    return first;
  }

  /** Stops watching and syncing; the rules stay (as upstream on exit). */
  stop(): void {
    this.stopped = true;
    this.services.stop();
    this.slices.stop();
    if (this.timer) clearTimeout(this.timer);
    if (this.periodic) clearInterval(this.periodic);
  }

  /** Resolves with the first successful sync that reflects every change seen so far. */
  waitForSync(): Promise<SyncResult> {
    return this.syncedAfter(this.changeSeq);
  }

  private syncedAfter(seq: number): Promise<SyncResult> {
    if (this.last && this.last.seq >= seq && !this.pending && !this.running) return Promise.resolve(this.last);
    return new Promise((resolve) => this.syncWaiters.push({ after: seq, resolve }));
  }

  /** Asks for a sync: now, or at the min-sync bound after the last one (BoundedFrequencyRunner). */
  requestSync(): void {
    if (this.stopped || !this.initialized) return;
    if (this.running) {
      this.pending = true;
      return;
    }
    if (this.timer) return;
    const wait = Math.max(0, this.lastSyncStart + this.minSync - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runSync();
    }, wait);
  }

  private async runSync(): Promise<void> {
    if (this.stopped) return;
    this.running = true;
    this.pending = false;
    this.lastSyncStart = Date.now();
    const seq = this.changeSeq;
    const changed = this.changed;
    this.changed = new Set();
    try {
      const r = await this.syncProxyRules(changed);
      this.last = { ...r, seq };
      for (const w of this.syncWaiters.filter((x) => x.after <= seq)) w.resolve(r);
      this.syncWaiters = this.syncWaiters.filter((x) => x.after > seq);
    } catch (e) {
      this.metrics.iptablesRestoreFailuresTotal.inc({ ip_family: 'IPv4' });
      this.o.log?.('kube-proxy: sync failed (retrying)', e);
      this.needFullSync = true;
      this.pending = true;
    } finally {
      this.running = false;
      if (this.pending) this.requestSync();
    }
  }

  /** The service ports and endpoints to program, sorted by service port name. */
  state(): ServicePortState[] {
    const out: ServicePortState[] = [];
    for (const svc of this.services.list()) {
      const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
      const slices = this.slicesByService.get(key)?.values() ?? [];
      const sliceList = [...slices];
      for (const info of servicePorts(svc)) out.push({ info, endpoints: endpointsFor(info, sliceList, this.o.nodeName) });
    }
    return out.sort((a, b) => (a.info.name < b.info.name ? -1 : a.info.name > b.info.name ? 1 : a.info.protocol < b.info.protocol ? -1 : 1));
  }

  /**
   * One sync (upstream syncProxyRules): full on the first run, after a failure and every
   * hour; otherwise partial — the top-level chains whole, and the own chains
   * (KUBE-SVC/SVL/EXT/FW/SEP) only of the Services in `changed`. Stale chains are found
   * with iptables-save on every sync, or once per sync period above 1,000 endpoints.
   * @throws CommandError when iptables fails
   */
  async syncProxyRules(changed: ReadonlySet<string> = new Set()): Promise<SyncResult> {
    const t0 = performance.now();
    const startedAt = Date.now();
    const full = this.needFullSync || Date.now() - this.lastFullSync > FULL_SYNC_PERIOD_MS;
    const localhostNodePorts = this.o.localhostNodePorts ?? true;
    if (Date.now() - this.lastJumpCheck > this.syncPeriod) {
      await this.iptables.ensureJumps(localhostNodePorts);
      this.lastJumpCheck = Date.now();
    }
    const state = this.state();
    let nodePortIPs: string[] | undefined;
    if (this.o.nodePortAddresses?.length) {
      const cidrs = this.o.nodePortAddresses;
      nodePortIPs = (await localIPv4Addresses(this.iptables.exec)).filter((ip) => cidrs.some((c) => cidrContains(c, ip)));
    }
    const totalEndpoints = state.reduce((n, x) => n + x.endpoints.length, 0);
    const cleanup = totalEndpoints <= LARGE_CLUSTER_ENDPOINTS || Date.now() - this.lastCleanup > this.syncPeriod;
    const existing = cleanup ? await this.iptables.chains('nat') : undefined;
    const rules = buildRules(state, {
      onlyServices: full ? undefined : changed,
      clusterCIDR: this.o.clusterCIDR,
      masqueradeAll: this.o.masqueradeAll,
      nodePortIPs,
      localhostNodePorts,
      randomFully: true,
      existingNatChains: existing,
    });
    await this.iptables.restore(rules.text);
    if (full) {
      this.needFullSync = false;
      this.lastFullSync = Date.now();
    }
    if (cleanup) this.lastCleanup = Date.now();
    const durationMs = performance.now() - t0;
    const m = this.metrics;
    const fam = { ip_family: 'IPv4' };
    m.syncProxyRulesLatency.observe(fam, durationMs / 1000);
    (full ? m.syncFullProxyRulesLatency : m.syncPartialProxyRulesLatency).observe(fam, durationMs / 1000);
    m.syncProxyRulesLastTimestamp.set(fam, Date.now() / 1000);
    m.iptablesRulesTotal.set({ table: 'filter', ...fam }, rules.filterRules);
    m.iptablesRulesLastSync.set({ table: 'filter', ...fam }, rules.filterRules);
    m.iptablesRulesTotal.set({ table: 'nat', ...fam }, rules.natRulesTotal);
    m.iptablesRulesLastSync.set({ table: 'nat', ...fam }, rules.natRules);
    m.noLocalEndpointsTotal.set({ traffic_policy: 'internal', ...fam }, rules.noLocalEndpoints.internal);
    m.noLocalEndpointsTotal.set({ traffic_policy: 'external', ...fam }, rules.noLocalEndpoints.external);
    m.serviceChangesPending.set(fam, 0);
    m.endpointChangesPending.set(fam, 0);
    return { durationMs, full, startedAt, rules, services: state.length, endpoints: totalEndpoints };
  }
}
