/**
 * ClusterIP and NodePort allocation for Services, run from the store hooks as upstream's
 * REST layer (alloc.go) does around the storage write: IP family fields defaulted
 * (initIPFamilyFields), ClusterIPs and NodePorts (and the health-check node port)
 * allocated on create and on type changes, released on delete.
 *
 * State is in memory, rebuilt lazily from the stored Services (through `ctx.lookup`) on
 * first use. Because the hooks cannot see whether the write that follows them succeeded
 * (failed creates, dry runs, releases on update), values are reconciled with storage on
 * demand: when a requested value is held by an allocation older than `reclaimGraceMs`, or
 * when a range is full, the allocator re-lists the Services and keeps only what they use
 * (plus allocations younger than the grace period, i.e. writes still in flight).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/service/storage/alloc.go
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import { newInternalError, newInvalid, type StatusError } from '../../../../apimachinery/errors.js';
import { type FieldError, invalid, Path } from '../../../../apimachinery/field-errors.js';
import type { GroupVersionResource, ObjectLookup } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { AllocationError, IPRange, type OffsetAllocator, PortRange } from './allocator.js';
import { isHeadless, needsHealthCheck, shouldAllocateNodePorts } from './defaults.js';
import { type Family, familyOf, initIPFamilyFields, isMatchingPreferDualStack } from './families.js';

const SERVICES: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
const SERVICE_GK = { group: '', kind: 'Service' };
const spec = Path.root('spec');

/** Options of {@link ServiceAllocator}. */
export interface ServiceAllocatorOptions {
  /** one CIDR, or two (IPv4 and IPv6) separated by a comma; the first is the default family */
  serviceCIDR: string;
  /** `30000-32767` (default) */
  nodePortRange?: string;
  /** ms clock (injectable for tests); default Date.now */
  clock?: () => number;
  /** [0,1) random source for dynamic allocation; default Math.random */
  random?: () => number;
  /** allocations younger than this are never reclaimed (ms); default 60000 */
  reclaimGraceMs?: number;
}

const keyOf = (svc: O<Service>): string => `${svc.metadata.namespace ?? ''}/${svc.metadata.name || `${svc.metadata.generateName ?? ''}*`}`;

/** One allocation operation: what it took, so that a failure gives it all back. */
class Txn {
  readonly taken: Array<[OffsetAllocator, number]> = [];
  revert(): void {
    for (const [a, off] of this.taken) a.delete(off);
    this.taken.length = 0;
  }
}

/** Allocates ClusterIPs and NodePorts for one API server. */
export class ServiceAllocator {
  readonly ranges = new Map<Family, IPRange>();
  readonly defaultFamily: Family;
  readonly ports: PortRange;
  private readonly clock: () => number;
  private readonly grace: number;
  private init: Promise<void> | undefined;
  private lookup: ObjectLookup | undefined;

  /** @throws Error on a malformed CIDR or port range */
  constructor(opts: ServiceAllocatorOptions) {
    const random = opts.random ?? Math.random;
    this.clock = opts.clock ?? Date.now;
    this.grace = opts.reclaimGraceMs ?? 60_000;
    const cidrs = opts.serviceCIDR
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    if (cidrs.length === 0 || cidrs.length > 2) throw new Error(`invalid service CIDR: ${opts.serviceCIDR}`);
    for (const c of cidrs) {
      const r = new IPRange(c, random);
      if (this.ranges.has(r.family)) throw new Error(`invalid service CIDR: ${opts.serviceCIDR}: one CIDR per IP family`);
      this.ranges.set(r.family, r);
    }
    this.defaultFamily = this.ranges.keys().next().value as Family;
    this.ports = new PortRange(opts.nodePortRange ?? '30000-32767', random);
  }

  /** Loads the state from storage once (lazily, on the first allocation or release). */
  ensureInit(lookup: ObjectLookup | undefined): Promise<void> {
    if (lookup && !this.lookup) this.lookup = lookup;
    this.init ??= this.rebuild().catch((e: unknown) => {
      this.init = undefined;
      throw e;
    });
    return this.init;
  }

  /**
   * Re-derives the allocations from the stored Services, keeping allocations younger than
   * the grace period (their write may still be in flight).
   */
  async rebuild(): Promise<void> {
    if (!this.lookup) return;
    const services = (await this.lookup.list(SERVICES, '')) as O<Service>[];
    const now = this.clock();
    const allocators: OffsetAllocator[] = [...[...this.ranges.values()].map((r) => r.alloc), this.ports.alloc];
    const young = allocators.map((a) => [...a.entries()].filter(([, h]) => now - h.at < this.grace));
    allocators.forEach((a) => a.clear());
    for (const svc of services) {
      const owner = keyOf(svc);
      const h = { owner, at: now };
      if (svc.spec?.type !== 'ExternalName') {
        for (const ip of svc.spec?.clusterIPs ?? []) {
          const r = this.ranges.get(familyOf(ip));
          const off = r?.offsetOf(ip);
          if (r && off !== undefined) r.alloc.set(off, h);
        }
      }
      const nps = (svc.spec?.ports ?? []).map((p) => p.nodePort ?? 0);
      nps.push(svc.spec?.healthCheckNodePort ?? 0);
      for (const np of nps) {
        const off = np ? this.ports.offsetOf(np) : undefined;
        if (off !== undefined) this.ports.alloc.set(off, h);
      }
    }
    allocators.forEach((a, i) => {
      for (const [off, h] of young[i]!) if (!a.get(off)) a.set(off, h);
    });
  }

  /** Takes a specific offset; reconciles with storage once if a stale allocation holds it. */
  private async take(a: OffsetAllocator, off: number, owner: string, txn: Txn, allocatedMsg: string): Promise<void> {
    let h = a.get(off);
    if (h && this.clock() - h.at >= this.grace) {
      await this.rebuild();
      h = a.get(off);
    }
    if (h) throw new AllocationError('allocated', allocatedMsg);
    a.set(off, { owner, at: this.clock() });
    txn.taken.push([a, off]);
  }

  /** Takes any free offset; reconciles with storage once when full. */
  private async takeNext(a: OffsetAllocator, owner: string, txn: Txn): Promise<number> {
    let off = a.findFree();
    if (off === undefined) {
      await this.rebuild();
      off = a.findFree();
    }
    if (off === undefined) throw new AllocationError('full', 'range is full');
    a.set(off, { owner, at: this.clock() });
    txn.taken.push([a, off]);
    return off;
  }

  /** Upstream initIPFamilyFields (see {@link initIPFamilyFields}). */
  initIPFamilyFields(svc: O<Service>, old: O<Service> | undefined): void {
    initIPFamilyFields(svc, old, new Set(this.ranges.keys()), this.defaultFamily);
  }

  /** Allocates the ClusterIPs of families [from, …) (upstream allocClusterIPs). */
  private async allocClusterIPs(svc: O<Service>, txn: Txn, from = 0): Promise<void> {
    const s = svc.spec!;
    if (s.type === 'ExternalName' || isHeadless(svc)) return;
    const ips = [...(s.clusterIPs ?? [])];
    const fams = s.ipFamilies ?? [];
    const owner = keyOf(svc);
    for (let i = from; i < fams.length; i++) {
      const r = this.ranges.get(fams[i] as Family)!;
      const want = ips[i] ?? '';
      if (!want) {
        ips[i] = r.ipAt(await this.takeNext(r.alloc, owner, txn).catch((e: unknown) => rethrowFull(e, 'failed to allocate a serviceIP')));
        continue;
      }
      const off = r.offsetOf(want);
      try {
        if (off === undefined) throw r.notInRange();
        await this.take(r.alloc, off, owner, txn, 'provided IP is already allocated');
      } catch (e) {
        if (!(e instanceof AllocationError)) throw e;
        throw invalidService(svc, [invalid(spec.child('clusterIPs'), s.clusterIPs ?? [], `failed to allocate IP ${want}: ${e.message}`)]);
      }
    }
    s.clusterIPs = ips;
    s.clusterIP = ips[0];
  }

  private async takePort(svc: O<Service>, port: number, path: Path, txn: Txn): Promise<void> {
    const off = this.ports.offsetOf(port);
    try {
      if (off === undefined) throw this.ports.notInRange();
      await this.take(this.ports.alloc, off, keyOf(svc), txn, 'provided port is already allocated');
    } catch (e) {
      if (!(e instanceof AllocationError)) throw e;
      throw invalidService(svc, [invalid(path, port, e.message)]);
    }
  }

  private async nextPort(svc: O<Service>, txn: Txn, what: string): Promise<number> {
    const off = await this.takeNext(this.ports.alloc, keyOf(svc), txn).catch((e: unknown) => rethrowFull(e, what));
    return this.ports.portAt(off);
  }

  /** Upstream initNodePorts (create). */
  private async initNodePorts(svc: O<Service>, txn: Txn): Promise<void> {
    const ports = svc.spec?.ports ?? [];
    const byPort = new Map<number, number>();
    for (let i = 0; i < ports.length; i++) {
      const sp = ports[i]!;
      if (!sp.nodePort && !shouldAllocateNodePorts(svc)) continue;
      const allocated = byPort.get(sp.port) ?? 0;
      if (!allocated) {
        const np = ports.find((p) => p.port === sp.port && p.nodePort)?.nodePort ?? 0;
        if (np) {
          await this.takePort(svc, np, spec.child('ports').index(i).child('nodePort'), txn);
          sp.nodePort = np;
        } else {
          sp.nodePort = await this.nextPort(svc, txn, 'failed to allocate a nodePort');
        }
        byPort.set(sp.port, sp.nodePort);
      } else if (sp.nodePort !== allocated) {
        if (!sp.nodePort) sp.nodePort = allocated;
        else await this.takePort(svc, sp.nodePort, spec.child('ports').index(i).child('nodePort'), txn);
      }
    }
  }

  private async allocHealthCheckNodePort(svc: O<Service>, txn: Txn): Promise<void> {
    const s = svc.spec!;
    if (s.healthCheckNodePort) {
      const off = this.ports.offsetOf(s.healthCheckNodePort);
      try {
        if (off === undefined) throw this.ports.notInRange();
        await this.take(this.ports.alloc, off, keyOf(svc), txn, 'provided port is already allocated');
      } catch (e) {
        if (!(e instanceof AllocationError)) throw e;
        throw newInternalError(new Error(`failed to allocate requested HealthCheck NodePort ${s.healthCheckNodePort}: ${e.message}`));
      }
    } else {
      s.healthCheckNodePort = await this.nextPort(svc, txn, 'failed to allocate a HealthCheck NodePort 0');
    }
  }

  /**
   * Everything a create needs (upstream beginCreate → allocateCreate): IP family fields,
   * ClusterIPs, NodePorts, health-check node port. Mutates `svc`.
   *
   * @throws StatusError 422 Invalid (upstream's messages, e.g. `spec.clusterIPs: Invalid value:
   *   []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: provided IP is not in the valid range.
   *   The range of valid IPs is 10.96.0.0/12`), 500 when a range is full
   */
  async allocateCreate(svc: O<Service>, lookup: ObjectLookup | undefined): Promise<void> {
    await this.ensureInit(lookup);
    this.initIPFamilyFields(svc, undefined);
    const txn = new Txn();
    try {
      await this.allocClusterIPs(svc, txn);
      if (svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer') await this.initNodePorts(svc, txn);
      if (needsHealthCheck(svc)) await this.allocHealthCheckNodePort(svc, txn);
    } catch (e) {
      txn.revert();
      throw e;
    }
  }

  /**
   * Everything an update needs (upstream allocateUpdate): families, ClusterIPs on a change
   * from ExternalName or a dual-stack upgrade, NodePorts when (still) NodePort/LoadBalancer,
   * the health-check node port. Values the update gives up are not released here (the
   * write may still fail); they are reclaimed by reconciliation (see the module doc).
   *
   * @throws StatusError as {@link allocateCreate}
   */
  async allocateUpdate(svc: O<Service>, old: O<Service>, lookup: ObjectLookup | undefined): Promise<void> {
    await this.ensureInit(lookup);
    this.initIPFamilyFields(svc, old);
    const txn = new Txn();
    try {
      if (!isMatchingPreferDualStack(old, svc)) {
        if (old.spec?.type === 'ExternalName' && svc.spec?.type !== 'ExternalName') await this.allocClusterIPs(svc, txn);
        else if ((old.spec?.ipFamilies?.length ?? 0) === 1 && (svc.spec?.ipFamilies?.length ?? 0) === 2 && !isHeadless(old)) {
          await this.allocClusterIPs(svc, txn, 1);
        }
      }
      if (svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer') await this.updateNodePorts(svc, old, txn);
      if (needsHealthCheck(svc) && !needsHealthCheck(old)) await this.allocHealthCheckNodePort(svc, txn);
    } catch (e) {
      txn.revert();
      throw e;
    }
  }

  /** Upstream updateNodePorts: keep the old node ports, allocate new ones. */
  private async updateNodePorts(svc: O<Service>, old: O<Service>, txn: Txn): Promise<void> {
    const oldPorts = new Set((old.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n));
    const done = new Set<number>();
    const ports = svc.spec?.ports ?? [];
    for (let i = 0; i < ports.length; i++) {
      const sp = ports[i]!;
      if (!sp.nodePort && !shouldAllocateNodePorts(svc)) continue;
      if (sp.nodePort) {
        if (!oldPorts.has(sp.nodePort) && !done.has(sp.nodePort)) {
          await this.takePort(svc, sp.nodePort, spec.child('ports').index(i).child('nodePort'), txn);
          done.add(sp.nodePort);
        }
      } else {
        sp.nodePort = await this.nextPort(svc, txn, 'failed to allocate a nodePort');
      }
    }
  }

  /** After a successful create: the allocations belong to the Service's final name. */
  async confirmCreate(svc: O<Service>): Promise<void> {
    const owner = keyOf(svc);
    this.forEachValue(svc, (a, off) => {
      const h = a.get(off);
      if (h) h.owner = owner;
    });
  }

  /** After a delete: gives back every ClusterIP and node port of the Service. */
  async release(svc: O<Service>, lookup: ObjectLookup | undefined): Promise<void> {
    await this.ensureInit(lookup);
    const owner = keyOf(svc);
    this.forEachValue(svc, (a, off) => {
      const h = a.get(off);
      if (h && (h.owner === owner || h.owner.endsWith('*'))) a.delete(off);
    });
  }

  private forEachValue(svc: O<Service>, fn: (a: OffsetAllocator, off: number) => void): void {
    if (svc.spec?.type !== 'ExternalName' && !isHeadless(svc)) {
      for (const ip of svc.spec?.clusterIPs ?? []) {
        const r = this.ranges.get(familyOf(ip));
        const off = r?.offsetOf(ip);
        if (r && off !== undefined) fn(r.alloc, off);
      }
    }
    for (const np of [...(svc.spec?.ports ?? []).map((p) => p.nodePort ?? 0), svc.spec?.healthCheckNodePort ?? 0]) {
      const off = np ? this.ports.offsetOf(np) : undefined;
      if (off !== undefined) fn(this.ports.alloc, off);
    }
  }
}

/** 422 for a Service. */
function invalidService(svc: O<Service>, errs: FieldError[]): StatusError {
  return newInvalid(SERVICE_GK, svc.metadata.name ?? '', errs);
}

function rethrowFull(e: unknown, what: string): never {
  if (e instanceof AllocationError) throw newInternalError(new Error(`${what}: ${e.message}`));
  throw e;
}
