/**
 * Runs the processes of simulated containers: PID 1 of each container (its command
 * through the shell of shell.ts, or the image's server when it has none), exec
 * sessions (ExecSync for probes and hooks; streaming exec with stdin and a terminal
 * for `kubectl exec`), SIGTERM/SIGKILL on stop, and the pod's own network (HTTP
 * servers of nginx-like images reachable at localhost and the pod IP).
 *
 * A container restored after a runtime restart gets its filesystem and log back and
 * its PID 1 resumes as an idle process: it keeps running until stopped (or until a
 * behaviour's exit time), but what its script would have printed or done after the
 * restart is not replayed.
 */
import { hostname as osHostname } from 'node:os';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { CRIError, type ExecStreamSession, type ExecSyncResult } from '../api.js';
import { SimFs, type SimFsSnapshot } from './fs.js';
import { imageProfile } from './image-profiles.js';
import { CRILogWriter } from './logs.js';
import { podHttp, type PodServer } from './pod-http.js';
import { clusterHttp, type ClusterNetDeps } from './cluster-http.js';
import { homeOf, hostEtcHosts, processEnv, resolvConf, SimProcess, type SimClock } from './process.js';
import type { ContainerRec, SandboxRec } from './records.js';
import { KilledError, NOT_SERVERS, runProgram, type ShellIO } from './shell.js';
import type { HttpAnswer, HttpRequest } from './shell-io.js';
import { StreamStdin, stringStdin, type Stdin } from './stdin.js';
import { onlcr, TtyLineDiscipline } from './tty.js';

/** Programs that, as PID 1, have no default SIGTERM action (the kernel ignores it for PID 1). */
const IGNORES_SIGTERM = new Set(['sh', 'bash', 'ash', 'dash', 'sleep']);

const ns = (ms: number): number => ms * 1e6;

/** A streaming exec (`kubectl exec [-i] [-t]`), beyond CRI's ExecSync. */
/** The streams of one in-process exec session (the CRI-side {@link ExecStreamSession}). */
export type SimExecSession = ExecStreamSession;

export interface HostDeps {
  clock: SimClock;
  sandbox(id: string): SandboxRec;
  containersOf(sandboxId: string): Iterable<ContainerRec>;
  /** host directories simulated containers may write into (default: the kubelet root of each sandbox) */
  writableHostRoots?: string[];
  /** something worth saving changed */
  changed(): void;
  /** the simulated cluster network (names, Services, other pods, NetworkPolicies); none: the pod's own only */
  cluster?(): ClusterNetDeps | undefined;
}

export class ProcessHost {
  constructor(private readonly d: HostDeps) {}

  private argv(c: ContainerRec): string[] {
    return [...c.config.command, ...c.config.args];
  }

  /** The filesystem of a starting (or restored) container. */
  private makeFs(c: ContainerRec, s: SandboxRec, snapshot?: SimFsSnapshot): SimFs {
    const profile = imageProfile(c.config.image.userSpecifiedImage || c.config.image.image);
    const sc = c.config.linux?.securityContext;
    const kubeletRoot = path.dirname(path.dirname(s.config.logDirectory));
    return new SimFs({
      mounts: c.config.mounts,
      writableHostRoots: this.d.writableHostRoots ?? [kubeletRoot],
      cwd: c.config.workingDir || '/',
      uid: sc?.runAsUser ?? 0,
      gid: sc?.runAsGroup ?? 0,
      now: () => this.d.clock.now(),
      seed: {
        ...profile.files,
        '/etc/hostname': `${sandboxHostname(s)}\n`,
        '/etc/resolv.conf': resolvConf(s.config.dnsConfig),
        '/etc/hosts': hostEtcHosts(),
      },
      ...(snapshot ? { snapshot } : {}),
      onChange: () => {
        c.fsDirty = true;
        this.d.changed();
      },
    });
  }

  private io(c: ContainerRec, s: SandboxRec, proc: SimProcess, write: ShellIO['write'], o: { tty: boolean; stdin: Stdin; main: boolean }): ShellIO {
    const sc = c.config.linux?.securityContext;
    const uid = sc?.runAsUser ?? 0;
    const fs = c.fs!;
    return {
      env: processEnv(c.config, sandboxHostname(s), o.tty, homeOf(fs.read('/etc/passwd'), uid)),
      fs,
      hostname: sandboxHostname(s),
      uid,
      gid: sc?.runAsGroup ?? 0,
      groups: sc?.supplementalGroups ?? [],
      write,
      sleep: (ms) => proc.sleep(ms),
      now: () => this.d.clock.now(),
      stdin: o.stdin,
      tty: o.tty,
      unknown: o.main ? 'serve' : 'notFound',
      programs: imageProfile(c.config.image.userSpecifiedImage || c.config.image.image).programs,
      setTermTrap: (action) => {
        proc.termTrap = action;
        if (o.main) this.d.changed();
      },
      isKilled: () => proc.killed,
      takeInterrupt: () => proc.takeInterrupt(),
      processes: () => this.processes(c),
      http: (req) => {
        const own = { ip: s.ip ?? '', hostname: sandboxHostname(s), servers: () => this.servers(s), now: () => this.d.clock.now() };
        const local = podHttp(req, own);
        const cluster = this.d.cluster?.();
        if (!cluster || (local.kind !== 'unresolved' && local.kind !== 'unreachable')) return local;
        return clusterHttp(req, own.ip, fs.read('/etc/resolv.conf') ?? '', cluster);
      },
      cluster: () => {
        const cluster = this.d.cluster?.();
        return cluster && { net: cluster.net, podIP: s.ip ?? '', resolvConf: fs.read('/etc/resolv.conf') ?? '' };
      },
    };
  }

  /** What the pod with IP `ip` answers to `req`, when it is one of `sandboxes` (requests from other pods). */
  serveAt(ip: string, req: HttpRequest, sandboxes: Iterable<SandboxRec>): HttpAnswer | undefined {
    for (const s of sandboxes) {
      if (s.ip !== ip || s.state !== 'SANDBOX_READY') continue;
      return podHttp({ ...req, host: ip }, { ip, hostname: sandboxHostname(s), servers: () => this.servers(s), now: () => this.d.clock.now() });
    }
    return undefined;
  }

  /** PID 1 and the exec sessions of a container, for `ps`. */
  private processes(c: ContainerRec): { pid: number; uid: number; cmd: string }[] {
    const uid = c.config.linux?.securityContext?.runAsUser ?? 0;
    const main = this.argv(c).join(' ') || imageProfile(c.config.image.userSpecifiedImage || c.config.image.image).cmd;
    return [{ pid: 1, uid, cmd: main }, ...[...c.execs].map((p) => ({ pid: p.pid, uid, cmd: p.argv.join(' ') }))];
  }

  /** The HTTP servers running in a sandbox: running containers of server images whose command starts the server. */
  private servers(s: SandboxRec): PodServer[] {
    const out: PodServer[] = [];
    for (const c of this.d.containersOf(s.id)) {
      if (c.state !== 'CONTAINER_RUNNING' || !c.fs) continue;
      const http = imageProfile(c.config.image.userSpecifiedImage || c.config.image.image).http;
      if (!http) continue;
      const argv = this.argv(c);
      if (argv.length && !http.binaries.includes(argv[0]!) && !http.binaries.includes(path.posix.basename(argv[0]!))) continue;
      out.push({ http, fs: c.fs });
    }
    return out;
  }

  /**
   * Why PID 1 of `c` cannot start: its program is an interpreter or tool (perl, python,
   * node …, not a server) the image lacks, as runc reports a missing executable;
   * undefined when it can.
   * @see https://github.com/opencontainers/runc/blob/main/libcontainer/standard_init_linux.go
   */
  missingMain(c: ContainerRec): string | undefined {
    const argv0 = this.argv(c)[0];
    if (argv0 === undefined) return undefined;
    const name = path.posix.basename(argv0);
    if (!NOT_SERVERS.has(name) || imageProfile(c.config.image.userSpecifiedImage || c.config.image.image).programs.has(name)) return undefined;
    return `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: ${JSON.stringify(argv0)}: executable file not found in $PATH: unknown`;
  }

  /** Starts PID 1 of a container that was just set running. */
  start(c: ContainerRec, s: SandboxRec): void {
    if (c.logPath) c.log = new CRILogWriter(c.logPath, () => this.d.clock.now());
    c.fs = this.makeFs(c, s);
    c.fsDirty = false;
    const argv = this.argv(c);
    const ignore = c.behavior.ignoreSigterm ?? (argv.length > 0 && IGNORES_SIGTERM.has(path.posix.basename(argv[0]!)));
    // an open but unattached stdin (`stdin: true`) never ends; else it is empty
    const openStdin = c.config.stdin ? new StreamStdin() : undefined;
    const proc = new SimProcess(1, argv, ignore, this.d.clock, openStdin);
    c.proc = proc;
    // a terminal merges both streams into stdout and turns LF into CR LF (ONLCR), as a pty does
    const write: ShellIO['write'] = c.config.tty ? (_stream, text) => c.log?.write('stdout', onlcr(text)) : (stream, text) => c.log?.write(stream, text);
    const io = this.io(c, s, proc, write, { tty: c.config.tty, stdin: openStdin ?? stringStdin(''), main: true });
    for (const l of c.behavior.logs ?? []) io.write('stdout', `${l}\n`);
    const b = c.behavior;
    const run = async (): Promise<{ code: number; reason?: string }> => {
      if (b.exitAfterMs !== undefined || b.oomKilled) {
        const forced = io.sleep(b.exitAfterMs ?? 1000).then(() => (b.oomKilled ? { code: 137, reason: 'OOMKilled' } : { code: b.exitCode ?? 0 }));
        const own = argv.length ? runProgram(argv, io).then((code) => ({ code })) : new Promise<never>(() => undefined);
        return Promise.race([forced, own]);
      }
      if (!argv.length) {
        await io.sleep(Infinity);
        return { code: 0 };
      }
      return { code: await runProgram(argv, io) };
    };
    this.settle(c, proc, run());
  }

  /**
   * Brings back a container that was running when the runtime stopped: its filesystem
   * and log, and an idle PID 1 (see the module doc).
   */
  resume(c: ContainerRec, s: SandboxRec, saved: { fs?: SimFsSnapshot; termTrap?: string }): void {
    if (c.logPath) c.log = new CRILogWriter(c.logPath, () => this.d.clock.now());
    c.fs = this.makeFs(c, s, saved.fs);
    c.fsDirty = !!saved.fs;
    const argv = this.argv(c);
    const ignore = c.behavior.ignoreSigterm ?? (argv.length > 0 && IGNORES_SIGTERM.has(path.posix.basename(argv[0]!)));
    const proc = new SimProcess(1, argv, ignore, this.d.clock);
    if (saved.termTrap !== undefined) proc.termTrap = saved.termTrap;
    c.proc = proc;
    const b = c.behavior;
    const run = async (): Promise<{ code: number; reason?: string }> => {
      if (b.exitAfterMs !== undefined || b.oomKilled) {
        const left = c.startedAt / 1e6 + (b.exitAfterMs ?? 1000) - this.d.clock.now();
        await proc.sleep(Math.max(0, left));
        return b.oomKilled ? { code: 137, reason: 'OOMKilled' } : { code: b.exitCode ?? 0 };
      }
      await proc.sleep(Infinity);
      return { code: 0 };
    };
    this.settle(c, proc, run());
  }

  private settle(c: ContainerRec, proc: SimProcess, run: Promise<{ code: number; reason?: string }>): void {
    proc.done = run.then(
      (r) => this.exited(c, r.code, r.reason),
      (e: unknown) => this.exited(c, e instanceof KilledError ? c.exitCode : 1, e instanceof KilledError ? undefined : 'Error', e instanceof KilledError ? '' : String(e)),
    );
  }

  /** Records the end of PID 1 (and ends the container's exec sessions). */
  exited(c: ContainerRec, code: number, reason?: string, message = ''): void {
    if (c.state !== 'CONTAINER_RUNNING') return;
    c.proc?.kill();
    for (const x of c.execs) x.kill();
    c.log?.close();
    c.state = 'CONTAINER_EXITED';
    c.exitCode = code;
    c.reason = reason ?? (code === 0 ? 'Completed' : 'Error');
    c.message = message;
    c.finishedAt = ns(this.d.clock.now());
    this.d.changed();
  }

  /** SIGKILL (or SIGTERM without a handler): the process ends with `code`. */
  kill(c: ContainerRec, code: number): void {
    c.exitCode = code;
    c.proc?.kill();
  }

  /** StopContainer: SIGTERM (a `trap`, a server's exit, or ignored), SIGKILL after `timeout` s. */
  async stop(c: ContainerRec, timeout: number): Promise<void> {
    const proc = c.proc;
    if (!proc) return;
    if (timeout <= 0) this.kill(c, 137);
    else if (proc.termTrap !== undefined && proc.termTrap !== '' && proc.termTrap !== '-') {
      const s = this.d.sandbox(c.sandboxId);
      const trapProc = new SimProcess(1, ['sh', '-c', proc.termTrap], false, this.d.clock);
      const io = this.io(c, s, trapProc, (st, t) => c.log?.write(st, t), { tty: false, stdin: stringStdin(''), main: true });
      const code = await runProgram(['sh', '-c', proc.termTrap], io).catch(() => 0);
      if (c.state === 'CONTAINER_RUNNING') this.kill(c, code);
    } else if (proc.ignoreSigterm || proc.termTrap === '') {
      let timer: unknown;
      await Promise.race([proc.done, new Promise<void>((r) => (timer = this.d.clock.setTimeout(r, timeout * 1000)))]);
      this.d.clock.clearTimeout(timer);
      if (c.state === 'CONTAINER_RUNNING') this.kill(c, 137);
    } else this.kill(c, 0);
    await proc.done;
    if (c.state === 'CONTAINER_RUNNING') this.exited(c, c.exitCode);
  }

  private spawn(
    c: ContainerRec,
    cmd: string[],
    o: { tty: boolean; stdin: Stdin; streamStdin?: StreamStdin; write: ShellIO['write'] },
  ): { proc: SimProcess; result: Promise<number> } {
    if (c.state !== 'CONTAINER_RUNNING' || !c.fs) throw new CRIError('Unknown', `failed to exec in container: container is in ${c.state} state`);
    const s = this.d.sandbox(c.sandboxId);
    const proc = new SimProcess(c.nextPid++, cmd, false, this.d.clock, o.streamStdin);
    c.execs.add(proc);
    const io = this.io(c, s, proc, o.write, { tty: o.tty, stdin: o.stdin, main: false });
    const result = runProgram(cmd, io).finally(() => c.execs.delete(proc));
    return { proc, result };
  }

  /**
   * Runs `cmd` in the container (CRI ExecSync: probes, hooks).
   * @throws CRIError Unknown when the container is not running or stops meanwhile;
   *   DeadlineExceeded when `timeout` (s, 0 = none) passes first
   */
  async execSync(c: ContainerRec, cmd: string[], timeout: number): Promise<ExecSyncResult> {
    let stdout = '';
    let stderr = '';
    const { proc, result } = this.spawn(c, cmd, {
      tty: false,
      stdin: stringStdin(''),
      write: (stream, t) => (stream === 'stdout' ? (stdout += t) : (stderr += t)),
    });
    let timer: unknown;
    const deadline =
      timeout > 0
        ? new Promise<{ timeout: true }>((r) => {
            timer = this.d.clock.setTimeout(() => r({ timeout: true }), timeout * 1000);
          })
        : new Promise<never>(() => undefined);
    try {
      const r = await Promise.race([result.then((code) => ({ code })), deadline]);
      if ('timeout' in r) {
        proc.kill();
        result.catch(() => undefined);
        throw new CRIError('DeadlineExceeded', `failed to exec in container: timeout ${timeout}s exceeded: context deadline exceeded`);
      }
      return { stdout: Buffer.from(stdout), stderr: Buffer.from(stderr), exitCode: r.code };
    } catch (e) {
      if (e instanceof KilledError) throw new CRIError('Unknown', 'failed to exec in container: container stopped');
      throw e;
    } finally {
      if (timer !== undefined) this.d.clock.clearTimeout(timer);
    }
  }

  /**
   * Feeds an attach's stdin (`kubectl attach -i`, `kubectl debug -i`, `kubectl run -i`)
   * to PID 1's open stdin (`config.stdin`): raw bytes, or through a terminal's line
   * discipline when `config.tty` (its echo goes to the container log, as a terminal
   * would show it). Resolves when the client's stream ends, `signal` aborts or the
   * container stops; at the end of the stream, `config.stdinOnce` closes PID 1's stdin
   * (it then reads end of input), else stdin stays open for the next attach.
   * @throws CRIError Unknown when the container is not running or its stdin is not open
   * @see https://github.com/containerd/containerd/blob/main/internal/cri/server/container_attach.go
   */
  async attachStdin(c: ContainerRec, src: Readable, signal: AbortSignal): Promise<void> {
    const proc = c.proc;
    if (c.state !== 'CONTAINER_RUNNING' || !proc || proc.killed) throw new CRIError('Unknown', `container is in ${stateName(c.state)} state`);
    const stdin = proc.stdin;
    if (!stdin) throw new CRIError('InvalidArgument', `stdin of container ${JSON.stringify(c.id)} is not open (the container was not created with stdin)`);
    const decoder = new StringDecoder('utf8');
    const tty = c.config.tty ? new TtyLineDiscipline({ echo: (t) => c.log?.write('stdout', t), stdin, interrupt: () => proc.interrupt() }) : undefined;
    await new Promise<void>((resolve) => {
      const onData = (chunk: Buffer | string): void => {
        const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
        if (tty) tty.input(text);
        else stdin.push(text);
      };
      const finish = (): void => {
        src.off('data', onData);
        src.off('end', onEnd);
        src.off('close', onEnd);
        signal.removeEventListener('abort', finish);
        resolve();
      };
      const onEnd = (): void => {
        const rest = decoder.end();
        if (tty) tty.input(rest);
        else stdin.push(rest);
        if (c.config.stdinOnce) stdin.close();
        finish();
      };
      if (signal.aborted) return finish();
      src.on('data', onData);
      src.once('end', onEnd);
      src.once('close', onEnd);
      signal.addEventListener('abort', finish, { once: true });
      proc.done.then(finish, finish);
    });
  }

  /**
   * Runs `cmd` with streams (see {@link SimExecSession}) and resolves to its exit
   * status. A program that does not read stdin ends at once even while stdin stays
   * open; an interactive shell answers line by line until `exit` or end of input.
   * @throws CRIError Unknown when the container is not running or stops meanwhile
   */
  async execStream(c: ContainerRec, cmd: string[], session: SimExecSession): Promise<number> {
    const stdin = session.stdin ? new StreamStdin() : undefined;
    const write: ShellIO['write'] = session.tty ? (_stream, t) => session.write('stdout', Buffer.from(onlcr(t))) : (stream, t) => session.write(stream, Buffer.from(t));
    const { proc, result } = this.spawn(c, cmd, { tty: session.tty, stdin: stdin ?? stringStdin(''), streamStdin: stdin, write });
    const cleanup: (() => void)[] = [];
    if (session.stdin && stdin) {
      const decoder = new StringDecoder('utf8');
      const tty = session.tty ? new TtyLineDiscipline({ echo: (t) => session.write('stdout', Buffer.from(t)), stdin, interrupt: () => proc.interrupt() }) : undefined;
      const onData = (chunk: Buffer | string): void => {
        const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
        if (tty) tty.input(text);
        else stdin.push(text);
      };
      const onEnd = (): void => {
        stdin.push(decoder.end());
        stdin.close();
      };
      const src = session.stdin;
      src.on('data', onData);
      src.once('end', onEnd);
      src.once('close', onEnd);
      cleanup.push(() => {
        src.off('data', onData);
        src.off('end', onEnd);
        src.off('close', onEnd);
      });
    }
    if (session.signal) {
      const onAbort = (): void => proc.kill();
      if (session.signal.aborted) proc.kill();
      session.signal.addEventListener('abort', onAbort, { once: true });
      cleanup.push(() => session.signal?.removeEventListener('abort', onAbort));
    }
    try {
      return await result;
    } catch (e) {
      if (e instanceof KilledError) {
        if (session.signal?.aborted) return 137;
        throw new CRIError('Unknown', 'failed to exec in container: container stopped');
      }
      throw e;
    } finally {
      for (const f of cleanup) f();
    }
  }
}

/** The sandbox's hostname; none set (hostNetwork pods) means the node's, as containerd does. */
/** CRI state as containerd prints it (`running`, `exited` …). */
function stateName(state: ContainerRec['state']): string {
  return state.replace(/^CONTAINER_/, '').toLowerCase();
}

function sandboxHostname(s: SandboxRec): string {
  return s.config.hostname || osHostname();
}
