/**
 * Container iteration and identity helpers for pods (upstream pkg/api/v1/pod/util.go).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/api/v1/pod/util.go
 */
import type { Container, EphemeralContainer, PodSpec } from '../pod/types.js';

/** Which list a container comes from (upstream ContainerType bit mask). */
const ContainerType = {
  Containers: 1,
  InitContainers: 2,
  EphemeralContainers: 4,
} as const;
type ContainerTypeName = 'containers' | 'initContainers' | 'ephemeralContainers';

/** Every container type. */
const ALL_CONTAINER_TYPES = ContainerType.Containers | ContainerType.InitContainers | ContainerType.EphemeralContainers;

/**
 * Calls `fn` for each container of the selected types, in upstream order: init containers,
 * then regular containers, then ephemeral containers. Stops when `fn` returns false.
 * Returns false if stopped early.
 *
 * @param mask bit mask of {@link ContainerType} (default: all)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/api/v1/pod/util.go (VisitContainers)
 */
export function visitContainers(
  spec: PodSpec | undefined,
  fn: (c: Container | EphemeralContainer, type: ContainerTypeName, index: number) => boolean | void,
  mask: number = ALL_CONTAINER_TYPES,
): boolean {
  if (!spec) return true;
  if (mask & ContainerType.InitContainers) {
    const list = spec.initContainers ?? [];
    for (let i = 0; i < list.length; i++) if (fn(list[i]!, 'initContainers', i) === false) return false;
  }
  if (mask & ContainerType.Containers) {
    const list = spec.containers ?? [];
    for (let i = 0; i < list.length; i++) if (fn(list[i]!, 'containers', i) === false) return false;
  }
  if (mask & ContainerType.EphemeralContainers) {
    const list = spec.ephemeralContainers ?? [];
    for (let i = 0; i < list.length; i++) if (fn(list[i]!, 'ephemeralContainers', i) === false) return false;
  }
  return true;
}

/** A sidecar: an init container with `restartPolicy: Always` (upstream IsRestartableInitContainer). */
export function isRestartableInitContainer(c: Pick<Container, 'restartPolicy'> | undefined | null): boolean {
  return c?.restartPolicy === 'Always';
}

/** Whether the spec has a container (any type) with that name. */
export function podHasContainer(spec: PodSpec | undefined, name: string): boolean {
  let found = false;
  visitContainers(spec, (c) => {
    if (c.name === name) {
      found = true;
      return false;
    }
    return true;
  });
  return found;
}

/** Names of all containers in upstream visit order (init, regular, ephemeral). */
export function containerNames(spec: PodSpec | undefined, mask: number = ALL_CONTAINER_TYPES): string[] {
  const out: string[] = [];
  visitContainers(spec, (c) => void out.push(c.name), mask);
  return out;
}
