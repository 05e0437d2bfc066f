/**
 * A fixed-verbosity klog line writer for node components (the kubelet's CSI volume
 * plugin, the CSI driver and its sidecars): `vlog(verbosity, 4, 'kubelet')` returns a
 * function writing klog text lines to stderr when `--v` is at least 4, a no-op otherwise
 * (as upstream's `klog.V(4).Info(…)`).
 */
import { formatKlogLine } from './klog.js';

/** A logger for verbosity level `level`: a no-op unless `level <= verbosity`. */
export function vlog(verbosity: number, level: number, component: string, write: (s: string) => void = (s) => process.stderr.write(s)): (msg: string) => void {
  if (level > verbosity) return () => undefined;
  return (msg) => write(`${formatKlogLine('I', Date.now(), process.pid, component, msg)}\n`);
}
