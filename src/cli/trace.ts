/**
 * `k8ts trace pod <name> [-n ns] [-w]`: the pod's creation trace as a terminal waterfall
 * (seed step numbers, offsets, durations, bars) and, for a pod that is not Running, where
 * it is stuck and the Event that proves it (src/trace/explain.ts). Reads through the API
 * (trace.k8ts.io PodTrace, the pod, its Events) with the kubeconfig kubectl would use.
 */
import { Command } from 'commander';
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import type { PodTrace } from '../api/trace/v1alpha1/podtrace/definition.js';
import { TRACE_GROUP, TRACE_VERSION } from '../api/trace/v1alpha1/podtrace/definition.js';
import { isNotFound } from '../apimachinery/errors.js';
import { R, type Client, type ResourceRef } from '../client/types.js';
import { explainStuck } from '../trace/explain.js';
import { renderWaterfall } from '../trace/waterfall.js';
import { clientFromKubeconfig, kubeconfigPath } from './kubeconfig-load.js';

/** trace.k8ts.io/v1alpha1 podtraces */
export const PODTRACES: ResourceRef = { group: TRACE_GROUP, version: TRACE_VERSION, resource: 'podtraces', kind: 'PodTrace', namespaced: true };

/** The pod, its trace (if kept) and its Events. */
async function read(client: Client, ns: string, name: string): Promise<{ pod: Pod; trace?: PodTrace; events: Event[] }> {
  const pod = (await client.get(R.pods, ns, name)) as Pod;
  const trace = (await client.get(PODTRACES, ns, name).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  })) as PodTrace | undefined;
  const events = (await client.list(R.events, ns, { fieldSelector: `involvedObject.name=${name},involvedObject.namespace=${ns},involvedObject.uid=${pod.metadata?.uid ?? ''}` }))
    .items as unknown as Event[];
  return { pod, trace, events };
}

/** The waterfall text of pod `ns/name` now. */
export async function traceText(client: Client, ns: string, name: string, details = false): Promise<{ text: string; done: boolean }> {
  const { pod, trace, events } = await read(client, ns, name);
  const stuck = explainStuck(pod, trace, events);
  if (!trace) return { text: `Pod ${ns}/${name} has no creation trace (created before the server started, or the server runs with --pod-trace=false)\n`, done: true };
  const ready = trace.status.steps.some((s) => s.name === 'Ready');
  return { text: renderWaterfall(trace, stuck, { details }), done: trace.status.phase === 'Running' && ready && !stuck };
}

/** Follows the trace until the pod is Running and Ready (or forever when it is stuck): redraws on a terminal, else prints each change's waterfall once. */
async function follow(client: Client, ns: string, name: string, details: boolean): Promise<void> {
  const tty = process.stdout.isTTY;
  let last = '';
  const draw = async (): Promise<boolean> => {
    const { text, done } = await traceText(client, ns, name, details);
    if (text !== last) {
      process.stdout.write(tty ? `\x1b[H\x1b[2J${text}` : `${text}\n`);
      last = text;
    }
    return done;
  };
  if (await draw()) return;
  await new Promise<void>((resolve, reject) => {
    let busy = Promise.resolve();
    const h = client.watch(PODTRACES, ns, { fieldSelector: `metadata.name=${name}` }, () => {
      busy = busy.then(async () => {
        if (await draw()) {
          h.stop();
          resolve();
        }
      }, reject);
    });
    h.done.then(resolve, reject);
  });
}

/** The `trace` command. */
export function traceCommand(): Command {
  const trace = new Command('trace').description("show a pod's creation trace: where its startup time went, and where it is stuck");
  trace
    .command('pod <name>')
    .description('the waterfall of the pod’s creation steps (docs/pod-creation.md), and why it is not Running')
    .option('-n, --namespace <ns>', 'namespace of the pod', 'default')
    .option('-w, --watch', 'follow the trace until the pod is Running and Ready')
    .option('--details', 'also show each plugin and the reports beside the path')
    .option('--kubeconfig <file>', 'kubeconfig (default $KUBECONFIG, else ~/.kube/config)')
    .action(async (name: string, o: { namespace: string; watch?: boolean; details?: boolean; kubeconfig?: string }) => {
      const { client, transport } = clientFromKubeconfig(kubeconfigPath(o.kubeconfig));
      try {
        if (o.watch) await follow(client, o.namespace, name, !!o.details);
        else process.stdout.write((await traceText(client, o.namespace, name, !!o.details)).text);
      } catch (e) {
        if (isNotFound(e)) {
          console.error(`Error from server (NotFound): pods "${name}" not found`);
          process.exitCode = 1;
        } else throw e;
      } finally {
        transport.close();
      }
    });
  return trace;
}
