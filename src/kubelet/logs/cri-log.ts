/**
 * The CRI container log format, one entry per line:
 * `<RFC3339Nano timestamp> <stdout|stderr> <tag> <content>` where the tag is `F`
 * (full line: the content ends a line) or `P` (partial: a chunk of a line longer than
 * the runtime's limit, or a last line without newline); tags may carry more
 * colon-separated fields after the first, which are ignored (forward compatibility).
 *
 * @see https://github.com/kubernetes/design-proposals-archive/blob/main/node/kubelet-cri-logging.md
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/logs/logs.go (parseCRILog)
 */
import { parseRFC3339 } from '../../apimachinery/time.js';

/** One parsed log entry. `content` is a view into the line buffer. */
interface CRILogEntry {
  /** the timestamp as written (RFC3339Nano; printed unchanged with `timestamps=true`) */
  timestamp: string;
  /** the timestamp in ms since the epoch (sub-ms precision kept as a fraction) */
  timeMs: number;
  stream: 'stdout' | 'stderr';
  /** true for a `P` (partial) entry */
  partial: boolean;
  /** the entry's bytes: with a trailing `\n` for full entries, without for partial ones */
  content: Buffer;
}

const SPACE = 0x20;
const NL = 0x0a;
const COLON = 0x3a;

/**
 * Parses one line (with or without its trailing newline).
 * @returns the entry, or an error message for a line that is not CRI format
 */
export function parseCRILogLine(line: Buffer): CRILogEntry | string {
  let end = line.length;
  if (end > 0 && line[end - 1] === NL) end--;
  const s1 = line.indexOf(SPACE);
  if (s1 < 0 || s1 >= end) return 'timestamp is not found';
  const timestamp = line.toString('latin1', 0, s1);
  const timeMs = parseRFC3339(timestamp);
  if (Number.isNaN(timeMs)) return `unexpected timestamp format "${timestamp}"`;
  const s2 = line.indexOf(SPACE, s1 + 1);
  if (s2 < 0 || s2 >= end) return 'stream type is not found';
  const stream = line.toString('latin1', s1 + 1, s2);
  if (stream !== 'stdout' && stream !== 'stderr') return `unexpected stream type "${stream}"`;
  let s3 = line.indexOf(SPACE, s2 + 1);
  if (s3 < 0 || s3 > end) {
    // "… stdout F" with nothing after the tag (an empty line written without the separator)
    if (end > s2 + 1) s3 = end;
    else return 'log tag is not found';
  }
  let tagEnd = line.indexOf(COLON, s2 + 1);
  if (tagEnd < 0 || tagEnd > s3) tagEnd = s3;
  const partial = tagEnd - (s2 + 1) === 1 && line[s2 + 1] === 0x50; // "P"
  const start = Math.min(s3 + 1, end);
  let content: Buffer;
  if (partial) content = line.subarray(start, end);
  else {
    content = Buffer.allocUnsafe(end - start + 1);
    line.copy(content, 0, start, end);
    content[content.length - 1] = NL;
  }
  return { timestamp, timeMs, stream, partial, content };
}
