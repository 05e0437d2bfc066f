import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type { Runtime } from '../../cri/api.js';
import { simAttach } from './sim-streams.js';

/**
 * A runtime without a streaming server whose "main process" is a tiny shell: each
 * stdin line `echo X` appends X to the CRI log, `exit` stops the container.
 */
function fakeRuntime(logPath: string, withStdin: boolean, onFollowerPoll?: () => void): { rt: Runtime; fed: string[] } {
  let state = 'CONTAINER_RUNNING';
  let statusCalls = 0;
  const fed: string[] = [];
  const log = (msg: string): void => appendFileSync(logPath, `2026-01-01T00:00:00.000000000Z stdout F ${msg}\n`);
  const rt = {
    // the first call finds the log; later ones are the follower asking, at the end of the log, whether to go on
    containerStatus: async () => {
      if (++statusCalls === 2) onFollowerPoll?.();
      return { logPath, state };
    },
    ...(withStdin
      ? {
          inProcessStreaming: {
            attachStdin(_id: string, stdin: Readable): void {
              let buf = '';
              stdin.on('data', (c: Buffer) => {
                buf += c.toString();
                let nl: number;
                while ((nl = buf.indexOf('\n')) >= 0) {
                  const line = buf.slice(0, nl);
                  buf = buf.slice(nl + 1);
                  fed.push(line);
                  for (const cmd of line.split(';').map((x) => x.trim())) {
                    if (cmd.startsWith('echo ')) log(cmd.slice(5));
                    if (cmd === 'exit') state = 'CONTAINER_EXITED';
                  }
                }
              });
            },
          },
        }
      : {}),
  } as unknown as Runtime;
  return { rt, fed };
}

function io(stdin: Readable | undefined): { io: Parameters<typeof simAttach>[2]; out: () => string } {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  return { io: { stdin, stdinCanEnd: true, stdout, stderr: new PassThrough(), tty: false, resize: new EventEmitter(), signal: new AbortController().signal }, out: () => out };
}

describe('simAttach with stdin (kubectl debug -i / attach -i on the simulated runtime)', () => {
  test('stdin reaches the main process; only what it writes from now on comes back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-attach-'));
    try {
      const logPath = join(dir, '0.log');
      writeFileSync(logPath, '2026-01-01T00:00:00.000000000Z stdout F before attach\n');
      const { rt, fed } = fakeRuntime(logPath, true);
      const stdin = new PassThrough();
      const s = io(stdin);
      stdin.end('echo hi; exit\n');
      const st = await simAttach(rt, 'c1', s.io, 10);
      assert.equal(st.status, 'Success');
      assert.deepEqual(fed, ['echo hi; exit']);
      assert.equal(s.out(), 'hi\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a runtime without attachStdin leaves stdin unread and still follows the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-attach-'));
    try {
      const logPath = join(dir, '0.log');
      writeFileSync(logPath, '');
      // a line the process writes once the follower sits at the end of the log
      const { rt, fed } = fakeRuntime(logPath, false, () => appendFileSync(logPath, '2026-01-01T00:00:01.000000000Z stdout F later\n'));
      const stdin = new PassThrough();
      const s = io(stdin);
      const ac = new AbortController();
      s.io.signal = ac.signal;
      stdin.end('echo hi\n');
      const done = simAttach(rt, 'c1', s.io, 10);
      // detach once that line has come through (the proving event), not after a fixed delay
      const deadline = Date.now() + 10_000;
      while (!s.out().includes('later') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      ac.abort();
      await done;
      assert.deepEqual(fed, []);
      assert.equal(s.out(), 'later\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
