/**
 * IP family defaulting for Services (upstream initIPFamilyFields): ipFamilyPolicy
 * defaulted (SingleStack; RequireDualStack for headless Services without selector; the old
 * policy on update), ipFamilies inferred from clusterIPs or the cluster default, and the
 * requested families checked against those the cluster is configured for.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/service/storage/alloc.go
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import { newInvalid } from '../../../../apimachinery/errors.js';
import { type FieldError, invalid, Path } from '../../../../apimachinery/field-errors.js';
import { parseIPSloppy } from '../../../../apimachinery/validation.js';
import type { O } from '../shared/types.js';
import { validateServiceClusterIPsRelatedFields } from './validation.js';

/** A Service IP family. */
export type Family = 'IPv4' | 'IPv6';
/** The family of a (valid) address. */
export const familyOf = (ip: string): Family => (parseIPSloppy(ip) === 6 ? 'IPv6' : 'IPv4');

const spec = Path.root('spec');
const invalidService = (svc: O<Service>, errs: FieldError[]) => newInvalid({ group: '', kind: 'Service' }, svc.metadata.name ?? '', errs);
const same = (a: string[] = [], b: string[] = []): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

/** Upstream isMatchingPreferDualStackClusterIPFields: a PreferDualStack update that changes nothing IP-related. */
export function isMatchingPreferDualStack(old: O<Service>, svc: O<Service>): boolean {
  const s = svc.spec ?? {};
  const o = old.spec ?? {};
  if (s.ipFamilyPolicy === undefined) return false;
  if (o.type !== s.type) return false;
  if (s.type !== 'ClusterIP' && s.type !== 'NodePort' && s.type !== 'LoadBalancer') return false;
  if (s.ipFamilyPolicy !== 'PreferDualStack') return false;
  if (o.ipFamilyPolicy !== undefined && o.ipFamilyPolicy !== 'PreferDualStack') return false;
  return same(o.clusterIPs, s.clusterIPs) && same(o.ipFamilies, s.ipFamilies);
}

/**
 * Upstream initIPFamilyFields. Mutates `svc`.
 *
 * @param configured the families the cluster has a service CIDR for
 * @param defaultFamily the family of the first service CIDR
 * @throws StatusError 422 with upstream's messages (e.g. `spec.ipFamilyPolicy: Invalid value:
 *   "RequireDualStack": this cluster is not configured for dual-stack services`)
 */
export function initIPFamilyFields(svc: O<Service>, old: O<Service> | undefined, configured: Set<Family>, defaultFamily: Family): void {
  const s = (svc.spec ??= {});
  if (s.type === 'ExternalName') return;
  if (old && isMatchingPreferDualStack(old, svc)) return;
  const headlessSelectorless = s.clusterIP === 'None' && Object.keys(s.selector ?? {}).length === 0;
  if (s.ipFamilyPolicy === undefined) {
    if (old?.spec?.ipFamilyPolicy !== undefined) s.ipFamilyPolicy = old.spec.ipFamilyPolicy;
    else s.ipFamilyPolicy = headlessSelectorless ? 'RequireDualStack' : 'SingleStack';
  }
  const pre = validateServiceClusterIPsRelatedFields(svc);
  if (pre.length > 0) throw invalidService(svc, pre);
  const el: FieldError[] = [];
  const policy = s.ipFamilyPolicy;
  const polPath = spec.child('ipFamilyPolicy');
  if (old) {
    const oldIPs = old.spec?.clusterIPs ?? [];
    const oldFams = old.spec?.ipFamilies ?? [];
    if (policy === 'SingleStack') {
      if (same(oldIPs, s.clusterIPs ?? []) && (s.clusterIPs?.length ?? 0) > 1) s.clusterIPs = s.clusterIPs!.slice(0, 1);
      if (same(oldFams, s.ipFamilies ?? []) && (s.ipFamilies?.length ?? 0) > 1) s.ipFamilies = s.ipFamilies!.slice(0, 1);
    } else {
      const n = s.clusterIPs?.length ?? 0;
      if (n > 0 && n < oldIPs.length) el.push(invalid(polPath, policy, "must be 'SingleStack' to release the secondary cluster IP"));
      const f = s.ipFamilies?.length ?? 0;
      if (f > 0 && f < oldFams.length) el.push(invalid(polPath, policy, "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  if (policy === 'SingleStack') {
    if ((s.clusterIPs?.length ?? 0) === 2) el.push(invalid(polPath, policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if ((s.ipFamilies?.length ?? 0) === 2) el.push(invalid(polPath, policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  const ips = s.clusterIPs ?? [];
  for (let i = 0; i < ips.length; i++) {
    if (ips[i] === 'None') break;
    const fam = familyOf(ips[i]!);
    if (i >= (s.ipFamilies?.length ?? 0)) {
      if (!configured.has(fam)) el.push(invalid(spec.child('clusterIPs').index(i), ips, `${fam} is not configured on this cluster`));
      else s.ipFamilies = [...(s.ipFamilies ?? []), fam];
    }
  }
  if (el.length > 0) throw invalidService(svc, el);
  if (headlessSelectorless) {
    if ((s.ipFamilies?.length ?? 0) === 0) s.ipFamilies = [defaultFamily];
    if (s.ipFamilies!.length < 2 && s.ipFamilyPolicy !== 'SingleStack') s.ipFamilies = [...s.ipFamilies!, s.ipFamilies![0] === 'IPv4' ? 'IPv6' : 'IPv4'];
    return;
  }
  if (policy === 'RequireDualStack' && configured.size < 2) el.push(invalid(polPath, policy, 'this cluster is not configured for dual-stack services'));
  (s.ipFamilies ?? []).forEach((f, i) => {
    if (!configured.has(f as Family)) el.push(invalid(spec.child('ipFamilies').index(i), f, 'not configured on this cluster'));
  });
  if (el.length > 0) throw invalidService(svc, el);
  if ((s.ipFamilies?.length ?? 0) === 0) s.ipFamilies = [defaultFamily];
  if (s.ipFamilyPolicy !== 'SingleStack' && s.ipFamilies!.length === 1 && configured.size === 2) {
    s.ipFamilies = [...s.ipFamilies!, s.ipFamilies![0] === 'IPv4' ? 'IPv6' : 'IPv4'];
  }
}
