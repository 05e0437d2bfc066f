/**
 * Why each container is waiting: the last start failure per (pod UID, container name),
 * read when the pod status is generated (upstream ReasonCache).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_manager.go
 */
export class ReasonCache {
  private readonly m = new Map<string, { reason: string; message: string }>();
  get(uid: string, name: string): { reason: string; message: string } | undefined {
    return this.m.get(`${uid}/${name}`);
  }
  set(uid: string, name: string, reason: string, message: string): void {
    this.m.set(`${uid}/${name}`, { reason, message });
  }
  delete(uid: string, name: string): void {
    this.m.delete(`${uid}/${name}`);
  }
  forgetPod(uid: string): void {
    for (const k of this.m.keys()) if (k.startsWith(`${uid}/`)) this.m.delete(k);
  }
}
