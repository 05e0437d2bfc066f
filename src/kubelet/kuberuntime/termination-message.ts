/**
 * A terminated container's message: the termination message file (at most 4 KiB), or,
 * with terminationMessagePolicy FallbackToLogsOnError and a failed exit, the last 80
 * lines of its CRI log, at most their last 2048 bytes.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_container.go (getTerminationMessage, readLastStringFromContainerLogs)
 */
import * as fs from 'node:fs';
import { parseCRILogLine } from '../logs/cri-log.js';

/** Upstream MaxContainerTerminationMessageLength. */
const MAX_MESSAGE_BYTES = 4096;
/** Upstream MaxContainerTerminationMessageLogLines / LogLength. */
const MAX_LOG_LINES = 80;
const MAX_LOG_BYTES = 2048;

/** The first 4 KiB of the file; undefined when it does not exist. */
export function readTerminationMessage(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(MAX_MESSAGE_BYTES);
    const n = fs.readSync(fd, buf, 0, MAX_MESSAGE_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch (e) {
    return `Error on reading termination log ${file}: ${(e as Error).message}`;
  } finally {
    fs.closeSync(fd);
  }
}

/** The contents of the last 80 entries of a CRI log, keeping the last 2048 bytes; '' when unreadable. */
export function tailOfCRILog(file: string): string {
  if (!file) return '';
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const size = fs.fstatSync(fd).size;
    // 80 entries of runtime-split lines are at most 80 × 16 KiB; read back in 64 KiB steps until 81 newlines
    let start = size;
    let data = Buffer.alloc(0);
    while (start > 0) {
      const n = Math.min(65536, start);
      start -= n;
      const chunk = Buffer.alloc(n);
      fs.readSync(fd, chunk, 0, n, start);
      data = Buffer.concat([chunk, data]);
      let nl = 0;
      for (const b of data) if (b === 0x0a) nl++;
      if (nl > MAX_LOG_LINES) break;
    }
    const lines = data.toString('latin1').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    if (start > 0) lines.shift(); // a partial first line
    const out: Buffer[] = [];
    for (const l of lines.slice(-MAX_LOG_LINES)) {
      const e = parseCRILogLine(Buffer.from(l, 'latin1'));
      if (typeof e !== 'string') out.push(e.content);
    }
    const all = Buffer.concat(out);
    return all.subarray(Math.max(0, all.length - MAX_LOG_BYTES)).toString('utf8');
  } catch {
    return '';
  } finally {
    fs.closeSync(fd);
  }
}
