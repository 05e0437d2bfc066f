/**
 * Exec, attach and port-forward for a runtime without a streaming server (the
 * simulated runtime), served in-process:
 * - exec streams through the runtime's {@link InProcessStreaming} when it has one (the
 *   simulated runtime does): stdin as it arrives, output as it is written, and with `-t` a
 *   terminal (echo, Enter, Backspace, Ctrl-C, Ctrl-D; CR LF output). A command that
 *   does not read stdin (`echo hi`) ends at once even though a terminal never ends
 *   stdin; `sh` reads and answers line by line until `exit` or end of input. Limits:
 *   no raw mode (full-screen programs), no job control, no line editing beyond
 *   Backspace/Ctrl-U, no history, window size ignored;
 * - otherwise exec runs the command with the runtime's ExecSync once the client's
 *   stdin ended (stdin is fed through a pipe `printf '%s' DATA | CMD…`); output is
 *   delivered when the command finishes;
 * - attach follows the container's log file from its current end (what the main
 *   process writes from now on) until the container stops; the client's stdin reaches
 *   the main process when the runtime offers {@link InProcessStreaming.attachStdin},
 *   else it is not read;
 * - port-forward fails every connection: simulated containers run no processes, so
 *   nothing listens on any port.
 *
 * Clients on protocols without stdin half-close (v1–v4 WebSockets) get their command
 * run without stdin unless they have a terminal (where Ctrl-D ends input).
 */
import type { Duplex } from 'node:stream';
import { streamExitCode, streamInternalError, streamSuccess, type StreamStatus } from '../../streaming/channel.js';
import type { InProcessStreaming, Runtime } from '../../cri/api.js';
import { readLogs } from '../logs/read.js';
import { isContainerRunning } from './containers.js';
import type { PortForwarder, StreamIO } from './streams.js';

/** Single-quotes `s` for a POSIX shell. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function collect(r: NonNullable<StreamIO['stdin']>, signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    r.on('data', (c: Buffer) => chunks.push(c));
    r.once('end', done);
    r.once('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

function write(w: NonNullable<StreamIO['stdout']> | undefined, data: Buffer): Promise<void> {
  if (!w || data.length === 0) return Promise.resolve();
  return new Promise((resolve) => w.write(data, () => resolve()));
}

/** Runs `cmd` in the container (see module doc). */
export async function simExec(runtime: Runtime, containerId: string, cmd: string[], io: StreamIO): Promise<StreamStatus> {
  if (runtime.inProcessStreaming) return streamExec(runtime.inProcessStreaming, containerId, cmd, io);
  let argv = cmd;
  if (io.stdin && io.stdinCanEnd) {
    const input = await collect(io.stdin, io.signal);
    if (io.signal.aborted) return streamSuccess();
    if (input) argv = ['sh', '-c', `printf '%s' ${shellQuote(input)} | ${cmd.map(shellQuote).join(' ')}`];
  }
  let r;
  try {
    r = await runtime.execSync(containerId, argv, 0);
  } catch (e) {
    return streamInternalError(`error executing command in container: ${(e as Error).message}`);
  }
  if (io.tty) {
    // a terminal: one output stream, newlines as CR LF
    const all = Buffer.concat([r.stdout, r.stderr]).toString('utf8').replace(/\r?\n/g, '\r\n');
    await write(io.stdout, Buffer.from(all));
  } else {
    await write(io.stdout, r.stdout);
    await write(io.stderr, r.stderr);
  }
  return r.exitCode === 0 ? streamSuccess() : streamExitCode(r.exitCode);
}

async function streamExec(runtime: InProcessStreaming, containerId: string, cmd: string[], io: StreamIO): Promise<StreamStatus> {
  // without an end-of-input signal a reader would wait forever: such clients get no stdin (a terminal has Ctrl-D)
  const stdin = io.stdin && (io.stdinCanEnd || io.tty) ? io.stdin : undefined;
  let pending = Promise.resolve();
  let code: number;
  try {
    code = await runtime.execStream(containerId, cmd, {
      tty: io.tty,
      stdin,
      signal: io.signal,
      write: (stream, data) => {
        const w = io.tty || stream === 'stdout' ? io.stdout : io.stderr;
        pending = pending.then(() => write(w, data));
      },
    });
  } catch (e) {
    await pending;
    return streamInternalError(`error executing command in container: ${(e as Error).message}`);
  }
  await pending;
  return code === 0 ? streamSuccess() : streamExitCode(code);
}

/** Streams what the container writes from now on, until it stops (see module doc). */
export async function simAttach(runtime: Runtime, containerId: string, io: StreamIO, pollMs = 500): Promise<StreamStatus> {
  let logPath: string;
  try {
    logPath = (await runtime.containerStatus(containerId)).logPath;
  } catch (e) {
    return streamInternalError(`error attaching to container: ${(e as Error).message}`);
  }
  if (!logPath) return streamInternalError('error attaching to container: the container has no log file');
  try {
    // what the process answers is appended to the log: feed stdin once the follower sits at its end
    let positioned!: () => void;
    const atEnd = new Promise<void>((r) => (positioned = r));
    const follow = readLogs(logPath, { follow: true, tailLines: 0 }, (c, stream) => write(io.tty || stream === 'stdout' ? io.stdout : io.stderr, c), {
      isRunning: () => isContainerRunning(runtime, containerId),
      signal: io.signal,
      pollMs,
      onPositioned: positioned,
    });
    const inProcess = runtime.inProcessStreaming;
    if (io.stdin && inProcess) {
      const stdin = io.stdin;
      const ready = await Promise.race([atEnd.then(() => true), follow.then(() => false)]);
      if (ready) {
        try {
          await inProcess.attachStdin(containerId, stdin, io.signal);
        } catch (e) {
          follow.catch(() => undefined);
          throw e;
        }
      }
    }
    await follow;
  } catch (e) {
    return streamInternalError(`error attaching to container: ${(e as Error).message}`);
  }
  return streamSuccess();
}

/** Fails every connection (no process listens in a simulated pod). */
export function simPortForwarder(podSandboxId: string): PortForwarder {
  return {
    async forward(port: number, _requestId: string, data: Duplex): Promise<void> {
      data.resume();
      data.end();
      throw new Error(`error forwarding port ${port} to pod ${podSandboxId}, uid : the simulated runtime (sim) runs no processes: nothing listens on port ${port}`);
    },
    close(): void {},
  };
}
