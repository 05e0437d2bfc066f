/**
 * A private OCI registry for tests: Debian's `docker-registry` (distribution v2) on
 * 127.0.0.1:<free port> (or another address of this machine), storage in a temp dir, stopped by PID.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable } from '../../src/cri/containerd/supervisor.js';
import { requirePackages } from './deps.js';
import { freePort } from './ports.js';
import { startProcess, waitUntil } from './proc.js';
import { makeTempDir } from './tmp.js';

export interface TestRegistry {
  /** `127.0.0.1:<port>` */
  host: string;
  /** `http://127.0.0.1:<port>` */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the registry and waits until `/v2/` answers.
 * @throws Error naming docker-registry and `sudo scripts/install-deps.sh` when the package is missing.
 */
export async function startRegistry(o: { address?: string } = {}): Promise<TestRegistry> {
  requirePackages(['docker-registry'], 'the test registry');
  const bin = findExecutable('docker-registry')!;
  const dir = makeTempDir('k8ts-registry-');
  const port = await freePort();
  const host = `${o.address ?? '127.0.0.1'}:${port}`;
  const config = join(dir.path, 'config.yml');
  writeFileSync(
    config,
    [
      'version: 0.1',
      'log:',
      '  level: warn',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir.path, 'data')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: ${host}`,
      '',
    ].join('\n'),
  );
  const proc = startProcess(bin, ['serve', config], join(dir.path, 'registry.log'));
  const url = `http://${host}`;
  try {
    await waitUntil(`registry on ${host}`, async () => {
      if (proc.exited) throw new Error(`docker-registry exited:\n${proc.logTail()}`);
      try {
        return (await fetch(`${url}/v2/`)).status === 200;
      } catch {
        return false;
      }
    });
  } catch (err) {
    await proc.stop(1000);
    dir.remove();
    throw err;
  }
  return {
    host,
    url,
    pid: proc.pid,
    async stop() {
      await proc.stop();
      dir.remove();
    },
  };
}
