/**
 * Batch examples whose containers run programs on the simulated runtime: the Job of
 * test/fixtures/manifests/job-pi.yaml (`perl -Mbignum=bpi -wle 'print bpi(1000)'`)
 * completes and its log holds pi, and the Indexed Job of indexed-job.yaml (bash arrays
 * in the init container, `rev` in the worker) completes its five indexes, as EXPECTED.md
 * describes.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, MANIFESTS, type Cluster } from './harness.js';

/**
 * Pi to 1000 significant digits as perl's bpi(1000) prints it: `bc -l` (scale=2020,
 * 4*a(1)) truncated, the last digit rounded up (the 1001st digit is a 9).
 */
const PI_1000 =
  '3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706' +
  '7982148086513282306647093844609550582231725359408128481117450284102701938521105559644622948954930381' +
  '9644288109756659334461284756482337867831652712019091456485669234603486104543266482133936072602491412' +
  '7372458700660631558817488152092096282925409171536436789259036001133053054882046652138414695194151160' +
  '9433057270365759591953092186117381932611793105118548074462379962749567351885752724891227938183011949' +
  '1298336733624406566430860213949463952247371907021798609437027705392171762931767523846748184676694051' +
  '3200056812714526356082778577134275778960917363717872146844090122495343014654958537105079227968925892' +
  '3542019956112129021960864034418159813629774771309960518707211349999998372978049951059731732816096318' +
  '5950244594553469083026425223082533446850352619311881710100031378387528865875332083814206171776691473' +
  '0359825349042875546873115956286388235378759375195778185778053217122680661300192787661119590921642019' +
  '9';

describe('e2e: jobs that compute (simulated runtime)', () => {
  let c: Cluster;

  before(async () => {
    c = await startCluster();
  });

  after(async () => {
    await c?.stop();
  });

  it('job-pi.yaml completes and kubectl logs job/pi prints 1000 digits of pi', async () => {
    assert.equal(PI_1000.length, 1001);
    assert.ok(PI_1000.startsWith('3.14159265358979323846264338327950288419716939937510'));
    const a = c.kubectl(['apply', '-f', `${MANIFESTS}/job-pi.yaml`]);
    assert.equal(a.code, 0, a.stderr);
    const w = c.kubectl(['wait', '--for=condition=Complete', 'job/pi', '--timeout=90s'], { timeoutMs: 100_000 });
    assert.equal(w.code, 0, w.stderr);
    const logs = c.kubectl(['logs', 'job/pi']);
    assert.equal(logs.code, 0, logs.stderr);
    assert.equal(logs.stdout, `${PI_1000}\n`);
    const g = c.kubectl(['get', 'job', 'pi', '-o', 'jsonpath={.status.succeeded}/{.spec.completions}']);
    assert.equal(g.stdout, '1/1');
    const phase = await eventually(() => {
      const r = c.kubectl(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=pi', '-o', 'jsonpath={.items[*].status.phase}']);
      return r.stdout === 'Succeeded' ? r.stdout : undefined;
    }, 30_000);
    assert.equal(phase, 'Succeeded');
  });

  it('indexed-job.yaml completes indexes 0-4; each worker logs its item reversed', async () => {
    const a = c.kubectl(['apply', '-f', `${MANIFESTS}/indexed-job.yaml`]);
    assert.equal(a.code, 0, a.stderr);
    const w = c.kubectl(['wait', '--for=condition=Complete', 'job/indexed-job', '--timeout=120s'], { timeoutMs: 130_000 });
    assert.equal(w.code, 0, w.stderr);
    const g = c.kubectl(['get', 'job', 'indexed-job', '-o', 'jsonpath={.status.succeeded} {.status.completedIndexes}']);
    assert.equal(g.stdout, '5 0-4');
    const pods = c.kubectl([
      'get',
      'pods',
      '-l',
      'batch.kubernetes.io/job-name=indexed-job',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.batch\\.kubernetes\\.io/job-completion-index}{"\\n"}{end}',
    ]);
    assert.equal(pods.code, 0, pods.stderr);
    const byIndex = new Map<string, string>();
    for (const line of pods.stdout.trim().split('\n')) {
      const [name, index] = line.split(' ');
      assert.match(name!, new RegExp(`^indexed-job-${index}-[a-z0-9]{5}$`));
      byIndex.set(index!, name!);
    }
    assert.deepEqual([...byIndex.keys()].sort(), ['0', '1', '2', '3', '4']);
    const logs = [...byIndex.keys()].sort().map((i) => c.kubectl(['logs', byIndex.get(i)!, '-c', 'worker']).stdout);
    assert.deepEqual(logs, ['oof\n', 'rab\n', 'zab\n', 'xuq\n', 'zyx\n']);
    const d = c.kubectl(['describe', 'job', 'indexed-job']);
    assert.match(d.stdout, /Completed Indexes:\s+0-4/);
  });
});
