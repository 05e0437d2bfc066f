/**
 * One conformance suite for every `Runtime` (cri/remote against containerd, cri/sim):
 * `runRuntimeTests({ name, newRuntime })` registers node:test cases for sandbox and
 * container lifecycles, statuses and state transitions, list filters, exit codes and
 * reasons, CRI-format logs, ExecSync, stop timeouts and images.
 *
 * Commands the suite runs in containers (a simulated runtime must interpret exactly
 * these; a real one runs them with busybox `sh`):
 *
 * | command | behaviour |
 * | --- | --- |
 * | `['sh', '-c', S]` | runs the statements of S, separated by `; `, in order |
 * | `echo WORDS` | writes WORDS + "\n" to stdout; `$NAME` is replaced by the env var NAME ('' if unset) |
 * | `echo WORDS >&2` | the same on stderr |
 * | `exit N` | ends with exit code N (end of script = exit 0) |
 * | `sleep N` | waits N seconds |
 * | `trap 'exit N' TERM` | from then on, StopContainer's SIGTERM ends it (within 1 s) with exit code N |
 * | `while true; do sleep 1; done` | runs until stopped; without a `trap` it ignores SIGTERM (sh as PID 1 has no default TERM action), so StopContainer SIGKILLs it after the timeout → exit code 137 |
 *
 * ExecSync uses the same `['sh', '-c', S]` vocabulary. Expected container reasons:
 * exit 0 → "Completed", non-zero → "Error". Logs: `<logDirectory>/<logPath>` holds
 * `<RFC3339Nano> <stdout|stderr> <P|F> <text>` lines. The image `<busybox repo>:k8ts-no-such-tag`
 * must not exist (a pull of it fails).
 *
 * @see https://github.com/kubernetes/cri-api/blob/v0.32.0/pkg/apis/runtime/v1/api.proto (the contract: idempotent stop/remove, …)
 * @see https://github.com/kubernetes-sigs/cri-tools/tree/master/pkg/validate (upstream's CRI validation suite, the model for this one)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CRIError, CRILabels, type ContainerConfig, type ContainerStatus, type PodSandboxConfig, type Runtime } from './api.js';

/** What `newRuntime` hands the suite. */
export interface RuntimeTestHarness {
  runtime: Runtime;
  /** `busybox`: a pullable image with busybox `sh`; `pause`: the sandbox image, if the runtime shows it */
  images: { busybox: string; pause?: string };
  /** the pod network's CIDR: when given, sandbox IPs must fall inside it (IPv4) */
  podCIDR?: string;
  /** sandboxes get `linux.cgroupParent = <cgroupParent>/pod<uid>` (cleanup is the harness's) */
  cgroupParent?: string;
  /** wall clock of the runtime, ms since epoch (default Date.now), to check ns timestamps */
  now?: () => number;
  /** advance time while the suite polls (default: really wait `ms`); lets a sim inject its clock */
  tick?: (ms: number) => Promise<void>;
  /** releases the runtime and everything the harness started */
  cleanup(): Promise<void>;
}

export interface RuntimeTestCapabilities {
  /** sandboxes get an IP from a pod network (default true) */
  podNetwork?: boolean;
  /** longest time a state change may take to show, ms (default 10 000) */
  settleTimeoutMs?: number;
}

export interface RuntimeTestOptions {
  name: string;
  newRuntime: () => Promise<RuntimeTestHarness>;
  capabilities?: RuntimeTestCapabilities;
}

const LOG_LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) (stdout|stderr) (P|F) (.*)$/;

/** Parses a CRI log file into entries (see the table above). */
export function parseCRILog(text: string): { time: string; stream: 'stdout' | 'stderr'; tag: 'P' | 'F'; msg: string }[] {
  const out: { time: string; stream: 'stdout' | 'stderr'; tag: 'P' | 'F'; msg: string }[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const m = LOG_LINE.exec(line);
    if (!m) throw new Error(`not a CRI log line: ${JSON.stringify(line)}`);
    out.push({ time: m[1]!, stream: m[2] as 'stdout' | 'stderr', tag: m[3] as 'P' | 'F', msg: m[4]! });
  }
  return out;
}

function ipv4InCIDR(ip: string, cidr: string): boolean {
  const [net, bits] = cidr.split('/');
  const toInt = (s: string) => s.split('.').reduce((a, o) => (a << 8) + Number(o), 0) >>> 0;
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return (toInt(ip) & mask) >>> 0 === (toInt(net!) & mask) >>> 0;
}

/** Registers the conformance suite as a node:test `describe` block. */
export function runRuntimeTests(opts: RuntimeTestOptions): void {
  const caps = { podNetwork: true, settleTimeoutMs: 10_000, ...opts.capabilities };
  const runId = randomUUID().slice(0, 8);
  let h: RuntimeTestHarness;
  let rt: Runtime;
  let logRoot: string;
  const now = () => (h.now ?? Date.now)();

  const pause = (ms: number) => (h.tick ? h.tick(ms) : new Promise<void>((r) => setTimeout(r, ms)));
  async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = caps.settleTimeoutMs): Promise<T> {
    const deadline = now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await pause(25);
    }
  }
  const waitState = (id: string, state: ContainerStatus['state']) =>
    waitFor(`container ${id} to be ${state}`, async () => {
      const s = await rt.containerStatus(id);
      return s.state === state ? s : undefined;
    });

  function sandboxConfig(name: string, extra: Partial<PodSandboxConfig> = {}): PodSandboxConfig {
    const uid = randomUUID();
    const logDirectory = join(logRoot, `rt-test_${name}_${uid}`);
    mkdirSync(logDirectory, { recursive: true });
    return {
      metadata: { name, uid, namespace: 'rt-test', attempt: 0 },
      hostname: name,
      logDirectory,
      portMappings: [],
      labels: { [CRILabels.podName]: name, [CRILabels.podNamespace]: 'rt-test', [CRILabels.podUID]: uid, 'k8ts.test/run': runId },
      annotations: { 'k8ts.test/note': `sandbox ${name}` },
      linux: {
        cgroupParent: h.cgroupParent ? `${h.cgroupParent}/pod${uid}` : undefined,
        securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } },
      },
      ...extra,
    };
  }

  function containerConfig(sb: PodSandboxConfig, name: string, command: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig {
    mkdirSync(join(sb.logDirectory, name), { recursive: true });
    return {
      metadata: { name, attempt: 0 },
      image: { image: h.images.busybox },
      command,
      args: [],
      workingDir: '',
      envs: [],
      mounts: [],
      labels: { [CRILabels.containerName]: name, [CRILabels.podUID]: sb.metadata.uid, 'k8ts.test/run': runId },
      annotations: { 'k8ts.test/note': `container ${name}` },
      logPath: `${name}/0.log`,
      stdin: false,
      stdinOnce: false,
      tty: false,
      // as the kubelet sets them for a pod without shareProcessNamespace: the command is PID 1
      linux: { securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
      ...extra,
    };
  }

  /** A running sandbox; removed by the caller's `finally`. */
  async function withSandbox<T>(name: string, fn: (id: string, cfg: PodSandboxConfig) => Promise<T>): Promise<T> {
    const cfg = sandboxConfig(name);
    const id = await rt.runPodSandbox(cfg);
    try {
      return await fn(id, cfg);
    } finally {
      await rt.stopPodSandbox(id).catch(() => {});
      await rt.removePodSandbox(id).catch(() => {});
    }
  }

  async function runContainer(sbId: string, sb: PodSandboxConfig, name: string, command: string[], extra?: Partial<ContainerConfig>) {
    const id = await rt.createContainer(sbId, containerConfig(sb, name, command, extra), sb);
    await rt.startContainer(id);
    return id;
  }

  const missingImage = () => {
    const ref = h.images.busybox;
    const slash = ref.lastIndexOf('/');
    const colon = ref.lastIndexOf(':');
    return (colon > slash ? ref.slice(0, colon) : ref) + ':k8ts-no-such-tag';
  };

  describe(`CRI runtime conformance: ${opts.name}`, () => {
    before(async () => {
      h = await opts.newRuntime();
      rt = h.runtime;
      logRoot = mkdtempSync(join(tmpdir(), 'k8ts-rt-logs-'));
      await rt.pullImage({ image: h.images.busybox });
    });

    after(async () => {
      if (!h) return;
      try {
        for (const s of await rt.listPodSandbox({ labelSelector: { 'k8ts.test/run': runId } })) {
          await rt.stopPodSandbox(s.id).catch(() => {});
          await rt.removePodSandbox(s.id).catch(() => {});
        }
      } finally {
        if (logRoot) rmSync(logRoot, { recursive: true, force: true });
        await h.cleanup();
      }
    });

    test('version and status: a ready runtime speaking CRI v1', async () => {
      const v = await rt.version();
      assert.ok(v.runtimeName, 'runtimeName');
      assert.ok(v.runtimeVersion, 'runtimeVersion');
      assert.equal(v.runtimeApiVersion, 'v1');
      const { conditions } = await rt.status();
      const cond = (t: string) => conditions.find((c) => c.type === t);
      assert.equal(cond('RuntimeReady')?.status, true, JSON.stringify(conditions));
      assert.equal(cond('NetworkReady')?.status, true, JSON.stringify(conditions));
    });

    test('images: pull, status, list; a missing image is absent and fails to pull', async () => {
      const ref = await rt.pullImage({ image: h.images.busybox });
      assert.ok(ref, 'pull returns an image reference');
      const img = await rt.imageStatus({ image: h.images.busybox });
      assert.ok(img, 'imageStatus finds the pulled image');
      assert.ok(img.repoTags.includes(h.images.busybox), `repoTags ${img.repoTags} include ${h.images.busybox}`);
      assert.ok(img.size > 0, 'size in bytes');
      assert.ok(ref === img.id || img.repoDigests.some((d) => d === ref) || ref.includes(img.id.replace(/^sha256:/, '')), `pull ref ${ref} names image ${img.id}`);
      assert.ok(
        (await rt.listImages()).some((i) => i.id === img.id),
        'listImages has it',
      );
      assert.equal(await rt.imageStatus({ image: missingImage() }), undefined);
      await assert.rejects(rt.pullImage({ image: missingImage() }), (e) => e instanceof CRIError);
    });

    test('sandbox lifecycle: ready → list/filter → not ready → removed (stop/remove idempotent)', async () => {
      const cfg = sandboxConfig('lifecycle');
      const t0 = now();
      const id = await rt.runPodSandbox(cfg);
      const t1 = now();
      try {
        const st = await rt.podSandboxStatus(id);
        assert.equal(st.id, id);
        assert.equal(st.state, 'SANDBOX_READY');
        assert.deepEqual(st.metadata, cfg.metadata);
        for (const [k, v] of Object.entries(cfg.labels)) assert.equal(st.labels[k], v, `label ${k}`);
        assert.equal(st.annotations['k8ts.test/note'], 'sandbox lifecycle');
        assert.ok(st.createdAt >= (t0 - 2000) * 1e6 && st.createdAt <= (t1 + 2000) * 1e6, `createdAt ${st.createdAt} is ns within the call`);

        assert.deepEqual(
          (await rt.listPodSandbox({ id })).map((s) => s.id),
          [id],
        );
        const byLabel = await rt.listPodSandbox({ labelSelector: { [CRILabels.podUID]: cfg.metadata.uid } });
        assert.deepEqual(
          byLabel.map((s) => s.id),
          [id],
        );
        assert.equal(byLabel[0]!.state, 'SANDBOX_READY');
        assert.deepEqual(await rt.listPodSandbox({ labelSelector: { [CRILabels.podUID]: cfg.metadata.uid, 'k8ts.test/run': 'other' } }), []);
        assert.ok((await rt.listPodSandbox({ state: 'SANDBOX_READY' })).some((s) => s.id === id));
        assert.ok(!(await rt.listPodSandbox({ state: 'SANDBOX_NOTREADY' })).some((s) => s.id === id));

        await rt.stopPodSandbox(id);
        assert.equal((await rt.podSandboxStatus(id)).state, 'SANDBOX_NOTREADY');
        assert.ok((await rt.listPodSandbox({ state: 'SANDBOX_NOTREADY' })).some((s) => s.id === id));
        await rt.stopPodSandbox(id);
      } finally {
        await rt.stopPodSandbox(id).catch(() => {});
        await rt.removePodSandbox(id);
      }
      await assert.rejects(rt.podSandboxStatus(id), (e) => e instanceof CRIError && e.code === 'NotFound');
      assert.deepEqual(await rt.listPodSandbox({ id }), []);
      await rt.removePodSandbox(id);
    });

    test('sandbox network: a pod IP from the pod network', { skip: !caps.podNetwork && 'runtime has no pod network' }, async () => {
      await withSandbox('net', async (id) => {
        const st = await rt.podSandboxStatus(id);
        assert.ok(st.network?.ip, 'sandbox has an IP');
        if (h.podCIDR && !h.podCIDR.includes(':')) assert.ok(ipv4InCIDR(st.network.ip, h.podCIDR), `${st.network.ip} in ${h.podCIDR}`);
      });
    });

    test('container lifecycle: created → running → exited (graceful stop) → removed', async () => {
      await withSandbox('ctr-life', async (sbId, sb) => {
        const cfg = containerConfig(sb, 'main', ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"]);
        const t0 = now();
        const id = await rt.createContainer(sbId, cfg, sb);
        let st = await rt.containerStatus(id);
        assert.equal(st.id, id);
        assert.equal(st.state, 'CONTAINER_CREATED');
        assert.deepEqual(st.metadata, { name: 'main', attempt: 0 });
        assert.equal(st.startedAt, 0);
        assert.equal(st.finishedAt, 0);
        assert.ok(st.createdAt >= (t0 - 2000) * 1e6, 'createdAt in ns');
        assert.equal(st.labels[CRILabels.containerName], 'main');
        assert.equal(st.annotations['k8ts.test/note'], 'container main');
        assert.ok(st.imageRef, 'imageRef');
        assert.equal(st.logPath, join(sb.logDirectory, 'main/0.log'));

        await rt.startContainer(id);
        st = await rt.containerStatus(id);
        assert.equal(st.state, 'CONTAINER_RUNNING');
        assert.ok(st.startedAt >= st.createdAt, 'startedAt ≥ createdAt');

        const listed = await rt.listContainers({ podSandboxId: sbId });
        assert.deepEqual(
          listed.map((c) => c.id),
          [id],
        );
        assert.equal(listed[0]!.podSandboxId, sbId);
        assert.equal(listed[0]!.state, 'CONTAINER_RUNNING');
        assert.deepEqual(
          (await rt.listContainers({ labelSelector: { [CRILabels.podUID]: sb.metadata.uid } })).map((c) => c.id),
          [id],
        );
        assert.deepEqual(await rt.listContainers({ labelSelector: { [CRILabels.podUID]: sb.metadata.uid, [CRILabels.containerName]: 'other' } }), []);
        assert.ok((await rt.listContainers({ state: 'CONTAINER_RUNNING' })).some((c) => c.id === id));
        assert.deepEqual(
          (await rt.listContainers({ id })).map((c) => c.id),
          [id],
        );

        const s0 = now();
        await rt.stopContainer(id, 30);
        assert.ok(now() - s0 < 10_000, 'a SIGTERM-handling container stops well before the timeout');
        st = await rt.containerStatus(id);
        assert.equal(st.state, 'CONTAINER_EXITED');
        assert.equal(st.exitCode, 0);
        assert.ok(st.finishedAt >= st.startedAt, 'finishedAt ≥ startedAt');
        assert.ok((await rt.listContainers({ state: 'CONTAINER_EXITED', podSandboxId: sbId })).some((c) => c.id === id));
        await rt.stopContainer(id, 1);

        await rt.removeContainer(id);
        await assert.rejects(rt.containerStatus(id), (e) => e instanceof CRIError && e.code === 'NotFound');
        assert.deepEqual(await rt.listContainers({ podSandboxId: sbId }), []);
        await rt.removeContainer(id);
      });
    });

    test('exit codes and reasons: exit 3 → Error, exit 0 → Completed', async () => {
      await withSandbox('exits', async (sbId, sb) => {
        const failed = await runContainer(sbId, sb, 'fails', ['sh', '-c', 'echo hi; exit 3']);
        const ok = await runContainer(sbId, sb, 'succeeds', ['sh', '-c', 'exit 0']);
        const f = await waitState(failed, 'CONTAINER_EXITED');
        assert.equal(f.exitCode, 3);
        assert.equal(f.reason, 'Error');
        // a fast exit may be stamped before the runtime records startedAt: compare with createdAt
        assert.ok(f.finishedAt > 0 && f.finishedAt >= f.createdAt, `finishedAt ${f.finishedAt} ≥ createdAt ${f.createdAt}`);
        const o = await waitState(ok, 'CONTAINER_EXITED');
        assert.equal(o.exitCode, 0);
        assert.equal(o.reason, 'Completed');
      });
    });

    test('logs: stdout and stderr in CRI format at logDirectory/logPath, env expanded', async () => {
      await withSandbox('logs', async (sbId, sb) => {
        const id = await runContainer(sbId, sb, 'talker', ['sh', '-c', 'echo hello $WHO; echo oops >&2; exit 0'], {
          envs: [{ key: 'WHO', value: 'world' }],
        });
        const st = await waitState(id, 'CONTAINER_EXITED');
        const entries = await waitFor('both log lines', async () => {
          let text: string;
          try {
            text = readFileSync(st.logPath, 'utf8');
          } catch {
            return undefined;
          }
          const e = parseCRILog(text);
          return e.length >= 2 ? e : undefined;
        });
        assert.deepEqual(entries.map((e) => `${e.stream} ${e.tag} ${e.msg}`).sort(), ['stderr F oops', 'stdout F hello world']);
        for (const e of entries) assert.ok(!Number.isNaN(Date.parse(e.time)), `timestamp ${e.time}`);
      });
    });

    test('execSync: stdout, stderr and exit code of a command in a running container', async () => {
      await withSandbox('exec', async (sbId, sb) => {
        const id = await runContainer(sbId, sb, 'idle', ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"]);
        await waitState(id, 'CONTAINER_RUNNING');
        const r = await rt.execSync(id, ['sh', '-c', 'echo out; echo err >&2; exit 7'], 10);
        assert.equal(r.stdout.toString(), 'out\n');
        assert.equal(r.stderr.toString(), 'err\n');
        assert.equal(r.exitCode, 7);
        const ok = await rt.execSync(id, ['sh', '-c', 'echo $GREETING'], 10);
        assert.equal(ok.exitCode, 0);
        assert.equal(ok.stdout.toString(), '\n', 'an unset variable expands to nothing');
        await rt.stopContainer(id, 10);
      });
    });

    test('stopContainer: SIGKILL after the timeout for a process that ignores SIGTERM (137)', async () => {
      await withSandbox('stop-timeout', async (sbId, sb) => {
        const id = await runContainer(sbId, sb, 'stubborn', ['sh', '-c', 'while true; do sleep 1; done']);
        await waitState(id, 'CONTAINER_RUNNING');
        const t0 = now();
        await rt.stopContainer(id, 1);
        const took = now() - t0;
        assert.ok(took >= 900, `waited the 1 s grace period (took ${took} ms)`);
        assert.ok(took < 10_000, `killed soon after the timeout (took ${took} ms)`);
        const st = await rt.containerStatus(id);
        assert.equal(st.state, 'CONTAINER_EXITED');
        assert.equal(st.exitCode, 137);
      });
    });

    test('removing a sandbox removes its containers', async () => {
      const cfg = sandboxConfig('cascade');
      const sbId = await rt.runPodSandbox(cfg);
      const id = await runContainer(sbId, cfg, 'child', ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"]);
      await rt.stopPodSandbox(sbId);
      assert.equal((await rt.containerStatus(id)).state, 'CONTAINER_EXITED', 'StopPodSandbox stops its containers');
      await rt.removePodSandbox(sbId);
      assert.deepEqual(await rt.listContainers({ podSandboxId: sbId }), []);
      await assert.rejects(rt.containerStatus(id), (e) => e instanceof CRIError && e.code === 'NotFound');
    });

    test('unknown ids fail with NotFound', async () => {
      await assert.rejects(rt.containerStatus('k8ts-no-such-container'), (e) => e instanceof CRIError && e.code === 'NotFound');
      await assert.rejects(rt.podSandboxStatus('k8ts-no-such-sandbox'), (e) => e instanceof CRIError && e.code === 'NotFound');
    });

    test('removeImage: the image is gone, then pulls again', async () => {
      await rt.removeImage({ image: h.images.busybox });
      assert.equal(await rt.imageStatus({ image: h.images.busybox }), undefined);
      await rt.removeImage({ image: h.images.busybox });
      await rt.pullImage({ image: h.images.busybox });
      assert.ok(await rt.imageStatus({ image: h.images.busybox }));
    });
  });
}
