/**
 * `k8ts csi-hostpath`: the built-in CSI driver as a process of its own. Also bundled alone
 * as dist/csi-hostpath.mjs (src/csi/hostpath/main.ts), which a node starts so the driver
 * does not carry the whole cluster's code (≈ 40 MB RSS instead of ≈ 100 MB).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { vlog } from '../../util/vlog.js';
import { DRIVER_NAME, HostPathDriver } from './driver.js';

/** `k8ts csi-hostpath`: the driver process. */
export function csiHostpathCommand(): Command {
  return new Command('csi-hostpath')
    .description('run the built-in CSI driver (Identity, Controller and Node services on a unix socket), keeping volumes in <data-dir>/storage/')
    .requiredOption('--endpoint <endpoint>', 'CSI socket, unix:///path/to/csi.sock')
    .requiredOption('--node-id <name>', 'this node (the node ID and topology)')
    .option('--data-dir <dir>', 'volumes live in <data-dir>/storage/', './data')
    .option('--driver-name <name>', 'the CSI driver name', DRIVER_NAME)
    .option('--publish-mode <mode>', 'bind (bind mounts, needs root) or symlink', process.getuid?.() === 0 ? 'bind' : 'symlink')
    .option('--attach-required', 'advertise PUBLISH_UNPUBLISH_VOLUME (ControllerPublishVolume)')
    .option('--v <level>', 'log verbosity', (v) => parseInt(v, 10), 0)
    .option('--exit-with-parent', 'exit when the process that started this one is gone (the agent starts it so)')
    .action(async (o) => {
      if (o.publishMode !== 'bind' && o.publishMode !== 'symlink') {
        console.error(`error: --publish-mode must be bind or symlink, not ${o.publishMode}`);
        process.exit(2);
      }
      const d = new HostPathDriver({
        name: o.driverName,
        nodeId: o.nodeId,
        dataDir: path.resolve(o.dataDir),
        endpoint: o.endpoint,
        publishMode: o.publishMode,
        attachRequired: !!o.attachRequired,
        log: vlog(o.v, 4, 'csi-hostpath'),
      });
      await d.start();
      const stop = (): void => {
        void d.stop().then(() => process.exit(0));
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      if (o.exitWithParent) {
        // the starter names itself: by the time a slow start-up reads process.ppid, it may be gone
        const parent = Number(process.env.K8TS_PARENT_PID) || process.ppid;
        setInterval(() => {
          if (currentParent() !== parent) stop();
        }, 1000);
      }
    });
}

/**
 * The parent PID now. Node's `process.ppid` is read once at start-up (a plain value on
 * Node 20), so a re-parented process would never notice: read it from /proc/self/stat
 * (Linux), else tell whether the first parent still exists.
 */
function currentParent(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    try {
      process.kill(process.ppid, 0);
      return process.ppid;
    } catch {
      return 1;
    }
  }
}
