/**
 * The filter-table chains that enforce {@link PodFilter}s, in kube-router's manner: a
 * top chain (jumped to from FORWARD, and from INPUT for packets from the node's pods)
 * lets replies of tracked connections pass, then sends packets from an egress-isolated
 * pod to that pod's egress chain and packets to an ingress-isolated pod to its ingress
 * chain. A pod chain clears its "allowed" mark bit, sets it for every allowed flow
 * (an ipBlock with `except` through a small chain that returns early for the exceptions)
 * and drops what is still unmarked. Nothing is ever ACCEPTed here: what passes goes on
 * through the rest of FORWARD/INPUT untouched.
 *
 * Every chain is named `K8TS-NP-<tag>-…` (28 characters at most): `<tag>` is one node
 * agent's, so parallel agents on one host never share a chain and a restart finds its
 * own chains to replace or delete.
 *
 * @see https://github.com/cloudnativelabs/kube-router/blob/master/pkg/controllers/netpol/pod.go
 * @see https://github.com/cloudnativelabs/kube-router/blob/master/pkg/controllers/netpol/policy.go
 */
import { createHash } from 'node:crypto';
import type { Match, PodFilter } from './policy.js';

/** Mark bits meaning "an ingress rule allows it" / "an egress rule allows it" (kube-router's). */
export const INGRESS_MARK = '0x10000';
export const EGRESS_MARK = '0x20000';

const hash = (s: string, n = 12): string => createHash('sha256').update(s).digest('hex').slice(0, n).toUpperCase();

/** The chain prefix of one agent: `K8TS-NP-<6 hex of key>-` (key: node name and podCIDR). */
export function chainPrefix(key: string): string {
  return `K8TS-NP-${hash(key, 6)}-`;
}

/** The top chain of an agent's prefix. */
export const topChain = (prefix: string): string => `${prefix}TOP`;

export interface RenderedRules {
  /** every chain to declare (created or flushed), the top chain first */
  chains: string[];
  /** `-A …` lines in order */
  rules: string[];
}

const quote = (s: string): string => `"${s.replace(/["\\]/g, '')}"`;

function portMatch(m: Match): string[] {
  if (!m.protocol) return [];
  const p = m.protocol.toLowerCase();
  if (m.port === undefined) return ['-p', p];
  return ['-p', p, '-m', p, '--dport', m.endPort !== undefined ? `${m.port}:${m.endPort}` : String(m.port)];
}

/** Renders the chains for `filters` under `prefix`. Deterministic: equal input, equal output. */
export function renderRules(prefix: string, filters: PodFilter[]): RenderedRules {
  const top = topChain(prefix);
  const chains = [top];
  const rules: string[] = [`-A ${top} -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN`];
  const body: string[] = [];
  const podChain = (dir: 'ingress' | 'egress', f: PodFilter, matches: Match[]): void => {
    const ns = f.pod.namespace;
    const name = f.pod.name;
    const key = `${dir}/${ns}/${name}/${f.pod.ip}`;
    const chain = `${prefix}${dir === 'ingress' ? 'I' : 'E'}${hash(key)}`;
    const mark = dir === 'ingress' ? INGRESS_MARK : EGRESS_MARK;
    const peer = dir === 'ingress' ? '-s' : '-d';
    chains.push(chain);
    rules.push(`-A ${top} ${dir === 'ingress' ? '-d' : '-s'} ${f.pod.ip}/32 -m comment --comment ${quote(`${dir} of ${ns}/${name}`)} -j ${chain}`);
    body.push(`-A ${chain} -j MARK --set-xmark 0x0/${mark}`);
    matches.forEach((m, i) => {
      const spec = [...(m.cidr ? [peer, m.cidr] : []), ...portMatch(m), '-m', 'comment', '--comment', quote(m.policy)].join(' ');
      if (m.except?.length) {
        const sub = `${prefix}B${hash(`${key}/${i}`)}`;
        chains.push(sub);
        body.push(`-A ${chain} ${spec} -j ${sub}`);
        for (const x of m.except) body.push(`-A ${sub} ${peer} ${x} -j RETURN`);
        body.push(`-A ${sub} -j MARK --set-xmark ${mark}/${mark}`);
      } else body.push(`-A ${chain} ${spec} -j MARK --set-xmark ${mark}/${mark}`);
    });
    body.push(`-A ${chain} -m mark ! --mark ${mark}/${mark} -m comment --comment ${quote(`default deny ${dir} of ${ns}/${name}`)} -j DROP`);
  };
  const withIP = filters.filter((f) => f.pod.ip).sort((a, b) => (`${a.pod.namespace}/${a.pod.name}` < `${b.pod.namespace}/${b.pod.name}` ? -1 : 1));
  // egress of the sender first, then ingress of the receiver: a packet between two local pods needs both
  for (const f of withIP) if (f.egress) podChain('egress', f, f.egress);
  for (const f of withIP) if (f.ingress) podChain('ingress', f, f.ingress);
  return { chains, rules: [...rules, ...body] };
}
