import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../util/fake-clock.js';
import { FileSource } from './file-source.js';

/** A pod named `web` whose label tells which file it came from. */
const manifest = (from: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {from: ${from}}}\nspec:\n  containers: [{name: c, image: nginx}]\n`;

describe('file source: two files naming the same pod (upstream store keyed by namespace/name)', () => {
  test('a full re-read keeps the last file by name; a written file wins until the next re-read; a removed file takes the pod out until then', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-filesource-'));
    const clock = new FakeClock();
    const sets: string[][] = [];
    const logs: string[] = [];
    const src = new FileSource({
      path: dir,
      nodeName: 'n1',
      clock,
      periodMs: 20_000,
      onPods: (pods: Pod[]) => sets.push(pods.map((p) => `${p.metadata!.name}:${p.metadata!.labels!.from}`)),
      log: (m) => logs.push(m),
    });
    const last = () => sets[sets.length - 1];
    try {
      writeFileSync(join(dir, 'a.yaml'), manifest('a'));
      writeFileSync(join(dir, 'b.yaml'), manifest('b'));
      src.start();
      assert.deepEqual(sets, [['web-n1:b']], 'the full read: b.yaml, the last by name, wins');

      // a.yaml written again (a watch event): its pod takes the name
      writeFileSync(join(dir, 'a.yaml'), manifest('a2'));
      src.scanChanges();
      assert.deepEqual(last(), ['web-n1:a2']);

      // the next full re-read (every period): the last file by name again
      await clock.advance(20_000);
      assert.deepEqual(last(), ['web-n1:b']);
      assert.equal(sets.length, 3);

      // a.yaml removed: the pod under its name goes, although b.yaml still names it ...
      unlinkSync(join(dir, 'a.yaml'));
      src.scanChanges();
      assert.deepEqual(last(), []);
      // ... until the next full re-read brings b.yaml's pod back
      await clock.advance(20_000);
      assert.deepEqual(last(), ['web-n1:b']);
      assert.equal(sets.length, 5);
      assert.deepEqual(logs, [], 'no warning: the store keeps one pod per name');
    } finally {
      src.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a file that stops naming a pod leaves that pod in until the next full re-read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-filesource-'));
    const clock = new FakeClock();
    const sets: string[][] = [];
    const src = new FileSource({ path: dir, nodeName: 'n1', clock, periodMs: 20_000, onPods: (pods) => sets.push(pods.map((p) => p.metadata!.name!).sort()) });
    try {
      writeFileSync(join(dir, 'a.yaml'), manifest('a'));
      src.start();
      writeFileSync(join(dir, 'a.yaml'), manifest('a').replace('name: web', 'name: api'));
      src.scanChanges();
      assert.deepEqual(sets, [['web-n1'], ['api-n1', 'web-n1']]);
      await clock.advance(20_000);
      assert.deepEqual(sets[sets.length - 1], ['api-n1']);
    } finally {
      src.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
