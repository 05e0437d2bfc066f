/**
 * Container lifecycle hooks (postStart, preStop) as upstream's handlerRunner runs
 * them: `exec` through CRI ExecSync (no timeout; a non-zero exit fails the hook),
 * `httpGet` against the pod IP (any HTTP answer counts as delivered; only transport
 * errors fail; an HTTPS hook answered in plain HTTP is retried over HTTP with a
 * `LifecycleHTTPFallback` event), `sleep` for the given seconds. A failure yields
 * upstream's message, e.g. `Exec lifecycle hook ([sh -c exit 3]) for Container "c" in
 * Pod "p_default(uid)" failed - error: command 'sh -c exit 3' exited with 3: , message: ""`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/lifecycle/handlers.go
 */
import type { Container, LifecycleHandler, Pod } from 'kubernetes-types/core/v1.js';
import type { Runtime } from '../../cri/api.js';
import type { EventRecorder } from '../../client/events.js';
import { sleep, type Clock } from '../../util/clock.js';
import { formatPod, podRef } from '../container/runtime.js';
import { criErrorString } from '../kuberuntime/errors.js';
import { httpGet, httpGetRequest } from '../prober/network.js';

export interface HandlerDeps {
  runtime: Runtime;
  recorder: EventRecorder;
  clock: Clock;
  /** the pod's current IPs (for httpGet hooks without a host) */
  podIPs(pod: Pod): Promise<string[]>;
  /** deadline of an httpGet hook, ms (default 120 000, the runtime request timeout) */
  httpTimeoutMs?: number;
}

const goList = (l: readonly string[]): string => `[${l.join(' ')}]`;

/**
 * Runs one hook for container `c` (raw CRI id `containerId`).
 * @returns undefined when the hook succeeded, else upstream's failure message. Never rejects.
 */
export async function runLifecycleHandler(d: HandlerDeps, pod: Pod, c: Container, containerId: string, h: LifecycleHandler): Promise<string | undefined> {
  const who = `for Container ${JSON.stringify(c.name)} in Pod ${JSON.stringify(formatPod(pod))}`;
  if (h.exec) {
    const cmd = h.exec.command ?? [];
    let err: string | undefined;
    let output = '';
    try {
      const r = await d.runtime.execSync(containerId, cmd, 0);
      output = r.stdout.toString('utf8') + r.stderr.toString('utf8');
      if (r.exitCode !== 0) err = `command '${cmd.join(' ')}' exited with ${r.exitCode}: ${r.stderr.toString('utf8')}`;
    } catch (e) {
      err = criErrorString(e);
    }
    return err === undefined ? undefined : `Exec lifecycle hook (${goList(cmd)}) ${who} failed - error: ${err}, message: ${JSON.stringify(output)}`;
  }
  if (h.httpGet) {
    const err = await runHTTPHook(d, pod, c, h.httpGet);
    return err === undefined ? undefined : `HTTP lifecycle hook (${h.httpGet.path ?? ''}) ${who} failed - error: ${err}`;
  }
  if (h.sleep) {
    await sleep(d.clock, h.sleep.seconds * 1000);
    return undefined;
  }
  return `Cannot run handler: invalid handler: ${JSON.stringify(h)}`;
}

async function runHTTPHook(d: HandlerDeps, pod: Pod, c: Container, a: NonNullable<LifecycleHandler['httpGet']>): Promise<string | undefined> {
  let host = a.host ?? '';
  if (!host) {
    const ips = await d.podIPs(pod).catch(() => []);
    if (!ips.length) return 'failed to find networking container';
    host = ips[0]!;
  }
  let req: ReturnType<typeof httpGetRequest>;
  try {
    req = httpGetRequest(a, c, host, 'lifecycle');
  } catch (e) {
    return (e as Error).message;
  }
  const timeout = d.httpTimeoutMs ?? 120_000;
  const r = await httpGet(req.url, req.headers, timeout);
  if (r.error && req.url.protocol === 'https:' && /wrong version number|EPROTO|packet length too long/i.test(r.error)) {
    const plain = new URL(req.url);
    plain.protocol = 'http:';
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
    const again = await httpGet(plain, headers, timeout);
    if (!again.error) {
      d.recorder.event(podRef(pod), 'Warning', 'LifecycleHTTPFallback', `request to HTTPS lifecycle hook ${plain.host} got HTTP response, retry with HTTP succeeded`);
      return undefined;
    }
  }
  return r.error;
}
