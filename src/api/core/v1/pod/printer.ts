/**
 * Server-side printing of pods (`kubectl get pods`), as upstream printPod: NAME READY STATUS
 * RESTARTS AGE, plus the priority-1 (`-o wide`) columns IP NODE NOMINATED NODE READINESS
 * GATES. Cells are strings, as upstream's TableRow for pods.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/printers/internalversion/printers.go (printPod)
 */
import { humanDuration } from '../../../../apimachinery/duration.js';
import type { Obj, TableColumnDefinition, TablePrinter } from '../../../resource.js';
import { isPodInitializedConditionTrue, isPodPhaseTerminal } from '../helpers/conditions.js';
import type { Container, Pod } from './types.js';

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** Upstream podColumnDefinitions. */
export const POD_COLUMNS: TableColumnDefinition[] = [
  { name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 0 },
  { name: 'Ready', type: 'string', format: '', description: 'The aggregate readiness state of this pod for accepting traffic.', priority: 0 },
  { name: 'Status', type: 'string', format: '', description: 'The aggregate status of the containers in this pod.', priority: 0 },
  {
    name: 'Restarts',
    type: 'string',
    format: '',
    description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    priority: 0,
  },
  { name: 'Age', type: 'string', format: '', description: CREATION_DOC, priority: 0 },
  { name: 'IP', type: 'string', format: '', description: 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', priority: 1 },
  {
    name: 'Node',
    type: 'string',
    format: '',
    description:
      'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
    priority: 1,
  },
  {
    name: 'Nominated Node',
    type: 'string',
    format: '',
    description:
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
    priority: 1,
  },
  {
    name: 'Readiness Gates',
    type: 'string',
    format: '',
    description:
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
    priority: 1,
  },
];

/** `<unknown>` for a missing timestamp, else humanDuration(now - t) (upstream translateTimestampSince). */
function translateTimestampSince(ts: string | undefined | null, now: Date): string {
  if (!ts) return '<unknown>';
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

const later = (a: string | undefined, b: string | undefined): string | undefined => {
  if (!b) return a;
  if (!a) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
};

/**
 * The cells of one pod row (all nine; kubectl hides the priority-1 ones without -o wide).
 *
 * @param now clock for AGE and "(5m ago)"
 */
export function printPod(pod: Pod, now: Date): [string, string, string, string, string, string, string, string, string] {
  const spec = pod.spec;
  const status = pod.status ?? {};
  let restarts = 0;
  let sidecarRestarts = 0;
  let total = spec?.containers?.length ?? 0;
  let ready = 0;
  let lastRestart: string | undefined;
  let lastSidecarRestart: string | undefined;
  const phase = status.phase ?? '';
  let reason: string = status.reason || phase;
  for (const c of status.conditions ?? []) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const inits = new Map<string, Container>();
  for (const c of spec?.initContainers ?? []) {
    inits.set(c.name, c);
    if (c.restartPolicy === 'Always') total++;
  }
  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i]!;
    restarts += cs.restartCount ?? 0;
    const lastTerm = cs.lastState?.terminated;
    if (lastTerm) lastRestart = later(lastRestart, lastTerm.finishedAt);
    const sidecar = inits.get(cs.name)?.restartPolicy === 'Always';
    if (sidecar) {
      sidecarRestarts += cs.restartCount ?? 0;
      if (lastTerm) lastSidecarRestart = later(lastSidecarRestart, lastTerm.finishedAt);
    }
    const term = cs.state?.terminated;
    const wait = cs.state?.waiting;
    if (term && term.exitCode === 0) continue;
    if (sidecar && cs.started) {
      if (cs.ready) ready++;
      continue;
    }
    if (term) {
      if (!term.reason) reason = term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode}`;
      else reason = 'Init:' + term.reason;
    } else if (wait && wait.reason && wait.reason !== 'PodInitializing') {
      reason = 'Init:' + wait.reason;
    } else {
      reason = `Init:${i}/${spec?.initContainers?.length ?? 0}`;
    }
    initializing = true;
    break;
  }
  if (!initializing || isPodInitializedConditionTrue(status)) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const cstats = status.containerStatuses ?? [];
    for (let i = cstats.length - 1; i >= 0; i--) {
      const cs = cstats[i]!;
      restarts += cs.restartCount ?? 0;
      const lastTerm = cs.lastState?.terminated;
      if (lastTerm) lastRestart = later(lastRestart, lastTerm.finishedAt);
      const wait = cs.state?.waiting;
      const term = cs.state?.terminated;
      if (wait && wait.reason) reason = wait.reason;
      else if (term && term.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode}`;
      else if (cs.ready && cs.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const readyCond = (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
      reason = readyCond ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && !isPodPhaseTerminal(phase)) reason = 'Terminating';

  let restartsStr = String(restarts);
  if (restarts !== 0 && lastRestart) restartsStr = `${restarts} (${translateTimestampSince(lastRestart, now)} ago)`;

  const podIP = status.podIPs?.[0]?.ip || '<none>';
  const nodeName = spec?.nodeName || '<none>';
  const nominated = status.nominatedNodeName || '<none>';
  let gates = '<none>';
  const rg = spec?.readinessGates ?? [];
  if (rg.length > 0) {
    let trueCount = 0;
    for (const g of rg) {
      const c = (status.conditions ?? []).find((x) => x.type === g.conditionType);
      if (c?.status === 'True') trueCount++;
    }
    gates = `${trueCount}/${rg.length}`;
  }
  return [pod.metadata?.name ?? '', `${ready}/${total}`, reason, restartsStr, translateTimestampSince(pod.metadata?.creationTimestamp, now), podIP, nodeName, nominated, gates];
}

/**
 * Upstream row conditions for a pod: Completed=True for Succeeded/Failed pods (TableRow.conditions),
 * which the contract's TablePrinter cannot carry; exposed for the table builder.
 */
export function podRowConditions(pod: Pod): { type: string; status: string; reason: string; message: string }[] | undefined {
  switch (pod.status?.phase) {
    case 'Succeeded':
      return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    case 'Failed':
      return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  }
  return undefined;
}

/** The TablePrinter of the pod ResourceDefinition. */
export const podTable: TablePrinter<Pod> = {
  columns: POD_COLUMNS,
  cells: (obj: Obj<Pod>, now: Date) => printPod(obj, now),
};
