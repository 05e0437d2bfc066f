/**
 * The extension API servers' OpenAPI, downloaded as upstream's OpenAPI aggregation
 * controllers do (through the proxy, as system:kube-aggregator): for every APIService with a
 * Service its backend's `/openapi/v3` index is read and the document of the APIService's
 * own group-version fetched; `/openapi/v2` is fetched whole. A failed download keeps the
 * last good documents; an APIService that goes away takes its documents with it. The
 * API server joins them to its own (src/apiserver/openapi/extensions.ts).
 *
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/controllers/openapiv3/aggregator/downloader.go
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/controllers/openapi/aggregator/downloader.go
 */
import type { APIService } from '../../api/apiregistration/v1/apiservice/strategy.js';
import type { ExtensionOpenAPI } from '../openapi/extensions.js';
import type { Schema } from '../openapi/schemas.js';
import type { BackendGet } from './discovery.js';

interface Downloaded {
  /** `apis/<group>/<version>` → document bytes */
  v3?: { path: string; body: Buffer };
  v2?: Schema;
}

/** The documents of every APIService's backend (see the module comment). */
export class OpenAPIAggregation implements ExtensionOpenAPI {
  revision = 0;
  private readonly byAPIService = new Map<string, Downloaded>();

  v3(): ReadonlyMap<string, Buffer> {
    const out = new Map<string, Buffer>();
    for (const d of this.byAPIService.values()) if (d.v3) out.set(d.v3.path, d.v3.body);
    return out;
  }

  v2(): readonly Schema[] {
    return [...this.byAPIService.values()].flatMap((d) => (d.v2 ? [d.v2] : []));
  }

  /** Forgets an APIService's documents. */
  remove(name: string): void {
    if (this.byAPIService.delete(name)) this.revision++;
  }

  /** Downloads the documents of one APIService's backend; failures keep what was there. */
  async sync(a: APIService, get: BackendGet): Promise<void> {
    const name = a.metadata?.name ?? '';
    const group = a.spec?.group ?? '';
    const version = a.spec?.version ?? '';
    const gvPath = group ? `apis/${group}/${version}` : `api/${version}`;
    const prev = this.byAPIService.get(name) ?? {};
    const next: Downloaded = { ...prev };
    try {
      const index = await get(a, '/openapi/v3', 'application/json');
      if (index.status === 200) {
        const paths = (JSON.parse(index.body) as { paths?: Record<string, { serverRelativeURL?: string }> }).paths ?? {};
        const url = paths[gvPath]?.serverRelativeURL;
        if (url) {
          const doc = await get(a, url, 'application/json');
          if (doc.status === 200) next.v3 = { path: gvPath, body: Buffer.from(JSON.stringify(JSON.parse(doc.body))) };
        }
      }
    } catch {
      // unreachable or not JSON: the last good document stays
    }
    try {
      const v2 = await get(a, '/openapi/v2', 'application/json');
      if (v2.status === 200) next.v2 = JSON.parse(v2.body) as Schema;
    } catch {
      // as above
    }
    const changed = next.v3?.body.toString() !== prev.v3?.body.toString() || JSON.stringify(next.v2) !== JSON.stringify(prev.v2);
    this.byAPIService.set(name, next);
    if (changed) this.revision++;
  }
}
