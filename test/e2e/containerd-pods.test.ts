/**
 * Pods on real containers, driven with the real kubectl: the example manifests run
 * unchanged (stand-in images from a local registry mirror) against a kubelet on a
 * private containerd (containerd-cluster.ts), with the outcomes of
 * test/fixtures/manifests/EXPECTED.md. Workloads run concurrently (the slowest,
 * liveness-exec, needs ~80 s of real time); restarts of the kubelet and of containerd
 * run afterwards, on their own.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import { R } from '../../src/client/types.js';
import { startContainerdCluster, type ContainerdCluster } from './containerd-cluster.js';
import { AUTH_PASSWORD, AUTH_USER, startAuthRegistry } from './containerd-images.js';
import { eventually, MANIFESTS } from './harness.js';

const NODE = 'ctrd-node';

describe('e2e: pods on containerd', () => {
  let k: ContainerdCluster;
  const scratch = mkdtempSync(join(tmpdir(), 'k8ts-e2e-host-'));

  const pod = (name: string, ns = 'default'): Promise<Pod> => k.admin.get<Pod & { [k: string]: unknown }>(R.pods, ns, name);
  const events = async (name: string, ns = 'default'): Promise<Event[]> =>
    ((await k.admin.list(R.events, ns)).items as unknown as Event[]).filter((e) => e.involvedObject?.name === name);
  const describePod = async (name: string, ns = 'default'): Promise<string> => (await k.kubectl(['describe', 'pod', name, '-n', ns])).stdout;
  const kubectlOk = async (args: string[], timeoutMs?: number): Promise<string> => {
    const r = await k.kubectl(args, { timeoutMs });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const waitPhase = async (name: string, phase: string, ns = 'default', timeoutMs = 90_000): Promise<void> => {
    const r = await k.kubectl(['wait', '-n', ns, `--for=jsonpath={.status.phase}=${phase}`, `pod/${name}`, `--timeout=${timeoutMs / 1000}s`], { timeoutMs: timeoutMs + 10_000 });
    assert.equal(r.code, 0, `${name} never ${phase}: ${r.stderr}\n${await describePod(name, ns)}`);
  };
  const applyIn = async (ns: string, file: string, yaml: string): Promise<void> => {
    await k.apply(yaml, `${ns}-${file}`);
  };
  const applyManifest = async (name: string, ns: string): Promise<void> => {
    const r = await k.kubectl(['apply', '-n', ns, '-f', join(MANIFESTS, `${name}.yaml`)]);
    assert.equal(r.code, 0, r.stderr);
  };
  const busybox = (name: string, spec: string, ns = 'default'): string =>
    `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  nodeName: ${NODE}\n${spec}`;

  before(async () => {
    k = await startContainerdCluster(NODE);
    for (const ns of ['cm-vol', 'cm-vol-missing', 'cm-env', 'cm-env-missing', 'mem-example', 'cmd']) await kubectlOk(['create', 'namespace', ns]);
  });

  after(async () => {
    try {
      await k?.stop();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  describe('workloads', { concurrency: true }, () => {
    it('a busybox pod runs with a pod IP on the node bridge; kubectl logs shows its output; downward API podIP at start', async () => {
      await applyIn(
        'default',
        'hello',
        busybox(
          'hello',
          `  terminationGracePeriodSeconds: 5
  containers:
  - name: c
    image: busybox:1.28
    command: [sh, -c, 'echo hello from $(hostname) at $MY_IP; exec sleep 3600']
    env:
    - name: MY_IP
      valueFrom: {fieldRef: {fieldPath: status.podIP}}
`,
        ),
      );
      await waitPhase('hello', 'Running');
      const ip = (await pod('hello')).status!.podIP!;
      const prefix = k.ctrd.podCIDR.split('.').slice(0, 3).join('.') + '.';
      assert.ok(ip.startsWith(prefix), `pod IP ${ip} is in ${k.ctrd.podCIDR}`);
      const logs = await eventually(async () => {
        const l = await k.kubectl(['logs', 'hello']);
        return l.stdout.includes('hello from') ? l.stdout : '';
      }, 20_000);
      assert.equal(logs, `hello from hello at ${ip}\n`);
    });

    it('liveness-exec.yaml: Unhealthy ×3 with cat’s error, Killing, then a restart', async () => {
      await applyManifest('liveness-exec', 'default');
      await waitPhase('liveness-exec', 'Running');
      await eventually(async () => ((await pod('liveness-exec')).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 150_000, 1000);
      const ev = await events('liveness-exec');
      const unhealthy = ev.find((e) => e.reason === 'Unhealthy');
      // the probe's output as is, newline included (kubectl describe trims it)
      assert.equal(unhealthy?.message, "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n");
      assert.ok((unhealthy?.count ?? 0) >= 3, `Unhealthy x${unhealthy?.count}`);
      assert.ok(ev.some((e) => e.reason === 'Killing' && e.message === 'Container liveness failed liveness probe, will be restarted'));
      const cs = (await pod('liveness-exec')).status!.containerStatuses![0]!;
      assert.equal(cs.lastState?.terminated?.exitCode, 137, 'sh as PID 1 ignores SIGTERM: killed after the grace period');
      assert.match(await describePod('liveness-exec'), /Liveness probe failed: cat: can't open '\/tmp\/healthy': No such file or directory/);
    });

    it('configmap-volume.yaml: lists the ConfigMap keys and Completes; without it ContainerCreating with FailedMount', async () => {
      await kubectlOk(['create', 'configmap', 'special-config', '-n', 'cm-vol', '--from-literal=SPECIAL_LEVEL=very', '--from-literal=SPECIAL_TYPE=charm']);
      await applyManifest('configmap-volume', 'cm-vol');
      await applyManifest('configmap-volume', 'cm-vol-missing');
      await waitPhase('dapi-test-pod', 'Succeeded', 'cm-vol');
      assert.equal(await kubectlOk(['logs', '-n', 'cm-vol', 'dapi-test-pod']), 'SPECIAL_LEVEL\nSPECIAL_TYPE\n');
      const list = await kubectlOk(['get', 'pod', '-n', 'cm-vol', 'dapi-test-pod', '--no-headers']);
      assert.match(list, /0\/1\s+Completed\s+0/);
      const fm = await eventually(async () => (await events('dapi-test-pod', 'cm-vol-missing')).find((e) => e.reason === 'FailedMount'), 20_000);
      assert.equal(fm!.message, 'MountVolume.SetUp failed for volume "config-volume" : configmap "special-config" not found');
      assert.match(await kubectlOk(['get', 'pod', '-n', 'cm-vol-missing', 'dapi-test-pod', '--no-headers']), /0\/1\s+ContainerCreating/);
    });

    it('configmap-env-single.yaml: env has SPECIAL_LEVEL_KEY=very; without the ConfigMap CreateContainerConfigError', async () => {
      await kubectlOk(['create', 'configmap', 'special-config', '-n', 'cm-env', '--from-literal=special.how=very']);
      await applyManifest('configmap-env-single', 'cm-env');
      await applyManifest('configmap-env-single', 'cm-env-missing');
      await waitPhase('dapi-test-pod', 'Succeeded', 'cm-env');
      const env = await kubectlOk(['logs', '-n', 'cm-env', 'dapi-test-pod']);
      assert.match(env, /^SPECIAL_LEVEL_KEY=very$/m);
      assert.match(env, /^KUBERNETES_SERVICE_HOST=10\.96\.0\.1$/m);
      const waiting = await eventually(async () => (await pod('dapi-test-pod', 'cm-env-missing')).status?.containerStatuses?.[0]?.state?.waiting, 20_000);
      assert.deepEqual(waiting, { reason: 'CreateContainerConfigError', message: 'configmap "special-config" not found' });
      assert.equal((await pod('dapi-test-pod', 'cm-env-missing')).status?.phase, 'Pending');
    });

    it('command-onfailure.yaml: printenv HOSTNAME KUBERNETES_PORT from service links, Completed', async () => {
      await applyManifest('command-onfailure', 'cmd');
      await waitPhase('command-demo', 'Succeeded', 'cmd');
      assert.equal(await kubectlOk(['logs', '-n', 'cmd', 'command-demo']), 'command-demo\ntcp://10.96.0.1:443\n');
      assert.equal((await pod('command-demo', 'cmd')).status!.containerStatuses![0]!.restartCount, 0);
    });

    it('memory-oomkilled.yaml: OOMKilled with exit code 137 under the 100Mi limit, restarted', async () => {
      await applyManifest('memory-oomkilled', 'mem-example');
      const term = await eventually(
        async () => {
          const cs = (await pod('memory-demo-2', 'mem-example')).status?.containerStatuses?.[0];
          return cs?.lastState?.terminated ?? (cs?.state?.terminated?.reason === 'OOMKilled' ? cs.state.terminated : undefined);
        },
        60_000,
        500,
      );
      assert.deepEqual([term!.reason, term!.exitCode], ['OOMKilled', 137]);
      const p = await pod('memory-demo-2', 'mem-example');
      assert.equal(p.status?.qosClass, 'Burstable');
      // the pod cgroup carries the pod's memory limit (every container has one)
      const cg = join('/sys/fs/cgroup/memory', k.ctrd.cgroupParent, 'kubepods', 'burstable', `pod${p.metadata!.uid}`, 'memory.limit_in_bytes');
      assert.equal(readFileSync(cg, 'utf8').trim(), String(100 * 2 ** 20));
    });

    it('image pull failure: ErrImagePull with the registry’s error, then ImagePullBackOff', async () => {
      const image = `${k.registry}/k8ts/does-not-exist:1.0`;
      // every waiting state the pod passes through, from a watch opened before it exists:
      // ErrImagePull lasts only until the next sync (a PLEG event can bring that within 1 s)
      const waits: { reason?: string; message?: string }[] = [];
      const watch = k.admin.watch<Pod & { [k: string]: unknown }>(R.pods, 'default', { fieldSelector: 'metadata.name=nopull' }, (e) => {
        const w = e.object?.status?.containerStatuses?.[0]?.state?.waiting;
        if (w) waits.push(w);
      });
      let first: { reason?: string; message?: string } | undefined;
      try {
        await applyIn('default', 'nopull', busybox('nopull', `  containers:\n  - name: c\n    image: ${image}\n`));
        first = await eventually(() => waits.find((w) => w.reason === 'ErrImagePull'), 60_000, 100);
      } finally {
        watch.stop();
      }
      assert.equal(first!.message, `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`);
      await eventually(async () => (await pod('nopull')).status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 30_000, 200);
      const ev = await events('nopull');
      assert.ok(ev.some((e) => e.reason === 'Failed' && e.message === `Failed to pull image "${image}": ${first!.message}`));
      assert.ok(ev.some((e) => e.reason === 'Failed' && e.message === 'Error: ErrImagePull'));
      assert.ok(ev.some((e) => e.reason === 'BackOff' && e.message === `Back-off pulling image "${image}"`));
    });

    it('imagePullSecrets: a dockerconfigjson secret pulls from a registry with auth; without it 401', async () => {
      const reg = await startAuthRegistry();
      try {
        await kubectlOk(['create', 'secret', 'docker-registry', 'regcred', `--docker-server=${reg.host}`, `--docker-username=${AUTH_USER}`, `--docker-password=${AUTH_PASSWORD}`]);
        // Always: once pulled with credentials, an IfNotPresent image is there for every pod (as upstream)
        const spec = (secret: boolean): string =>
          `${secret ? '  imagePullSecrets: [{name: regcred}]\n' : ''}  terminationGracePeriodSeconds: 2\n  containers:\n  - name: c\n    image: ${reg.image}\n    imagePullPolicy: Always\n    command: [sleep, '3600']\n`;
        await applyIn('default', 'private', busybox('private', spec(true)));
        await applyIn('default', 'private-noauth', busybox('private-noauth', spec(false)));
        await waitPhase('private', 'Running');
        const w = await eventually(
          async () => {
            const x = (await pod('private-noauth')).status?.containerStatuses?.[0]?.state?.waiting;
            return x?.reason === 'ErrImagePull' || x?.reason === 'ImagePullBackOff' ? x : undefined;
          },
          30_000,
          200,
        );
        const failed = (await events('private-noauth')).find((e) => e.reason === 'Failed' && e.message?.startsWith('Failed to pull image'));
        assert.match(failed?.message ?? '', /401 Unauthorized/, `${w!.reason}: ${failed?.message}`);
      } finally {
        await k.kubectl(['delete', 'pod', 'private', 'private-noauth', '--wait=false']);
        await reg.stop();
      }
    });

    it('security context: runAsUser/fsGroup/noNewPrivs in the process; runAsNonRoot with uid 0 is a CreateContainerConfigError', async () => {
      await applyIn(
        'default',
        'secctx',
        busybox(
          'secctx',
          `  securityContext: {runAsUser: 1000, fsGroup: 2000}
  volumes: [{name: sec-ctx-vol, emptyDir: {}}]
  containers:
  - name: sec-ctx-demo
    image: busybox:1.28
    command: [sh, -c, 'id; stat -c %g /data/demo; grep NoNewPrivs /proc/self/status; touch /data/demo/f && stat -c %g /data/demo/f; sleep 3600']
    volumeMounts: [{name: sec-ctx-vol, mountPath: /data/demo}]
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
`,
        ),
      );
      await applyIn('default', 'rootless', busybox('rootless', `  containers:\n  - name: c\n    image: busybox:1.28\n    securityContext: {runAsNonRoot: true, runAsUser: 0}\n`));
      await waitPhase('secctx', 'Running');
      const out = await eventually(async () => {
        const l = (await k.kubectl(['logs', 'secctx'])).stdout;
        return l.split('\n').length >= 5 ? l : '';
      }, 20_000);
      // the image has no passwd entry for 1000: gid 0; fsGroup 2000 as supplementary group
      // (runc also keeps the primary group 0 in the list)
      const [id, dirGroup, nnp, fileGroup] = out.split('\n');
      assert.match(id!, /^uid=1000 gid=0\(root\) groups=(0\(root\),)?2000$/);
      assert.deepEqual([dirGroup, nnp, fileGroup], ['2000', 'NoNewPrivs:\t1', '2000'], 'fsGroup owns the emptyDir (setgid: new files inherit it); no_new_privs set');
      const waiting = await eventually(async () => (await pod('rootless')).status?.containerStatuses?.[0]?.state?.waiting?.message, 20_000);
      const p = await pod('rootless');
      assert.equal(waiting, `container's runAsUser breaks non-root policy (pod: "rootless_default(${p.metadata!.uid})", container: c)`);
    });

    it('tcp-liveness-readiness.yaml: READY 0/1 until the first TCP check at 15 s, then 1/1, no restarts', async () => {
      await applyManifest('tcp-liveness-readiness', 'default');
      await waitPhase('goproxy', 'Running');
      const r = await k.kubectl(['wait', '--for=condition=Ready', 'pod/goproxy', '--timeout=40s'], { timeoutMs: 50_000 });
      assert.equal(r.code, 0, r.stderr);
      const st = (await pod('goproxy')).status!;
      const startedAt = Date.parse(st.containerStatuses![0]!.state!.running!.startedAt!);
      const readyAt = Date.parse(st.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime!);
      assert.ok(readyAt - startedAt >= 14_000, `ready ${readyAt - startedAt} ms after the start: not before the first check at 15 s`);
      assert.match(await kubectlOk(['get', 'pod', 'goproxy', '--no-headers']), /1\/1\s+Running\s+0/);
    });

    it('httpGet probes and hooks: postStart exec, readiness over HTTP, failing liveness restarts', async () => {
      await applyIn(
        'default',
        'web',
        busybox(
          'web',
          `  terminationGracePeriodSeconds: 2
  containers:
  - name: web
    image: busybox:1.28
    command: [sh, -c, 'mkdir -p /www && exec httpd -f -p 8080 -h /www']
    ports: [{name: http, containerPort: 8080}]
    lifecycle:
      postStart: {exec: {command: [sh, -c, 'mkdir -p /www && echo ok > /www/ready']}}
    readinessProbe: {httpGet: {path: /ready, port: http}, periodSeconds: 1, timeoutSeconds: 5}
    livenessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 1, failureThreshold: 2, timeoutSeconds: 5}
`,
        ),
      );
      await eventually(async () => ((await pod('web')).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 60_000, 500);
      const ev = await events('web');
      assert.ok(
        ev.some((e) => e.reason === 'Unhealthy' && e.message === 'Liveness probe failed: HTTP probe failed with statuscode: 404'),
        JSON.stringify(ev.map((e) => e.message)),
      );
      assert.ok(ev.some((e) => e.reason === 'Killing' && e.message === 'Container web failed liveness probe, will be restarted'));
      await eventually(async () => (await pod('web')).status?.containerStatuses?.[0]?.ready === true, 30_000, 200);
    });

    it('an exec probe over its timeout fails with "command … timed out"', async () => {
      await applyIn(
        'default',
        'slowprobe',
        busybox(
          'slowprobe',
          `  terminationGracePeriodSeconds: 2\n  containers:\n  - name: c\n    image: busybox:1.28\n    command: [sleep, '3600']\n    readinessProbe: {exec: {command: [sleep, '5']}, timeoutSeconds: 1, periodSeconds: 2}\n`,
        ),
      );
      const ev = await eventually(async () => (await events('slowprobe')).find((e) => e.reason === 'Unhealthy'), 90_000, 500);
      assert.equal(ev!.message, 'Readiness probe failed: command "sleep 5" timed out');
      assert.equal((await pod('slowprobe')).status?.containerStatuses?.[0]?.ready, false);
    });

    it('a failing postStart hook: FailedPostStartHook, the container is killed and restarted', async () => {
      await applyIn(
        'default',
        'badhook',
        busybox(
          'badhook',
          `  terminationGracePeriodSeconds: 2
  containers:
  - name: c
    image: busybox:1.28
    command: [sleep, '3600']
    lifecycle:
      postStart: {exec: {command: [sh, -c, 'echo no; exit 3']}}
`,
        ),
      );
      const ev = await eventually(
        async () => {
          const e = await events('badhook');
          return e.some((x) => x.reason === 'FailedPostStartHook') && e.some((x) => x.reason === 'Killing' && x.message === 'FailedPostStartHook') ? e : undefined;
        },
        30_000,
        500,
      );
      assert.equal(ev!.find((x) => x.reason === 'FailedPostStartHook')!.message, 'PostStartHook failed');
      const st = await eventually(async () => (await pod('badhook')).status?.containerStatuses?.[0], 10_000);
      const w = st!.state?.waiting;
      if (w?.reason === 'PostStartHookError') {
        assert.match(
          w.message!,
          /^Exec lifecycle hook \(\[sh -c echo no; exit 3\]\) for Container "c" in Pod "badhook_default\(.*\)" failed - error: command 'sh -c echo no; exit 3' exited with 3: , message: "no\\n"$/,
        );
      }
    });

    it('termination messages (file, FallbackToLogsOnError) and volumes (tmpfs emptyDir, hostPath FileOrCreate, subPath, readOnly)', async () => {
      const hostFile = join(scratch, 'host-file.txt');
      await applyIn(
        'default',
        'msg-log',
        busybox(
          'msg-log',
          `  restartPolicy: Never\n  containers:\n  - name: c\n    image: busybox:1.28\n    terminationMessagePolicy: FallbackToLogsOnError\n    command: [sh, -c, 'echo boom >&2; exit 3']\n`,
        ),
      );
      await applyIn(
        'default',
        'msg-file',
        busybox('msg-file', `  restartPolicy: Never\n  containers:\n  - name: c\n    image: busybox:1.28\n    command: [sh, -c, 'printf done > /dev/termination-log']\n`),
      );
      await applyIn(
        'default',
        'vols',
        busybox(
          'vols',
          `  terminationGracePeriodSeconds: 2
  volumes:
  - {name: cache, emptyDir: {medium: Memory, sizeLimit: 16Mi}}
  - {name: data, emptyDir: {}}
  - {name: host, hostPath: {path: ${hostFile}, type: FileOrCreate}}
  containers:
  - name: c
    image: busybox:1.28
    command: [sh, -c, 'grep " /cache " /proc/mounts; echo hi > /sub/x && echo sub-ok; echo from-pod > /host-file; touch /ro/y 2>/dev/null || echo ro-ok; sleep 3600']
    volumeMounts:
    - {name: cache, mountPath: /cache}
    - {name: data, mountPath: /sub, subPath: a/b}
    - {name: data, mountPath: /ro, readOnly: true}
    - {name: host, mountPath: /host-file}
`,
        ),
      );
      await waitPhase('msg-log', 'Failed');
      const t1 = (await pod('msg-log')).status!.containerStatuses![0]!.state!.terminated!;
      assert.deepEqual([t1.exitCode, t1.reason, t1.message], [3, 'Error', 'boom\n']);
      await waitPhase('msg-file', 'Succeeded');
      const t2 = (await pod('msg-file')).status!.containerStatuses![0]!.state!.terminated!;
      assert.deepEqual([t2.exitCode, t2.reason, t2.message], [0, 'Completed', 'done']);
      await waitPhase('vols', 'Running');
      const out = await eventually(async () => {
        const l = (await k.kubectl(['logs', 'vols'])).stdout;
        return l.includes('ro-ok') ? l : '';
      }, 20_000);
      const [mnt, sub, ro] = out.trim().split('\n');
      assert.match(mnt!, /^tmpfs \/cache tmpfs rw,.*size=16384k/);
      assert.deepEqual([sub, ro], ['sub-ok', 'ro-ok']);
      assert.equal(readFileSync(hostFile, 'utf8'), 'from-pod\n');
      const uid = (await pod('vols')).metadata!.uid!;
      assert.equal(readFileSync(join(k.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'data', 'a', 'b', 'x'), 'utf8'), 'hi\n');
    });

    it('deletion: preStop runs before SIGTERM; the pod is gone well within its grace period', async () => {
      const host = join(scratch, 'prestop');
      await applyIn(
        'default',
        'graceful',
        busybox(
          'graceful',
          `  terminationGracePeriodSeconds: 120
  volumes: [{name: host, hostPath: {path: ${host}, type: DirectoryOrCreate}}]
  containers:
  - name: c
    image: busybox:1.28
    command: [sh, -c, 'trap "echo term >> /host/order; exit 0" TERM; while true; do sleep 0.1; done']
    volumeMounts: [{name: host, mountPath: /host}]
    lifecycle:
      preStop: {exec: {command: [sh, -c, 'echo prestop >> /host/order']}}
`,
        ),
      );
      await applyIn(
        'default',
        'stubborn',
        busybox('stubborn', `  terminationGracePeriodSeconds: 3\n  containers:\n  - name: c\n    image: busybox:1.28\n    command: [sh, -c, 'sleep 3600']\n`),
      );
      await waitPhase('graceful', 'Running');
      await waitPhase('stubborn', 'Running');
      const uid = (await pod('stubborn')).metadata!.uid!;
      let t = Date.now();
      await kubectlOk(['delete', 'pod', 'graceful'], 90_000);
      const graceful = Date.now() - t;
      // a long grace period, so that finishing in half of it proves the TERM ended it
      assert.ok(graceful < 60_000, `deleted in ${graceful} ms (it exits on TERM)`);
      assert.equal(readFileSync(join(host, 'order'), 'utf8'), 'prestop\nterm\n');
      t = Date.now();
      await kubectlOk(['delete', 'pod', 'stubborn'], 60_000);
      const stubborn = Date.now() - t;
      assert.ok(stubborn >= 2500 && stubborn < 30_000, `sh as PID 1 ignores TERM: SIGKILL after the 3 s grace period (took ${stubborn} ms)`);
      // nothing left: sandbox, pod directory, pod cgroup
      assert.equal((await k.runtime.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': uid } })).length, 0);
      assert.ok(!existsSync(join(k.dir, 'kubelet', 'pods', uid)));
      assert.ok(!existsSync(join('/sys/fs/cgroup/memory', k.ctrd.cgroupParent, 'kubepods', 'besteffort', `pod${uid}`)), 'pod cgroup removed');
    });
  });

  describe('restarts', () => {
    it('a restarted kubelet adopts running pods by their CRI labels: same container, no second sandbox', async () => {
      await applyIn(
        'default',
        'steady',
        busybox('steady', `  terminationGracePeriodSeconds: 2\n  containers:\n  - name: c\n    image: busybox:1.28\n    command: [sleep, '3600']\n`),
      );
      await waitPhase('steady', 'Running');
      const before = await pod('steady');
      const id = before.status!.containerStatuses![0]!.containerID;
      await k.restartKubelet();
      // the new kubelet knows the pod and has synced it once more: whatever it would start
      // (a second sandbox, a new container) it has started by then
      const kl = k.kubelet.kubelet;
      await eventually(() => kl.knownPods().some((p) => p.metadata?.uid === before.metadata!.uid), 30_000);
      kl.resyncAll();
      await kl.idle();
      const after = await pod('steady');
      assert.equal(after.status!.containerStatuses![0]!.containerID, id);
      assert.equal(after.status!.containerStatuses![0]!.restartCount, 0);
      assert.equal((await k.runtime.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': before.metadata!.uid! } })).length, 1);
    });

    it('containerd killed: the supervisor restarts it, running pods keep running, new pods start', async () => {
      const pid = k.ctrd.containerd.pid!;
      const restarts = k.ctrd.containerd.restarts;
      process.kill(pid, 'SIGKILL');
      await eventually(() => k.ctrd.containerd.restarts > restarts && k.ctrd.containerd.pid !== pid, 30_000, 100);
      await applyIn(
        'default',
        'after-crash',
        busybox('after-crash', `  terminationGracePeriodSeconds: 2\n  containers:\n  - name: c\n    image: busybox:1.28\n    command: [sleep, '3600']\n`),
      );
      await waitPhase('after-crash', 'Running', 'default', 90_000);
      const steady = await pod('steady');
      assert.equal(steady.status!.containerStatuses![0]!.restartCount, 0);
      assert.ok(steady.status!.containerStatuses![0]!.state?.running);
    });
  });
});
