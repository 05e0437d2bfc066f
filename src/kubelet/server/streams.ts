/**
 * The runtime side of exec, attach and port-forward, independent of the client's
 * protocol: a runtime with a CRI streaming server (containerd) is reached through the
 * URL its Exec/Attach/PortForward call returns (SPDY/3.1, see cri-streams.ts); a
 * runtime without one (the simulated runtime: CRI `Unimplemented`) is served
 * in-process (sim-streams.ts).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/server/server.go (getExec, getAttach, getPortForward)
 */
import type { EventEmitter } from 'node:events';
import type { Duplex, Readable, Writable } from 'node:stream';
import type { StreamStatus } from '../../streaming/channel.js';
import { CRIError, type Runtime } from '../../cri/api.js';
import { criAttach, criExec, criPortForwarder } from './cri-streams.js';
import { KubeletHTTPError } from './containers.js';
import { simAttach, simExec, simPortForwarder } from './sim-streams.js';

/** The client's streams as the runtime side sees them. */
export interface StreamIO {
  /** the client's stdin; ends when the client closes it */
  stdin?: Readable;
  /** false when the client's protocol cannot signal stdin EOF (v1–v4 WebSockets) */
  stdinCanEnd: boolean;
  stdout?: Writable;
  /** absent when tty (a terminal merges stderr into stdout) */
  stderr?: Writable;
  tty: boolean;
  /** emits `resize` with a TerminalSize */
  resize: EventEmitter;
  /** aborted when the client goes away */
  signal: AbortSignal;
}

/** Runs one exec/attach session to its end and returns the status for the error channel. */
export type RemoteCommandRunner = (io: StreamIO) => Promise<StreamStatus>;

/** Which streams the client asked for (`stdin`, `stdout`, `stderr`, `tty` query parameters). */
export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** Forwards port-forward connections into one pod. */
export interface PortForwarder {
  /**
   * Connects `data` (the client's data stream) with `port` in the pod until either
   * side ends. Rejects with the message for the client's error stream.
   */
  forward(port: number, requestId: string, data: Duplex): Promise<void>;
  close(): void;
}

function httpError(e: unknown): never {
  if (e instanceof KubeletHTTPError) throw e;
  if (e instanceof CRIError) throw new KubeletHTTPError(e.code === 'NotFound' ? 404 : 500, e.message);
  throw new KubeletHTTPError(500, e instanceof Error ? e.message : String(e));
}

const unimplemented = (e: unknown): boolean => e instanceof CRIError && e.code === 'Unimplemented';

/**
 * Prepares an exec: asks the runtime for its streaming URL now, so refusals become
 * HTTP errors before the client's upgrade (as upstream).
 * @throws KubeletHTTPError (404 for CRI NotFound, else 500) with the runtime's message
 */
export async function prepareExec(runtime: Runtime, containerId: string, cmd: string[], o: StreamOptions): Promise<RemoteCommandRunner> {
  try {
    const { url } = await runtime.exec({ containerId, cmd, tty: o.tty, stdin: o.stdin, stdout: o.stdout, stderr: o.stderr && !o.tty });
    return (io) => criExec(url, o, io);
  } catch (e) {
    if (unimplemented(e)) return (io) => simExec(runtime, containerId, cmd, io);
    return httpError(e);
  }
}

/** Prepares an attach to the container's main process (see {@link prepareExec}). */
export async function prepareAttach(runtime: Runtime, containerId: string, o: StreamOptions): Promise<RemoteCommandRunner> {
  try {
    const { url } = await runtime.attach({ containerId, tty: o.tty, stdin: o.stdin, stdout: o.stdout, stderr: o.stderr && !o.tty });
    return (io) => criAttach(url, o, io);
  } catch (e) {
    if (unimplemented(e)) return (io) => simAttach(runtime, containerId, io);
    return httpError(e);
  }
}

/** Prepares port-forwarding into the sandbox `podSandboxId` (see {@link prepareExec}). */
export async function preparePortForward(runtime: Runtime, podSandboxId: string): Promise<PortForwarder> {
  try {
    const { url } = await runtime.portForward({ podSandboxId, port: [] });
    return criPortForwarder(url);
  } catch (e) {
    if (unimplemented(e)) return simPortForwarder(podSandboxId);
    return httpError(e);
  }
}
