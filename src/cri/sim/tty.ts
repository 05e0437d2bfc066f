/**
 * The terminal of a simulated `exec -t`: a tiny canonical-mode line discipline in the
 * manner of Linux's n_tty with the default termios (ICANON, ECHO, ICRNL, ONLCR, ISIG):
 * - input is echoed back; Enter (CR or LF) completes a line, which only then reaches
 *   the program; Backspace/DEL erases a character, Ctrl-U the line;
 * - Ctrl-C echoes `^C` and interrupts the foreground program (SIGINT), dropping the line;
 * - Ctrl-D on an empty line is end of file for the current reader; inside a line it
 *   hands over what was typed without a newline;
 * - escape sequences (arrow keys, …) are swallowed: there is no line editing or history;
 * - output newlines become CR LF.
 *
 * Limits: no raw mode (full-screen programs), no job control (Ctrl-Z), window size
 * changes are ignored.
 *
 * @see https://man7.org/linux/man-pages/man3/termios.3.html
 */
import type { StreamStdin } from './stdin.js';

export interface TtyHooks {
  /** echo to the terminal (already CR LF) */
  echo(text: string): void;
  /** the foreground program's stdin */
  stdin: StreamStdin;
  /** Ctrl-C: SIGINT to the foreground program */
  interrupt(): void;
}

export class TtyLineDiscipline {
  private line = '';
  /** 0: text, 1: after ESC, 2: inside a CSI/SS3 sequence */
  private esc = 0;

  constructor(private readonly h: TtyHooks) {}

  /** Feeds bytes typed by the client. */
  input(chunk: string): void {
    let echo = '';
    const flush = (): void => {
      if (echo) this.h.echo(echo);
      echo = '';
    };
    for (const c of chunk) {
      if (this.esc === 1) {
        this.esc = c === '[' || c === 'O' ? 2 : 0;
        continue;
      }
      if (this.esc === 2) {
        if (c >= '@' && c <= '~') this.esc = 0;
        continue;
      }
      switch (c) {
        case '\r':
        case '\n':
          echo += '\r\n';
          flush();
          this.h.stdin.push(`${this.line}\n`);
          this.line = '';
          break;
        case '\x7f':
        case '\b':
          if (this.line) {
            this.line = [...this.line].slice(0, -1).join('');
            echo += '\b \b';
          }
          break;
        case '\x15':
          echo += '\b \b'.repeat([...this.line].length);
          this.line = '';
          break;
        case '\x03':
          echo += '^C\r\n';
          flush();
          this.line = '';
          this.h.interrupt();
          break;
        case '\x04':
          flush();
          if (this.line) this.h.stdin.push(this.line);
          else this.h.stdin.eof();
          this.line = '';
          break;
        case '\x1b':
          this.esc = 1;
          break;
        default:
          if (c < ' ' && c !== '\t') break;
          this.line += c;
          echo += c;
      }
    }
    flush();
  }
}

/** Output post-processing of a terminal (ONLCR): LF → CR LF. */
export function onlcr(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}
