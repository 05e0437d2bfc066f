/**
 * Running one probe: exec through the runtime's ExecSync; httpGet, tcpSocket and grpc
 * through a {@link NetworkProber}. The simulated node uses
 * {@link simulatedNetworkProber} (no traffic to simulated pod IPs: always success);
 * a node on a real runtime plugs in a prober that dials the pod.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/prober/prober.go
 */
import type { Container, Pod, Probe } from 'kubernetes-types/core/v1.js';
import { CRIError, type Runtime } from '../../cri/api.js';
import { expand } from '../env/expand.js';

/** Upstream ExpandContainerCommandOnlyStatic: `$(VAR)` from the container's literal env values only. */
function expandStatic(cmd: readonly string[], c: Container): string[] {
  const env = new Map<string, string>();
  for (const e of c.env ?? []) if (e.value !== undefined) env.set(e.name, e.value);
  return cmd.map((s) => expand(s, (n) => env.get(n)));
}

export type ProbeResult = 'success' | 'failure' | 'warning' | 'unknown';

export interface ProbeOutcome {
  result: ProbeResult;
  output: string;
  /** set when the probe could not run (event "… probe errored: …") */
  error?: string;
}

/** Network probes; `podIP` is the pod's first IP, timeouts in seconds. */
export interface NetworkProber {
  httpGet(pod: Pod, c: Container, podIP: string, probe: NonNullable<Probe['httpGet']>, timeoutS: number): Promise<ProbeOutcome>;
  tcpSocket(pod: Pod, c: Container, podIP: string, probe: NonNullable<Probe['tcpSocket']>, timeoutS: number): Promise<ProbeOutcome>;
  grpc(pod: Pod, c: Container, podIP: string, probe: NonNullable<Probe['grpc']>, timeoutS: number): Promise<ProbeOutcome>;
}

/** For simulated nodes: pod IPs are not reachable, so network probes report success. */
export const simulatedNetworkProber: NetworkProber = {
  httpGet: async () => ({ result: 'success', output: '' }),
  tcpSocket: async () => ({ result: 'success', output: '' }),
  grpc: async () => ({ result: 'success', output: '' }),
};

/** Runs `probe` against container `containerId` (raw CRI id). Never throws. */
export async function runProbe(runtime: Runtime, net: NetworkProber, pod: Pod, c: Container, containerId: string, podIP: string, probe: Probe): Promise<ProbeOutcome> {
  const timeout = probe.timeoutSeconds ?? 1;
  try {
    if (probe.exec) {
      const cmd = expandStatic(probe.exec.command ?? [], c);
      try {
        const r = await runtime.execSync(containerId, cmd, timeout);
        const output = r.stdout.toString('utf8') + r.stderr.toString('utf8');
        return { result: r.exitCode === 0 ? 'success' : 'failure', output };
      } catch (e) {
        if (e instanceof CRIError && e.code === 'DeadlineExceeded') return { result: 'failure', output: `command ${JSON.stringify(cmd.join(' '))} timed out` };
        throw e;
      }
    }
    if (probe.httpGet) return await net.httpGet(pod, c, podIP, probe.httpGet, timeout);
    if (probe.tcpSocket) return await net.tcpSocket(pod, c, podIP, probe.tcpSocket, timeout);
    if (probe.grpc) return await net.grpc(pod, c, podIP, probe.grpc, timeout);
    return { result: 'unknown', output: '', error: 'missing probe handler' };
  } catch (e) {
    return { result: 'unknown', output: '', error: e instanceof CRIError ? `rpc error: code = ${e.code} desc = ${e.message}` : String(e) };
  }
}
