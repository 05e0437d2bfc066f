/**
 * An API server in this process over all built-in definitions (SQLite in a temp dir),
 * for the tests of what the server does while it builds its OpenAPI documents.
 */
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allDefinitions } from '../../../api/all.js';
import type { ResourceDefinition } from '../../../api/resource.js';
import { openStorage } from '../../../storage/index.js';
import type { Storage } from '../../../storage/interface.js';
import { APIServer } from '../../apiserver.js';
import { InProcessTransport } from '../../loopback.js';

/** What {@link inProcessServer} gives once its `before` hook has run. */
export interface InProcessServer {
  /** the served definitions */
  readonly defs: ResourceDefinition[];
  /** a client transport as system:masters */
  readonly transport: InProcessTransport;
}

/** Starts the server in a `before` hook of the current `describe` block and stops it in an `after` hook. */
export function inProcessServer(): InProcessServer {
  let dir: string | undefined;
  let storage: Storage | undefined;
  let api: APIServer | undefined;
  const defs = allDefinitions({ serviceCIDR: '10.96.0.0/12' });
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-openapi-'));
    storage = await openStorage({ kind: 'sqlite', dataDir: dir });
    api = new APIServer({ storage, definitions: defs, serverAddress: '127.0.0.1:6443' });
    await api.start();
  });
  after(async () => {
    api?.stop();
    await storage?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    defs,
    get transport() {
      if (!api) throw new Error('the server is started in before()');
      return new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] });
    },
  };
}
