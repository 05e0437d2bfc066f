/**
 * Runs iptables, iptables-save, iptables-restore and ip(8) for the proxy, optionally
 * inside a network namespace (`nsenter --net=<path>`: the test harness gives each node
 * its own namespace; a real node runs in the host's). The rule text is applied in one
 * `iptables-restore --noflush` (atomic per table; other chains are left alone), as
 * upstream's utiliptables.RestoreAll with NoFlushTables.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/util/iptables/iptables.go
 */
import { execFile } from 'node:child_process';
import { FIREWALL_JUMPS, JUMP_RULES, type JumpRule } from './rules.js';
import {
  isServiceChainName,
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
} from './names.js';

/** A failed command: its argv, exit code and stderr. */
export class CommandError extends Error {
  constructor(
    readonly argv: string[],
    readonly code: number | string | null,
    readonly stderr: string,
  ) {
    super(`${argv.join(' ')}: exit ${code}: ${stderr.trim()}`);
    this.name = 'CommandError';
  }
}

/** Runs host networking commands, in the host's or a given network namespace. */
export class NetExec {
  /** @param netnsPath a network namespace file (e.g. /run/netns/<name>); undefined = this process's namespace */
  constructor(readonly netnsPath?: string) {}

  /** Runs `cmd args…`, feeding `input` on stdin; resolves stdout. @throws CommandError */
  run(cmd: string, args: string[], input?: string): Promise<string> {
    const argv = this.netnsPath ? ['nsenter', `--net=${this.netnsPath}`, '--', cmd, ...args] : [cmd, ...args];
    return new Promise((resolve, reject) => {
      const child = execFile(argv[0]!, argv.slice(1), { maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (err) reject(new CommandError(argv, (err as NodeJS.ErrnoException & { code?: number | string }).code ?? null, String(stderr)));
        else resolve(String(stdout));
      });
      if (input !== undefined) child.stdin!.end(input);
    });
  }
}

const ruleArgs = (j: JumpRule): string[] => [...j.extra, ...(j.comment ? ['-m', 'comment', '--comment', j.comment] : []), '-j', j.to];

/** iptables (IPv4) as the proxier uses it. */
export class IPTables {
  constructor(readonly exec: NetExec) {}

  /** `iptables-restore --noflush --counters`-less apply of a full restore text. @throws CommandError */
  async restore(text: string): Promise<void> {
    await this.exec.run('iptables-restore', ['-w', '5', '--noflush'], text);
  }

  /** The chain names of one table (iptables-save). */
  async chains(table: 'nat' | 'filter'): Promise<string[]> {
    const out = await this.exec.run('iptables-save', ['-t', table]);
    return out
      .split('\n')
      .filter((l) => l.startsWith(':'))
      .map((l) => l.slice(1).split(' ')[0]!);
  }

  /** Creates a chain unless it exists. */
  async ensureChain(table: string, chain: string): Promise<void> {
    try {
      await this.exec.run('iptables', ['-w', '5', '-t', table, '-N', chain]);
    } catch (e) {
      if (!(e instanceof CommandError) || !/exists/i.test(e.stderr)) throw e;
    }
  }

  /** Inserts a rule at the top of `chain` unless it is there (`-C` then `-I`). */
  async ensureRuleFirst(table: string, chain: string, args: string[]): Promise<void> {
    try {
      await this.exec.run('iptables', ['-w', '5', '-t', table, '-C', chain, ...args]);
    } catch {
      await this.exec.run('iptables', ['-w', '5', '-t', table, '-I', chain, ...args]);
    }
  }

  /** Deletes every copy of a rule; absent is fine. */
  async deleteRule(table: string, chain: string, args: string[]): Promise<void> {
    for (let i = 0; i < 8; i++) {
      try {
        await this.exec.run('iptables', ['-w', '5', '-t', table, '-D', chain, ...args]);
      } catch {
        return;
      }
    }
  }

  /** The jump rules from INPUT/FORWARD/OUTPUT/PREROUTING/POSTROUTING into kube-proxy's chains. */
  async ensureJumps(localhostNodePorts: boolean): Promise<void> {
    for (const j of [...JUMP_RULES, ...(localhostNodePorts ? FIREWALL_JUMPS : [])]) {
      await this.ensureChain(j.table, j.to);
      await this.ensureRuleFirst(j.table, j.from, ruleArgs(j));
    }
  }
}

/**
 * Removes everything the proxier installed: the jump rules, then the kube-proxy chains
 * of both tables (flushed and deleted in one restore). Upstream `kube-proxy --cleanup`.
 */
export async function cleanupLeftovers(ipt: IPTables): Promise<void> {
  for (const j of [...JUMP_RULES, ...FIREWALL_JUMPS]) await ipt.deleteRule(j.table, j.from, ruleArgs(j));
  const own = new Set([KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ, KUBE_PROXY_FIREWALL, KUBE_FIREWALL]);
  const lines: string[] = [];
  for (const table of ['filter', 'nat'] as const) {
    let chains: string[];
    try {
      chains = (await ipt.chains(table)).filter((c) => own.has(c) || isServiceChainName(c));
    } catch {
      continue;
    }
    if (!chains.length) continue;
    lines.push(`*${table}`, ...chains.map((c) => `:${c} - [0:0]`), ...chains.map((c) => `-X ${c}`), 'COMMIT');
  }
  if (lines.length) await ipt.restore(`${lines.join('\n')}\n`);
}
