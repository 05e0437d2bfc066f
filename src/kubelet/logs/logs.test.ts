import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRFC3339 } from '../../apimachinery/time.js';
import { parseCRILogLine } from './cri-log.js';
import { decodePodLogOptions, kubeletLogQuery, LogOptionsDecodeError, sinceMs, validatePodLogOptions } from '../../api/core/v1/pod/log-options.js';
import { LogFileError, readLogs, type ReadLogOptions } from './read.js';
import { findTailLineStart } from './tail.js';

const T0 = '2024-05-01T10:00:00.000000001Z';
const T1 = '2024-05-01T10:00:01.5Z';
const T2 = '2024-05-01T10:00:02Z';
const T3 = '2024-05-01T12:00:03.25+02:00'; // = 10:00:03.25Z

const SAMPLE =
  [
    `${T0} stdout F first line`,
    `${T1} stderr F an error`,
    `${T2} stdout P part one, `,
    `${T2} stdout P part two, `,
    `${T3} stdout F end of long line`,
    `${T3} stdout F `,
    `${T3} stdout F last`,
  ].join('\n') + '\n';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'k8ts-logs-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

async function read(path: string, o: ReadLogOptions): Promise<string> {
  const out: Buffer[] = [];
  await readLogs(path, o, (c) => void out.push(Buffer.from(c)));
  return Buffer.concat(out).toString();
}

describe('CRI log lines', () => {
  it('parses full and partial entries, timestamps with zones and fractions', () => {
    const e = parseCRILogLine(Buffer.from(`${T3} stderr F hello world\n`));
    assert.ok(typeof e !== 'string');
    assert.equal(e.stream, 'stderr');
    assert.equal(e.partial, false);
    assert.equal(e.content.toString(), 'hello world\n');
    assert.equal(e.timestamp, T3);
    assert.equal(e.timeMs, Date.UTC(2024, 4, 1, 10, 0, 3, 250));
    const p = parseCRILogLine(Buffer.from(`${T2} stdout P:extra chunk\n`));
    assert.ok(typeof p !== 'string');
    assert.equal(p.partial, true);
    assert.equal(p.content.toString(), 'chunk');
    assert.equal(parseRFC3339(T0), Date.UTC(2024, 4, 1, 10) + 0.000001);
  });

  it('rejects lines that are not CRI format', () => {
    assert.equal(parseCRILogLine(Buffer.from('garbage\n')), 'timestamp is not found');
    assert.match(parseCRILogLine(Buffer.from('yesterday stdout F x\n')) as string, /unexpected timestamp format/);
    assert.match(parseCRILogLine(Buffer.from(`${T0} stdin F x\n`)) as string, /unexpected stream type "stdin"/);
  });
});

describe('tail', () => {
  it('finds the start of the last N lines, ignoring an unterminated last line', async () => {
    const p = file('tail.log', 'a\nbb\nccc\n');
    const fh = await open(p);
    try {
      assert.equal(await findTailLineStart(fh, 9, 0), 9);
      assert.equal(await findTailLineStart(fh, 9, 1), 5);
      assert.equal(await findTailLineStart(fh, 9, 2), 2);
      assert.equal(await findTailLineStart(fh, 9, 3), 0);
      assert.equal(await findTailLineStart(fh, 9, 10), 0);
      assert.equal(await findTailLineStart(fh, 9, -1), 0);
    } finally {
      await fh.close();
    }
    const q = file('tail2.log', 'a\nbb\nunterminated');
    const fh2 = await open(q);
    try {
      assert.equal(await findTailLineStart(fh2, 16, 1), 2);
    } finally {
      await fh2.close();
    }
  });

  it('works across read blocks', async () => {
    const line = `${'x'.repeat(999)}\n`;
    const p = file('big.log', line.repeat(200));
    const fh = await open(p);
    try {
      assert.equal(await findTailLineStart(fh, 200_000, 150), 50_000);
    } finally {
      await fh.close();
    }
  });
});

describe('readLogs', () => {
  it('joins partial entries and prints both streams in file order', async () => {
    const p = file('all.log', SAMPLE);
    assert.equal(await read(p, {}), 'first line\nan error\npart one, part two, end of long line\n\nlast\n');
  });

  it('prefixes every line (not every fragment) with its timestamp', async () => {
    const p = file('ts.log', SAMPLE);
    const out = await read(p, { timestamps: true });
    assert.equal(out, `${T0} first line\n${T1} an error\n${T2} part one, part two, end of long line\n${T3} \n${T3} last\n`);
  });

  it('tails file lines', async () => {
    const p = file('t.log', SAMPLE);
    assert.equal(await read(p, { tailLines: 2 }), '\nlast\n');
    assert.equal(await read(p, { tailLines: 0 }), '');
    assert.equal(await read(p, { tailLines: 100 }), 'first line\nan error\npart one, part two, end of long line\n\nlast\n');
  });

  it('filters by since and by stream', async () => {
    const p = file('s.log', SAMPLE);
    assert.equal(await read(p, { sinceMs: Date.UTC(2024, 4, 1, 10, 0, 3) }), 'end of long line\n\nlast\n');
    assert.equal(await read(p, { stream: 'Stderr' }), 'an error\n');
    assert.equal(await read(p, { stream: 'Stdout', sinceMs: Date.UTC(2024, 4, 1, 10, 0, 1) }), 'part one, part two, end of long line\n\nlast\n');
  });

  it('stops after limitBytes, cutting the line', async () => {
    const p = file('l.log', SAMPLE);
    assert.equal(await read(p, { limitBytes: 14 }), 'first line\nan ');
    assert.equal(await read(p, { limitBytes: 11 }), 'first line\n');
    assert.equal(await read(p, { limitBytes: 5, timestamps: true }), '2024-');
  });

  it('fails with the kubelet message when the file is missing', async () => {
    await assert.rejects(read(join(dir, 'nope.log'), {}), (e: unknown) => {
      assert.ok(e instanceof LogFileError);
      assert.match(e.message, /^failed to try resolving symlinks in path ".*nope\.log": lstat .*: no such file or directory$/);
      return true;
    });
  });

  it('follows a growing file until the container stops, then drains it', async () => {
    const p = file('f.log', `${T0} stdout F one\n`);
    let running = true;
    const got: string[] = [];
    let notify: () => void = () => undefined;
    let waiting = 0;
    const done = readLogs(
      p,
      { follow: true, tailLines: 0 },
      (c) => {
        got.push(c.toString());
      },
      {
        isRunning: async () => {
          waiting++;
          if (waiting === 1)
            setImmediate(() => {
              appendFileSync(p, `${T1} stdout P tw`);
              appendFileSync(p, `o\n${T1} stdout F  halves\n`);
              notify();
            });
          if (waiting === 2)
            setImmediate(() => {
              appendFileSync(p, `${T2} stderr F three\n`);
              running = false;
              notify();
            });
          return running;
        },
        watch: (_path, onChange) => {
          notify = onChange;
          return () => undefined;
        },
        pollMs: 60_000,
      },
    );
    await done;
    assert.equal(got.join(''), 'two halves\nthree\n');
  });

  it('follows a replaced file from its start', async () => {
    const p = file('r.log', `${T0} stdout F old\n`);
    let calls = 0;
    let notify: () => void = () => undefined;
    const got: string[] = [];
    await readLogs(p, { follow: true }, (c) => void got.push(c.toString()), {
      isRunning: async () => {
        calls++;
        if (calls === 1) {
          setImmediate(() => {
            const tmp = join(dir, 'r.new');
            writeFileSync(tmp, `${T1} stdout F new\n`);
            renameSync(tmp, p);
            notify();
          });
          return true;
        }
        return false;
      },
      watch: (_p, cb) => {
        notify = cb;
        return () => undefined;
      },
      pollMs: 60_000,
    });
    assert.equal(got.join(''), 'old\nnew\n');
  });

  it('ends a follow when the signal aborts', async () => {
    const p = file('a.log', `${T0} stdout F x\n`);
    const ac = new AbortController();
    const got: string[] = [];
    await readLogs(p, { follow: true }, (c) => void got.push(c.toString()), {
      isRunning: async () => {
        setImmediate(() => ac.abort());
        return true;
      },
      signal: ac.signal,
      watch: () => () => undefined,
      pollMs: 60_000,
    });
    assert.deepEqual(got, ['x\n']);
  });
});

describe('PodLogOptions', () => {
  it('decodes query parameters like the apiserver parameter codec', () => {
    const o = decodePodLogOptions(new URLSearchParams('container=c&follow=true&previous&timestamps=0&tailLines=5&limitBytes=10&sinceSeconds=3'));
    assert.deepEqual(o, {
      container: 'c',
      follow: true,
      previous: true,
      timestamps: false,
      insecureSkipTLSVerifyBackend: false,
      tailLines: 5,
      limitBytes: 10,
      sinceSeconds: 3,
    });
    assert.equal(decodePodLogOptions(new URLSearchParams('tail=all')).tailLines, undefined);
    assert.equal(decodePodLogOptions(new URLSearchParams('tail=7')).tailLines, 7);
    assert.throws(
      () => decodePodLogOptions(new URLSearchParams('tailLines=x')),
      (e: unknown) => e instanceof LogOptionsDecodeError && /invalid syntax/.test(e.message),
    );
    assert.throws(() => decodePodLogOptions(new URLSearchParams('sinceTime=yesterday')), /parsing time "yesterday"/);
  });

  it('validates with upstream messages', () => {
    const errs = validatePodLogOptions(decodePodLogOptions(new URLSearchParams('tailLines=-1&limitBytes=0&sinceSeconds=0')));
    assert.deepEqual(
      errs.map((e) => [e.field, e.detail]),
      [
        ['tailLines', 'must be greater than or equal to 0'],
        ['limitBytes', 'must be greater than 0'],
        ['sinceSeconds', 'must be greater than 0'],
      ],
    );
    const both = validatePodLogOptions(decodePodLogOptions(new URLSearchParams('sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z')));
    assert.deepEqual(
      both.map((e) => e.detail),
      ['at most one of `sinceTime` or `sinceSeconds` may be specified'],
    );
    const st = validatePodLogOptions(decodePodLogOptions(new URLSearchParams('stream=Stdout&tailLines=1')));
    assert.deepEqual(
      st.map((e) => e.detail),
      ['`tailLines` and specific `stream` are mutually exclusive for now'],
    );
    assert.equal(validatePodLogOptions(decodePodLogOptions(new URLSearchParams('stream=Bogus')))[0]!.type, 'FieldValueNotSupported');
  });

  it('builds the kubelet query and the since bound', () => {
    const o = decodePodLogOptions(new URLSearchParams('follow=1&sinceTime=2024-01-01T10:00:00.900%2B01:00&tailLines=2'));
    assert.equal(kubeletLogQuery(o), 'follow=true&sinceTime=2024-01-01T09%3A00%3A00Z&tailLines=2');
    assert.equal(sinceMs(decodePodLogOptions(new URLSearchParams('sinceSeconds=10')), 100_000), 90_000);
    assert.equal(sinceMs(decodePodLogOptions(new URLSearchParams('')), 1), undefined);
  });
});
