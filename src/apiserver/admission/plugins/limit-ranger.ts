/**
 * LimitRanger admission: applies each LimitRange of the namespace to new pods — default
 * limits and requests for containers that set none (recorded in the
 * `kubernetes.io/limit-ranger` annotation), then min/max/maxLimitRequestRatio per
 * Container and per Pod, and storage min/max per PersistentVolumeClaim.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/limitranger/admission.go
 */
import type { Container, LimitRange, LimitRangeItem, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import { compareQuantity, formatQuantity, milliValue, type Quantity } from '../../../apimachinery/quantity.js';
import { podLimits, podRequests, quantityOf, type Resources } from '../../../api/core/v1/helpers/resources.js';
import type { Pod } from '../../../api/core/v1/pod/types.js';
import type { AdmissionPlugin } from '../types.js';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';
const LR = { group: '', version: 'v1', resource: 'limitranges' };
type RL = Record<string, string>;

function parse(m: RL | undefined): Resources {
  const out: Resources = {};
  for (const [k, v] of Object.entries(m ?? {})) out[k] = quantityOf(v);
  return out;
}

/** Defaults for one container; returns the annotation parts it set. */
function mergeContainer(c: Container, defLimits: RL, defRequests: RL, kind: string): string[] {
  const res = (c.resources ??= {}) as { limits?: RL; requests?: RL };
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(defLimits)) {
    if (res.limits?.[k] === undefined) {
      (res.limits ??= {})[k] = v;
      setLimits.push(k);
    }
  }
  for (const [k, v] of Object.entries(defRequests)) {
    if (res.requests?.[k] === undefined) {
      (res.requests ??= {})[k] = v;
      setRequests.push(k);
    }
  }
  const out: string[] = [];
  if (setRequests.length) out.push(`${setRequests.sort().join(', ')} request for ${kind} ${c.name}`);
  if (setLimits.length) out.push(`${setLimits.sort().join(', ')} limit for ${kind} ${c.name}`);
  return out;
}

const fmt = (q: Quantity): string => formatQuantity(q);

function minConstraint(type: string, name: string, min: Quantity, req: Resources, lim: Resources): string | undefined {
  const r = req[name];
  const l = lim[name];
  if (!r) return `minimum ${name} usage per ${type} is ${fmt(min)}.  No request is specified`;
  if (compareQuantity(r, min) < 0) return `minimum ${name} usage per ${type} is ${fmt(min)}, but request is ${fmt(r)}`;
  if (l && compareQuantity(l, min) < 0) return `minimum ${name} usage per ${type} is ${fmt(min)}, but limit is ${fmt(l)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, max: Quantity, req: Resources, lim: Resources): string | undefined {
  const r = req[name];
  const l = lim[name];
  if (!l) return `maximum ${name} usage per ${type} is ${fmt(max)}.  No limit is specified`;
  if (compareQuantity(l, max) > 0) return `maximum ${name} usage per ${type} is ${fmt(max)}, but limit is ${fmt(l)}`;
  if (r && compareQuantity(r, max) > 0) return `maximum ${name} usage per ${type} is ${fmt(max)}, but request is ${fmt(r)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, ratio: Quantity, req: Resources, lim: Resources): string | undefined {
  const r = req[name];
  const l = lim[name];
  if (!r || milliValue(r) === 0) return `${name} max limit to request ratio per ${type} is ${fmt(ratio)}, but no request is specified or request is 0`;
  if (!l || milliValue(l) === 0) return `${name} max limit to request ratio per ${type} is ${fmt(ratio)}, but no limit is specified or limit is 0`;
  const observed = milliValue(l) / milliValue(r);
  const max = milliValue(ratio) / 1000;
  if (observed > max) return `${name} max limit to request ratio per ${type} is ${fmt(ratio)}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
}

function checkItem(type: string, it: LimitRangeItem, req: Resources, lim: Resources, errs: string[]): void {
  for (const [k, v] of Object.entries(parse(it.min as RL))) {
    const e = minConstraint(type, k, v, req, lim);
    if (e) errs.push(e);
  }
  for (const [k, v] of Object.entries(parse(it.max as RL))) {
    const e = maxConstraint(type, k, v, req, lim);
    if (e) errs.push(e);
  }
  for (const [k, v] of Object.entries(parse(it.maxLimitRequestRatio as RL))) {
    const e = ratioConstraint(type, k, v, req, lim);
    if (e) errs.push(e);
  }
}

/** Upstream utilerrors aggregate text: one error as is, several as `[a, b]`. */
export function aggregate(errs: string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

export const limitRanger: AdmissionPlugin = {
  name: 'LimitRanger',
  async admit(a, lookup) {
    if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource || !a.object) return;
    const ranges = (await lookup.list(LR, a.namespace)) as unknown as LimitRange[];
    if (!ranges.length) return;
    const pod = a.object as unknown as Pod & { metadata: { annotations?: Record<string, string> } };
    // defaults from the first Container item per resource (upstream merges all LimitRanges)
    const defLimits: RL = {};
    const defRequests: RL = {};
    for (const lr of ranges) {
      for (const it of lr.spec?.limits ?? []) {
        if (it.type !== 'Container') continue;
        for (const [k, v] of Object.entries((it.default ?? {}) as RL)) if (!(k in defLimits)) defLimits[k] = v;
        for (const [k, v] of Object.entries((it.defaultRequest ?? {}) as RL)) if (!(k in defRequests)) defRequests[k] = v;
      }
    }
    if (!Object.keys(defLimits).length && !Object.keys(defRequests).length) return;
    const notes: string[] = [];
    for (const c of pod.spec?.containers ?? []) notes.push(...mergeContainer(c as Container, defLimits, defRequests, 'container'));
    for (const c of pod.spec?.initContainers ?? []) notes.push(...mergeContainer(c as Container, defLimits, defRequests, 'init container'));
    if (notes.length) (pod.metadata.annotations ??= {})[LIMIT_RANGER_ANNOTATION] = `LimitRanger plugin set: ${notes.join('; ')}`;
  },
  async validate(a, lookup) {
    if (a.operation !== 'CREATE' || a.resource.group !== '' || a.subresource || !a.object) return;
    const isPod = a.resource.resource === 'pods';
    const isPVC = a.resource.resource === 'persistentvolumeclaims';
    if (!isPod && !isPVC) return;
    const ranges = (await lookup.list(LR, a.namespace)) as unknown as LimitRange[];
    if (!ranges.length) return;
    const errs: string[] = [];
    for (const lr of ranges) {
      for (const it of lr.spec?.limits ?? []) {
        if (isPod && it.type === 'Container') {
          const pod = a.object as unknown as Pod;
          for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
            const res = (c.resources ?? {}) as { limits?: RL; requests?: RL };
            checkItem('Container', it, parse(res.requests), parse(res.limits), errs);
          }
        } else if (isPod && it.type === 'Pod') {
          const pod = a.object as unknown as Pod;
          checkItem('Pod', it, podRequests(pod), podLimits(pod), errs);
        } else if (isPVC && it.type === 'PersistentVolumeClaim') {
          const pvc = a.object as unknown as PersistentVolumeClaim;
          const req = parse(pvc.spec?.resources?.requests as RL);
          const lim = parse(pvc.spec?.resources?.limits as RL);
          checkItem('PersistentVolumeClaim', { ...it, maxLimitRequestRatio: undefined }, req, Object.keys(lim).length ? lim : req, errs);
        }
      }
    }
    if (errs.length) throw newForbidden({ group: '', resource: a.resource.resource }, a.name, aggregate(errs));
  },
};
