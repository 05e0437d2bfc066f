/**
 * Builders for test pods and nodes, in the manner of upstream's
 * pkg/scheduler/testing/wrappers.go (`st.MakePod().Name("p").Req(...).Obj()`).
 */
import type { Container, Node, Pod, PodAffinityTerm, Taint, Toleration, TopologySpreadConstraint, Volume } from 'kubernetes-types/core/v1.js';

export class PodWrapper {
  readonly pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'pod', namespace: 'default', uid: 'pod' },
    spec: { containers: [{ name: 'c', image: 'pause' }] },
    status: { phase: 'Pending' },
  };

  name(n: string): this {
    this.pod.metadata!.name = n;
    return this.uid(n);
  }

  namespace(ns: string): this {
    this.pod.metadata!.namespace = ns;
    return this;
  }

  uid(u: string): this {
    (this.pod.metadata as { uid?: string }).uid = u;
    return this;
  }

  priority(p: number): this {
    this.pod.spec!.priority = p;
    return this;
  }

  node(n: string): this {
    this.pod.spec!.nodeName = n;
    return this;
  }

  schedulerName(n: string): this {
    this.pod.spec!.schedulerName = n;
    return this;
  }

  /** Sets the requests of container 0 (adds containers when called again with `containers`). */
  req(requests: Record<string, string>): this {
    this.pod.spec!.containers[0]!.resources = { requests };
    return this;
  }

  /** Replaces the app containers with ones requesting the given lists. */
  containers(...reqs: (Record<string, string> | undefined)[]): this {
    this.pod.spec!.containers = reqs.map((r, i) => ({ name: `c${i}`, image: 'pause', ...(r ? { resources: { requests: r } } : {}) }));
    return this;
  }

  initReq(requests: Record<string, string>, sidecar = false): this {
    const c: Container = { name: `init${this.pod.spec!.initContainers?.length ?? 0}`, image: 'pause', resources: { requests } };
    if (sidecar) c.restartPolicy = 'Always';
    (this.pod.spec!.initContainers ??= []).push(c);
    return this;
  }

  overhead(o: Record<string, string>): this {
    this.pod.spec!.overhead = o;
    return this;
  }

  hostPort(port: number, protocol = 'TCP', hostIP?: string): this {
    const c = this.pod.spec!.containers[0]!;
    (c.ports ??= []).push({ containerPort: port, hostPort: port, protocol, ...(hostIP ? { hostIP } : {}) });
    return this;
  }

  nodeSelector(s: Record<string, string>): this {
    this.pod.spec!.nodeSelector = s;
    return this;
  }

  toleration(t: Toleration): this {
    (this.pod.spec!.tolerations ??= []).push(t);
    return this;
  }

  gates(...names: string[]): this {
    this.pod.spec!.schedulingGates = names.map((name) => ({ name }));
    return this;
  }

  /** Required node affinity: one term with `key In values`. */
  nodeAffinityIn(key: string, values: string[]): this {
    const a = (this.pod.spec!.affinity ??= {});
    a.nodeAffinity = {
      ...a.nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', values }] }] },
    };
    return this;
  }

  preferredNodeAffinity(weight: number, key: string, values: string[]): this {
    const a = (this.pod.spec!.affinity ??= {});
    const na = (a.nodeAffinity ??= {});
    (na.preferredDuringSchedulingIgnoredDuringExecution ??= []).push({
      weight,
      preference: { matchExpressions: [{ key, operator: 'In', values }] },
    });
    return this;
  }

  label(k: string, v: string): this {
    (this.pod.metadata!.labels ??= {})[k] = v;
    return this;
  }

  /** Adds an inter-pod (anti-)affinity term: required, or preferred with `weight`. */
  podAffinity(kind: 'podAffinity' | 'podAntiAffinity', term: PodAffinityTerm, weight?: number): this {
    const a = (this.pod.spec!.affinity ??= {});
    const k = (a[kind] ??= {}) as {
      requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
      preferredDuringSchedulingIgnoredDuringExecution?: { weight: number; podAffinityTerm: PodAffinityTerm }[];
    };
    if (weight === undefined) (k.requiredDuringSchedulingIgnoredDuringExecution ??= []).push(term);
    else (k.preferredDuringSchedulingIgnoredDuringExecution ??= []).push({ weight, podAffinityTerm: term });
    return this;
  }

  spread(c: TopologySpreadConstraint): this {
    (this.pod.spec!.topologySpreadConstraints ??= []).push(c);
    return this;
  }

  volume(v: Volume): this {
    (this.pod.spec!.volumes ??= []).push(v);
    return this;
  }

  image(image: string): this {
    this.pod.spec!.containers[0]!.image = image;
    return this;
  }

  obj(): Pod {
    return structuredClone(this.pod);
  }
}

export class NodeWrapper {
  readonly node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node', uid: 'node', labels: {} },
    spec: {},
    status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' }, capacity: { cpu: '4', memory: '32Gi', pods: '110' } },
  };

  name(n: string): this {
    this.node.metadata!.name = n;
    (this.node.metadata as { uid?: string }).uid = n;
    this.node.metadata!.labels!['kubernetes.io/hostname'] = n;
    return this;
  }

  label(k: string, v: string): this {
    this.node.metadata!.labels![k] = v;
    return this;
  }

  /** Sets allocatable (and capacity) to exactly these values. */
  capacity(c: Record<string, string>): this {
    this.node.status!.allocatable = { ...c };
    this.node.status!.capacity = { ...c };
    return this;
  }

  taint(t: Taint): this {
    (this.node.spec!.taints ??= []).push(t);
    return this;
  }

  unschedulable(u = true): this {
    this.node.spec!.unschedulable = u;
    return this;
  }

  obj(): Node {
    return structuredClone(this.node);
  }
}

export const makePod = (): PodWrapper => new PodWrapper();
export const makeNode = (): NodeWrapper => new NodeWrapper();
