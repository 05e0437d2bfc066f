/**
 * A simulated program's standard input. Programs that read it (`cat`, `sh` without
 * `-c`, `read`, `grep` without a file …) wait for data; programs that do not
 * (`echo`, `ls` …) never touch it, so they finish at once even while the client's
 * stdin stays open (a terminal never ends it).
 *
 * {@link StreamStdin} is fed by the exec stream: raw chunks from a pipe, or cooked
 * lines from a terminal's line discipline (tty.ts), where Ctrl-D is an end of file
 * for the current reader only (the next read continues, as on a real terminal).
 */

/** Standard input as a program reads it. Reads reject with the error given to `fail`. */
export interface Stdin {
  /** The next line without its newline (a last unterminated line as is); undefined at end of input. */
  line(): Promise<string | undefined>;
  /** Everything up to the end of input. */
  text(): Promise<string>;
}

class StringStdin implements Stdin {
  constructor(private rest: string) {}
  async line(): Promise<string | undefined> {
    if (!this.rest) return undefined;
    const nl = this.rest.indexOf('\n');
    const l = nl < 0 ? this.rest : this.rest.slice(0, nl);
    this.rest = nl < 0 ? '' : this.rest.slice(nl + 1);
    return l;
  }
  async text(): Promise<string> {
    const t = this.rest;
    this.rest = '';
    return t;
  }
}

/** Input that is all there from the start (a pipe's buffered output, a `< file`, ''). */
export function stringStdin(s: string): Stdin {
  return new StringStdin(s);
}

const EOF = Symbol('eof');

/** Input that arrives over time. */
export class StreamStdin implements Stdin {
  /** data chunks and soft end-of-file marks, in order */
  private readonly q: (string | typeof EOF)[] = [];
  private closed = false;
  private failure?: Error;
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  /** Appends data. */
  push(data: string): void {
    if (this.closed || !data) return;
    const last = this.q.length - 1;
    if (last >= 0 && typeof this.q[last] === 'string') this.q[last] = (this.q[last] as string) + data;
    else this.q.push(data);
    this.wake();
  }

  /** A terminal's Ctrl-D: the current (or next) reader sees end of input; later reads go on. */
  eof(): void {
    if (this.closed) return;
    this.q.push(EOF);
    this.wake();
  }

  /** The end of input for good (the client closed its stdin). */
  close(): void {
    this.closed = true;
    this.wake();
  }

  /** Rejects the reads waiting now with `err` (Ctrl-C); `forever` also every later read (the process is killed). */
  fail(err: Error, forever = false): void {
    if (forever) this.failure = err;
    const w = this.waiters;
    this.waiters = [];
    for (const x of w) x.reject(err);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const x of w) x.resolve();
  }

  private wait(): Promise<void> {
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async line(): Promise<string | undefined> {
    for (;;) {
      if (this.failure) throw this.failure;
      const head = this.q[0];
      if (head === EOF) {
        this.q.shift();
        return undefined;
      }
      if (typeof head === 'string') {
        const nl = head.indexOf('\n');
        if (nl >= 0) {
          const l = head.slice(0, nl);
          if (nl === head.length - 1) this.q.shift();
          else this.q[0] = head.slice(nl + 1);
          return l;
        }
        if (this.q.length > 1 || this.closed) {
          // a last line without newline before an end of file
          this.q.shift();
          return head;
        }
      } else if (this.closed) return undefined;
      await this.wait();
    }
  }

  async text(): Promise<string> {
    for (;;) {
      if (this.failure) throw this.failure;
      const eofAt = this.q.indexOf(EOF);
      if (eofAt >= 0 || this.closed) {
        const parts = this.q.splice(0, eofAt >= 0 ? eofAt + 1 : this.q.length);
        return parts.filter((p): p is string => typeof p === 'string').join('');
      }
      await this.wait();
    }
  }
}
