/**
 * Entry point of dist/csi-hostpath.mjs: the CSI hostpath driver process alone (the same
 * options as `k8ts csi-hostpath`).
 */
import { csiHostpathCommand } from './command.js';

await csiHostpathCommand().parseAsync(process.argv);
