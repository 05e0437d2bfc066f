import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { makeTempDir } from '../../../test/support/tmp.js';
import { ContainerConfigError } from '../env/env.js';
import { generateContainerConfig } from './container-config.js';
import { Annotations } from './labels.js';
import { linuxResources, milliCPUToQuota, milliCPUToShares, oomScoreAdjust } from './resources.js';
import { generateSandboxConfig } from './sandbox-config.js';
import { containerSecurityContext, DEFAULT_MASKED_PATHS, sandboxSecurityContext, verifyRunAsNonRoot } from './security-context.js';
import { restartCountFromLogDir } from './runtime-manager.js';
import { tailOfCRILog } from './termination-message.js';

const GI = 2 ** 30;
const pod = (spec: Partial<Pod['spec']> & { containers: Container[] }): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u-1' }, spec });

test('cpu shares and quota as upstream (min 2 shares, max 262144, quota ≥ 1 ms, 0 = unlimited)', () => {
  assert.deepEqual([0, 1, 10, 100, 250, 1000, 300_000].map(milliCPUToShares), [2, 2, 10, 102, 256, 1024, 262144]);
  assert.deepEqual(
    [0, 1, 5, 250, 1500].map((m) => milliCPUToQuota(m)),
    [0, 1000, 1000, 25000, 150000],
  );
});

test('linux resources: request (or limit) → shares, limit → quota, memory limit in bytes, OOM score by QoS', () => {
  const burst = pod({ containers: [{ name: 'c', resources: { requests: { cpu: '250m', memory: '1Gi' }, limits: { cpu: '500m', memory: '2Gi' } } }] });
  assert.deepEqual(linuxResources(burst, burst.spec!.containers[0]!, 10 * GI), {
    cpuShares: 256,
    cpuPeriod: 100000,
    cpuQuota: 50000,
    oomScoreAdj: 900,
    memoryLimitInBytes: 2 * GI,
  });
  const onlyLimit = pod({ containers: [{ name: 'c', resources: { limits: { cpu: '1', memory: '100Mi' } } }] });
  const r = linuxResources(onlyLimit, onlyLimit.spec!.containers[0]!, 10 * GI);
  assert.equal(r.cpuShares, 1024, 'no request: the limit counts as request');
  assert.equal(r.oomScoreAdj, 999, 'undefaulted limits only: Burstable (the API server would copy them to requests)');
  const g = pod({ containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }] });
  assert.equal(linuxResources(g, g.spec!.containers[0]!, 10 * GI).oomScoreAdj, -997, 'Guaranteed');
  const be = pod({ containers: [{ name: 'c' }] });
  assert.deepEqual(linuxResources(be, be.spec!.containers[0]!, 10 * GI), { cpuShares: 2, cpuPeriod: 100000, cpuQuota: 0, oomScoreAdj: 1000 });
  const tiny = pod({ containers: [{ name: 'c', resources: { requests: { memory: '1' } } }] });
  assert.equal(oomScoreAdjust(tiny, tiny.spec!.containers[0]!, 10 * GI), 999, 'Burstable never gets the BestEffort score');
  const huge = pod({ containers: [{ name: 'c', resources: { requests: { memory: '20Gi' } } }] });
  assert.equal(oomScoreAdjust(huge, huge.spec!.containers[0]!, 10 * GI), 3, 'at least 1000 − 997');
});

test('container security context: pod-level user/group/seccomp, image user, groups fsGroup first, masked paths, no_new_privs', () => {
  const p = pod({
    securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000], seccompProfile: { type: 'RuntimeDefault' } },
    shareProcessNamespace: true,
    containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] } } }],
  });
  const sc = containerSecurityContext(p, p.spec!.containers[0]!, { uid: 5 }, '/var/lib/kubelet/seccomp');
  assert.deepEqual(sc, {
    namespaceOptions: { network: 'POD', pid: 'POD', ipc: 'POD' },
    capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: ['ALL'] },
    runAsUser: 1000,
    runAsGroup: 3000,
    readonlyRootfs: true,
    supplementalGroups: [2000, 4000],
    noNewPrivs: true,
    seccomp: { profileType: 'RuntimeDefault' },
    maskedPaths: [...DEFAULT_MASKED_PATHS],
    readonlyPaths: ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
  });
  const q = pod({
    containers: [{ name: 'c', securityContext: { privileged: true, procMount: 'Unmasked', seccompProfile: { type: 'Localhost', localhostProfile: 'audit.json' } } }],
  });
  const qs = containerSecurityContext(q, q.spec!.containers[0]!, { username: 'nginx' }, '/k/seccomp');
  assert.deepEqual(
    [qs.runAsUsername, qs.runAsUser, qs.privileged, qs.maskedPaths, qs.seccomp],
    ['nginx', undefined, true, [], { profileType: 'Localhost', localhostRef: '/k/seccomp/audit.json' }],
  );
  assert.equal(qs.namespaceOptions?.pid, 'CONTAINER');
  // the volumes' pv.beta.kubernetes.io/gid groups come after fsGroup and supplementalGroups
  assert.deepEqual(containerSecurityContext(p, p.spec!.containers[0]!, { uid: 5 }, '/s', [1234]).supplementalGroups, [2000, 4000, 1234]);
  assert.deepEqual(containerSecurityContext(pod({ containers: [{ name: 'c' }] }), { name: 'c' }, { uid: 0 }, '/s').seccomp, { profileType: 'Unconfined' });
  assert.deepEqual(sandboxSecurityContext(p), {
    namespaceOptions: { network: 'POD', pid: 'POD', ipc: 'POD' },
    seccomp: { profileType: 'RuntimeDefault' },
    runAsUser: 1000,
    runAsGroup: 3000,
    supplementalGroups: [2000, 4000],
  });
});

test('runAsNonRoot: upstream’s three messages', () => {
  const p = (sc: Container['securityContext'], psc?: NonNullable<Pod['spec']>['securityContext']): Pod =>
    pod({ securityContext: psc, containers: [{ name: 'app', securityContext: sc }] });
  const check = (x: Pod, image: { uid?: number; username?: string }) => () => verifyRunAsNonRoot(x, x.spec!.containers[0]!, image);
  assert.throws(
    check(p({ runAsNonRoot: true }), { uid: 0 }),
    (e: unknown) => e instanceof ContainerConfigError && e.message === 'container has runAsNonRoot and image will run as root (pod: "p_ns(u-1)", container: app)',
  );
  assert.throws(
    check(p({ runAsNonRoot: true, runAsUser: 0 }), { uid: 1000 }),
    /^ContainerConfigError: container's runAsUser breaks non-root policy \(pod: "p_ns\(u-1\)", container: app\)$/,
  );
  assert.throws(
    check(p({}, { runAsNonRoot: true }), { username: 'nginx' }),
    /image has non-numeric user \(nginx\), cannot verify user is non-root \(pod: "p_ns\(u-1\)", container: app\)/,
  );
  check(p({ runAsNonRoot: true }), { uid: 1000 })();
  check(p({ runAsNonRoot: true, runAsUser: 10 }), { uid: 0 })();
  check(p({}), { uid: 0 })();
});

test('container config: log path <name>/<restart>.log, subPath created with the volume’s mode, termination-log file, preStop annotation', async () => {
  const d = makeTempDir();
  try {
    const vol = join(d.path, 'vol');
    fs.mkdirSync(vol);
    fs.chmodSync(vol, 0o2777);
    const c: Container = {
      name: 'app',
      image: 'busybox:1.28',
      command: ['sh', '-c', 'echo $(GREETING)'],
      volumeMounts: [
        { name: 'data', mountPath: '/data', subPath: 'sub/dir' },
        { name: 'data', mountPath: '/ro', readOnly: true, mountPropagation: 'HostToContainer' },
      ],
      lifecycle: { preStop: { exec: { command: ['drain'] } } },
    };
    const cfg = await generateContainerConfig({
      pod: pod({ containers: [c] }),
      container: c,
      restartCount: 3,
      imageRef: 'sha256:abc',
      env: new Map([['GREETING', 'hi']]),
      volumes: new Map([['data', vol]]),
      podDir: join(d.path, 'pod'),
      imageUser: { uid: 0 },
      memoryCapacity: GI,
      seccompRoot: '/s',
    });
    assert.equal(cfg.logPath, 'app/3.log');
    assert.deepEqual(cfg.command, ['sh', '-c', 'echo hi']);
    assert.equal(fs.statSync(join(vol, 'sub', 'dir')).mode & 0o7777, 0o2777);
    assert.deepEqual(cfg.mounts.slice(0, 2), [
      { containerPath: '/data', hostPath: join(vol, 'sub/dir'), readonly: false, propagation: 'PROPAGATION_PRIVATE' },
      { containerPath: '/ro', hostPath: vol, readonly: true, propagation: 'PROPAGATION_HOST_TO_CONTAINER' },
    ]);
    const tl = cfg.mounts.find((m) => m.containerPath === '/dev/termination-log')!;
    assert.equal(fs.statSync(tl.hostPath).mode & 0o777, 0o666);
    assert.equal(cfg.annotations[Annotations.containerPreStopHandler], JSON.stringify({ exec: { command: ['drain'] } }));
    assert.equal(cfg.image.userSpecifiedImage, 'busybox:1.28');
  } finally {
    d.remove();
  }
});

test('sandbox config: cgroup parent and RuntimeDefault seccomp; log directory <ns>_<name>_<uid>', () => {
  const p = pod({ containers: [{ name: 'c', securityContext: { privileged: true } }] });
  const sb = generateSandboxConfig(p, 1, '/k', { clusterDNS: [], clusterDomain: 'cluster.local', resolvConf: '/nonexistent' }, '/kubepods/besteffort/podu-1');
  assert.equal(sb.logDirectory, '/k/logs/ns_p_u-1');
  assert.equal(sb.linux?.cgroupParent, '/kubepods/besteffort/podu-1');
  assert.equal(sb.linux?.securityContext?.privileged, true);
  assert.deepEqual(sb.linux?.securityContext?.seccomp, { profileType: 'RuntimeDefault' });
});

test('restart count from the log directory, termination message from the log tail', () => {
  const d = makeTempDir();
  try {
    assert.equal(restartCountFromLogDir(join(d.path, 'none')), 0);
    for (const f of ['0.log', '4.log', '2.log.20250101-000000', 'x.log']) fs.writeFileSync(join(d.path, f), '');
    assert.equal(restartCountFromLogDir(d.path), 5);
    const log = join(d.path, 'c.log');
    const lines: string[] = [];
    for (let i = 0; i < 100; i++) lines.push(`2025-01-01T00:00:00.${String(i).padStart(9, '0')}Z stdout F line ${i}`);
    lines.push('2025-01-01T00:00:01Z stderr P part');
    lines.push('2025-01-01T00:00:01Z stderr F ial');
    fs.writeFileSync(log, lines.join('\n') + '\n');
    const tail = tailOfCRILog(log);
    assert.ok(tail.endsWith('line 99\npartial\n'), tail.slice(-30));
    assert.ok(tail.startsWith('line 22\n'), 'the last 80 entries');
    fs.writeFileSync(log, `2025-01-01T00:00:00Z stdout F ${'x'.repeat(3000)}\n`);
    assert.equal(tailOfCRILog(log).length, 2048, 'at most 2048 bytes');
    assert.equal(tailOfCRILog(join(d.path, 'missing')), '');
  } finally {
    d.remove();
  }
});
