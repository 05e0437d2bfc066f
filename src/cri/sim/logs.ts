/**
 * Writes a container's output in the CRI log format, one line per entry:
 * `<RFC3339Nano timestamp> <stdout|stderr> <F|P> <message>` — F for a full line,
 * P for a partial one (a chunk of a line longer than 16 KiB, or a last line without
 * newline when the process exits).
 *
 * @see https://github.com/kubernetes/design-proposals-archive/blob/main/node/kubelet-cri-logging.md
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const MAX_LINE = 16 * 1024;

/** Go's time.RFC3339Nano for a millisecond timestamp (UTC, trailing zeros trimmed). */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_m, f: string) => (f ? `.${f}Z` : 'Z'));
}

export class CRILogWriter {
  private partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };

  constructor(
    readonly file: string,
    private readonly now: () => number,
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (!fs.existsSync(file)) fs.writeFileSync(file, '');
  }

  write(stream: 'stdout' | 'stderr', text: string): void {
    let buf = this.partial[stream] + text;
    let out = '';
    const ts = rfc3339Nano(this.now());
    for (;;) {
      const nl = buf.indexOf('\n');
      if (nl < 0) break;
      let line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      while (line.length > MAX_LINE) {
        out += `${ts} ${stream} P ${line.slice(0, MAX_LINE)}\n`;
        line = line.slice(MAX_LINE);
      }
      out += `${ts} ${stream} F ${line}\n`;
    }
    while (buf.length > MAX_LINE) {
      out += `${ts} ${stream} P ${buf.slice(0, MAX_LINE)}\n`;
      buf = buf.slice(MAX_LINE);
    }
    this.partial[stream] = buf;
    if (out) this.append(out);
  }

  /** Writes what is left of unterminated lines as partial entries. */
  close(): void {
    const ts = rfc3339Nano(this.now());
    let out = '';
    for (const s of ['stdout', 'stderr'] as const) {
      if (this.partial[s]) out += `${ts} ${s} P ${this.partial[s]}\n`;
      this.partial[s] = '';
    }
    if (out) this.append(out);
  }

  private append(s: string): void {
    try {
      fs.appendFileSync(this.file, s);
    } catch {
      // log directory removed underneath us: drop the output, as a runtime would on a closed log
    }
  }
}
