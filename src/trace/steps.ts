/**
 * The steps of a Pod's creation, numbered as in docs/pod-creation.md (the 20-step walk from
 * `kubectl apply` to a Running pod: API server, storage, scheduler, kubelet, CRI, CNI), and
 * the kinds of step a component records into a pod's trace. A step kind is data: its seed
 * step number, the component that records it and a title; the recorder stores only the
 * kind's index, so a trace stays small.
 *
 * @see docs/pod-creation.md
 */

/** The component that did a step (the seed's sequence-diagram lanes). */
export type Component = 'kubectl' | 'apiserver' | 'storage' | 'scheduler' | 'kubelet' | 'cri' | 'cni';

/** The components in the order of the seed's sequence diagram. */
export const COMPONENTS: readonly Component[] = ['kubectl', 'apiserver', 'storage', 'scheduler', 'kubelet', 'cri', 'cni'];

/** One of the 20 numbered steps of docs/pod-creation.md. */
export interface SeedStep {
  /** 1–20 */
  n: number;
  title: string;
}

/** The 20 steps (docs/pod-creation.md), index = number − 1. */
export const SEED_STEPS: readonly SeedStep[] = [
  'kubectl sends the Pod to the API server',
  'authentication',
  'authorization',
  'admission control (mutating, then validating; webhooks)',
  'validation and defaulting',
  'persisted to storage (etcd / SQLite)',
  'API server answers 201 Created',
  'scheduler sees the unscheduled pod (watch)',
  'scheduling queue',
  'filtering: which nodes can run the pod',
  'scoring, reserve and permit: the best node',
  'binding: spec.nodeName persisted',
  'kubelet sees the pod bound to its node (watch)',
  'volumes attached and mounted (CSI)',
  'pod sandbox: pause image, RunPodSandbox (CRI)',
  'pod network: CNI ADD, pod IP',
  'images checked and pulled (CRI ImageService)',
  'init and app containers created and started (CRI)',
  'probes: the pod becomes Ready',
  'status written back: the pod is Running',
].map((title, i) => ({ n: i + 1, title }));

/** A kind of step: what a component records. */
export interface StepKind {
  /** stable name, e.g. `Authentication`, `Filter` */
  name: string;
  /** seed step number 1–20 */
  seed: number;
  component: Component;
  /** a failure (FailedScheduling, ErrImagePull…): shown as a stuck point when it is the last step */
  failure?: boolean;
}

const kinds: StepKind[] = [
  { name: 'RequestReceived', seed: 1, component: 'apiserver' },
  { name: 'Authentication', seed: 2, component: 'apiserver' },
  { name: 'Authorization', seed: 3, component: 'apiserver' },
  { name: 'MutatingAdmission', seed: 4, component: 'apiserver' },
  { name: 'Validation', seed: 5, component: 'apiserver' },
  { name: 'ValidatingAdmission', seed: 4, component: 'apiserver' },
  { name: 'StorageCommit', seed: 6, component: 'storage' },
  { name: 'Response', seed: 7, component: 'apiserver' },
  { name: 'WatchReceived', seed: 8, component: 'scheduler' },
  { name: 'QueueWait', seed: 9, component: 'scheduler' },
  { name: 'PreFilter', seed: 10, component: 'scheduler' },
  { name: 'Filter', seed: 10, component: 'scheduler' },
  { name: 'PostFilter', seed: 10, component: 'scheduler' },
  { name: 'FailedScheduling', seed: 10, component: 'scheduler', failure: true },
  { name: 'PreScore', seed: 11, component: 'scheduler' },
  { name: 'Score', seed: 11, component: 'scheduler' },
  { name: 'Reserve', seed: 11, component: 'scheduler' },
  { name: 'Permit', seed: 11, component: 'scheduler' },
  { name: 'PreBind', seed: 12, component: 'scheduler' },
  { name: 'BindRequest', seed: 12, component: 'scheduler' },
  { name: 'BindingCommit', seed: 12, component: 'storage' },
  { name: 'KubeletWatchReceived', seed: 13, component: 'kubelet' },
  { name: 'VolumesMounted', seed: 14, component: 'kubelet' },
  { name: 'FailedMount', seed: 14, component: 'kubelet', failure: true },
  { name: 'RunPodSandbox', seed: 15, component: 'cri' },
  { name: 'FailedCreatePodSandBox', seed: 15, component: 'cri', failure: true },
  { name: 'CNIAdd', seed: 16, component: 'cni' },
  { name: 'ImageCheck', seed: 17, component: 'cri' },
  { name: 'PullImage', seed: 17, component: 'cri' },
  { name: 'ErrImagePull', seed: 17, component: 'kubelet', failure: true },
  { name: 'ImagePullBackOff', seed: 17, component: 'kubelet', failure: true },
  { name: 'CreateContainer', seed: 18, component: 'cri' },
  { name: 'StartContainer', seed: 18, component: 'cri' },
  { name: 'CreateContainerError', seed: 18, component: 'kubelet', failure: true },
  { name: 'CrashLoopBackOff', seed: 18, component: 'kubelet', failure: true },
  { name: 'StatusWrite', seed: 20, component: 'kubelet' },
  { name: 'StatusCommit', seed: 20, component: 'storage' },
  { name: 'Ready', seed: 19, component: 'storage' },
  { name: 'Running', seed: 20, component: 'storage' },
];

/** Every step kind, by index (the recorder stores the index). */
export const STEP_KINDS: readonly StepKind[] = kinds;

const byName = new Map(kinds.map((k, i) => [k.name, i]));

/** The name of a step kind. */
export type StepName = (typeof kinds)[number]['name'];

/**
 * The index of a step kind.
 * @throws Error for a name that is not a step kind (a programming error)
 */
export function stepIndex(name: string): number {
  const i = byName.get(name);
  if (i === undefined) throw new Error(`unknown pod trace step ${JSON.stringify(name)}`);
  return i;
}
