/**
 * NetworkPolicy enforcement on real containers, driven with the real kubectl: a kubelet
 * on a private containerd with the node's network services (cluster DNS, the iptables
 * policy chains of src/netpol). Every "blocked" is proved by the client's own timeout —
 * busybox `nc -w 2` ending with "nc: timed out" (the stand-in images' busybox 1.35 is built
 * without wget's `-T`: `wget -T 2` dies with SIGSEGV, and a plain wget waits for the
 * kernel's ~2 min SYN retries), `nslookup` with "no servers could be reached" — every
 * "allowed" by the page arriving (HTTP/1.0 over nc, then `wget -qO-` in the same exec); each
 * check is retried until the rules follow the change (they do within about a second), and
 * independent checks run at once, on one cluster shared by every case.
 *
 * The three recipes of the network policy docs: default deny-all ingress (the published
 * manifest), namespace-based isolation (namespaceSelector) and port-level rules (a port,
 * a named port); plus egress deny blocking DNS until DNS egress to kube-dns is allowed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startContainerdCluster, type ContainerdCluster, type Run } from './containerd-cluster.js';
import { eventually, MANIFESTS } from './harness.js';

const NODE = 'np-node';

describe('e2e: NetworkPolicy on containerd', () => {
  let k: ContainerdCluster;
  let webIP = '';
  let prefix = '';
  const ok = async (args: string[], timeoutMs = 60_000): Promise<string> => {
    const r = await k.kubectl(args, { timeoutMs });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const pod = (name: string, ns: string, labels: string, containers: string): string =>
    `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${ns}, labels: ${labels}}\nspec:\n  nodeName: ${NODE}\n  terminationGracePeriodSeconds: 0\n  containers:\n${containers}`;
  const sleeper = (name: string, ns: string, labels = '{}'): string => pod(name, ns, labels, '  - {name: c, image: "busybox:1.28", command: [sleep, "3600"]}\n');
  /** GET / over `nc -w 2` (connect and idle timeout 2 s) from a pod */
  const get = (from: string, ns: string, port = 80, ip = webIP): Promise<Run> =>
    k.kubectl(['exec', '-n', ns, from, '--', 'sh', '-c', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${ip} ${port}`], { timeoutMs: 30_000 });
  /** the page over nc, then (in the same exec, only when nc got it) over `wget -qO-` */
  const reaches = async (from: string, ns: string, port = 80): Promise<void> => {
    const page = port === 80 ? /Welcome to nginx!/ : /alt page/;
    const r = await eventually(async () => {
      const x = await k.kubectl(
        ['exec', '-n', ns, from, '--', 'sh', '-c', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${webIP} ${port} && echo '--- wget' && wget -qO- http://${webIP}:${port}/`],
        { timeoutMs: 30_000 },
      );
      const [nc = '', wget] = x.stdout.split('--- wget\n');
      return x.code === 0 && /^HTTP\/1\.[01] 200 OK/.test(nc) && page.test(nc) && wget !== undefined ? wget : undefined;
    }, 20_000);
    assert.match(r, page);
  };
  const blocked = async (from: string, ns: string, port = 80, ip = webIP): Promise<void> => {
    await eventually(async () => {
      const r = await get(from, ns, port, ip);
      return r.code !== 0 && /nc: timed out/.test(r.stderr);
    }, 20_000);
  };
  /** ms from `kubectl apply` returning to the policy's rules in the kernel, per policy */
  const syncMs: number[] = [];
  /** the proving event of a policy change: `text` (a rule comment) is in the filter table; records how long that took */
  const inKernel = async (text: string): Promise<void> => {
    const t0 = Date.now();
    await eventually(() => execFileSync('iptables-save', ['-t', 'filter']).toString().includes(text), 20_000, 20);
    syncMs.push(Date.now() - t0);
  };
  const policy = async (name: string, ns: string, spec: string): Promise<void> => {
    await k.apply(`apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n${spec}`, `np-${ns}-${name}`);
    await inKernel(`--comment "${ns}/${name}"`);
  };

  before(async () => {
    k = await startContainerdCluster(NODE, { network: true });
    prefix = k.network!.policies ? (await import('../../src/netpol/iptables-rules.js')).chainPrefix(`${NODE}/${k.ctrd.podCIDR}`) : '';
    await k.apply(['np-a', 'np-b', 'np-c'].map((n) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${n}${n === 'np-b' ? ', labels: {team: friends}' : ''}}\n`).join('---\n'));
    await k.apply(
      [
        pod(
          'web',
          'np-a',
          '{app: web}',
          [
            '  - {name: nginx, image: "nginx:1.14.2", ports: [{name: http, containerPort: 80}]}',
            '  - {name: alt, image: "busybox:1.28", ports: [{name: alt, containerPort: 8080}], command: [sh, -c, "mkdir -p /www && echo alt page > /www/index.html && exec httpd -f -p 8080 -h /www"]}',
            '',
          ].join('\n'),
        ),
        '---',
        sleeper('client-ok', 'np-a', '{access: "true"}'),
        '---',
        sleeper('client-no', 'np-a'),
        '---',
        sleeper('outsider', 'np-b', '{access: "true"}'),
        '---',
        sleeper('dnsclient', 'np-c'),
        '---',
        'apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: np-a}\nspec:\n  selector: {app: web}\n  ports: [{name: http, port: 80}]\n',
      ].join('\n'),
    );
    await Promise.all(
      [
        ['np-a', 'pod/web', 'pod/client-ok', 'pod/client-no'],
        ['np-b', 'pod/outsider'],
        ['np-c', 'pod/dnsclient'],
      ].map(([ns, ...pods]) => ok(['wait', '-n', ns!, '--for=condition=Ready', ...pods, '--timeout=120s'], 130_000)),
    );
    webIP = (await ok(['get', 'pod', '-n', 'np-a', 'web', '-o', 'jsonpath={.status.podIP}'])).trim();
  });

  after(async () => {
    if (syncMs.length) console.log(`NetworkPolicy applied → rules in the kernel (ms, ${syncMs.length} changes): ${syncMs.join(', ')}; max ${Math.max(...syncMs)}`);
    await k?.stop();
    if (prefix) assert.doesNotMatch(execFileSync('iptables-save', ['-t', 'filter']).toString(), new RegExp(prefix), 'every policy chain is removed on stop');
  });

  it('without policies every pod reaches the web pod on both ports', async () => {
    await Promise.all([reaches('client-ok', 'np-a'), reaches('client-no', 'np-a'), reaches('outsider', 'np-b', 8080)]);
  });

  it('recipe 1, default deny-all ingress (the published manifest): every client times out', async () => {
    await ok(['apply', '-n', 'np-a', '-f', join(MANIFESTS, 'network-policy-default-deny-ingress.yaml')]);
    await inKernel('--comment "default deny ingress of np-a/web"');
    await Promise.all([blocked('client-ok', 'np-a'), blocked('client-no', 'np-a'), blocked('outsider', 'np-b')]);
    // replies to the isolated pods' own connections still arrive (conntrack): client-ok fetches from outsider's namespace peer … web itself
    const outIP = (await ok(['get', 'pod', '-n', 'np-b', 'outsider', '-o', 'jsonpath={.status.podIP}'])).trim();
    await k.kubectl(['exec', '-n', 'np-b', 'outsider', '--', 'sh', '-c', 'mkdir -p /w && echo outsider page > /w/index.html && httpd -p 9000 -h /w']);
    const r = await get('client-ok', 'np-a', 9000, outIP);
    assert.match(r.stdout, /outsider page/, r.stderr);
  });

  it('an allow rule from pods labelled access=true on port 80 lets exactly those through, on that port only', async () => {
    await policy(
      'allow-access-80',
      'np-a',
      '  podSelector: {matchLabels: {app: web}}\n  ingress:\n  - from: [{podSelector: {matchLabels: {access: "true"}}}]\n    ports: [{protocol: TCP, port: 80}]\n',
    );
    await reaches('client-ok', 'np-a');
    // a podSelector alone means the policy's namespace: the labelled pod of np-b stays out
    await Promise.all([blocked('client-ok', 'np-a', 8080), blocked('client-no', 'np-a'), blocked('outsider', 'np-b')]);
  });

  it('recipe 2, namespace-based isolation: a namespaceSelector lets the pods of the labelled namespace in', async () => {
    await policy('allow-friends', 'np-a', '  podSelector: {}\n  ingress:\n  - from: [{namespaceSelector: {matchLabels: {team: friends}}}]\n');
    await Promise.all([reaches('outsider', 'np-b'), reaches('outsider', 'np-b', 8080), blocked('client-no', 'np-a')]);
    // the label gone, the namespace is out again (rules follow namespace changes)
    await ok(['label', 'namespace', 'np-b', 'team-']);
    await blocked('outsider', 'np-b');
  });

  it('recipe 3, port-level rules: a named port of the destination pod, and pods of any namespace with the label', async () => {
    await policy(
      'allow-alt',
      'np-a',
      '  podSelector: {matchLabels: {app: web}}\n  ingress:\n  - from: [{namespaceSelector: {}, podSelector: {matchLabels: {access: "true"}}}]\n    ports: [{port: alt}]\n',
    );
    await Promise.all([reaches('outsider', 'np-b', 8080), blocked('outsider', 'np-b', 80), blocked('client-no', 'np-a', 8080)]);
    // rules follow pod label changes
    await ok(['label', 'pod', '-n', 'np-a', 'client-no', 'access=true']);
    await Promise.all([reaches('client-no', 'np-a', 8080), reaches('client-no', 'np-a', 80)]);
  });

  it('egress deny blocks DNS until egress to kube-dns is allowed; deleting the policies opens the way again', async () => {
    const lookup = () => k.kubectl(['exec', '-n', 'np-c', 'dnsclient', '--', 'nslookup', '-timeout=2', '-retry=1', 'web.np-a.svc.cluster.local'], { timeoutMs: 30_000 });
    assert.match((await lookup()).stdout, /Name:\s+web\.np-a\.svc\.cluster\.local/);
    await ok(['apply', '-n', 'np-c', '-f', join(MANIFESTS, 'network-policy-default-deny-egress.yaml')]);
    await inKernel('--comment "default deny egress of np-c/dnsclient"');
    await eventually(async () => {
      const r = await lookup();
      return r.code !== 0 && /no servers could be reached/.test(r.stdout + r.stderr);
    }, 20_000);
    await policy(
      'allow-dns',
      'np-c',
      [
        '  podSelector: {}',
        '  policyTypes: [Egress]',
        '  egress:',
        '  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]',
        '    ports: [{protocol: UDP, port: 53}, {protocol: TCP, port: 53}]',
        '',
      ].join('\n'),
    );
    await eventually(async () => /Name:\s+web\.np-a\.svc\.cluster\.local/.test((await lookup()).stdout), 20_000);
    // DNS allowed, the web pod (no egress rule for it) still not
    await blocked('dnsclient', 'np-c', 8080);
    await ok(['delete', 'networkpolicy', '-n', 'np-c', '--all']);
    await ok(['delete', 'networkpolicy', '-n', 'np-a', '--all']);
    await Promise.all([reaches('client-no', 'np-a'), reaches('dnsclient', 'np-c', 8080)]);
  });
});
