/**
 * Documents computed once per definition set (/openapi/v3's group-version documents,
 * /openapi/v2's Swagger document): kept by definition array and, for a new array with
 * the same definitions (a CRD that came and went, a restart of the set), by content.
 * Built either at once or in slices that let the event loop serve other requests
 * meanwhile (src/util/sliced.ts), from the same steps, so both give the same document;
 * concurrent callers of the sliced build share one build.
 */
import type { ResourceDefinition } from '../../api/resource.js';
import { runNow, runSliced, type Steps } from '../../util/sliced.js';

type Defs = readonly ResourceDefinition[];

export class DefinitionsCache<T> {
  private readonly byIdentity = new WeakMap<Defs, T>();
  /** by content fingerprint, oldest first */
  private readonly byContent = new Map<string, T>();
  private readonly building = new Map<string, Promise<T>>();

  /**
   * @param steps the build of one definition set (`now`: the build time, for documents that record it)
   * @param fingerprint what of a set shows in the document (equal sets give equal strings)
   * @param keep how many definition sets are kept by content
   */
  constructor(
    private readonly steps: (defs: Defs, now: Date) => Steps<T>,
    private readonly fingerprint: (defs: Defs) => string,
    private readonly keep = 1,
  ) {}

  /** The document of `defs`, built now (at once) unless kept. */
  get(defs: Defs, now: Date = new Date()): T {
    const hit = this.lookup(defs);
    if (hit.doc !== undefined) return hit.doc;
    const doc = this.kept(hit.fp, runNow(this.steps(defs, now)));
    this.byIdentity.set(defs, doc);
    return doc;
  }

  /**
   * The document of `defs`, built in slices unless kept; a caller that comes while the same
   * definitions are being built gets the same promise.
   * @throws (rejects with) what the build throws
   */
  getAsync(defs: Defs, now: Date = new Date()): Promise<T> {
    const hit = this.lookup(defs);
    if (hit.doc !== undefined) return Promise.resolve(hit.doc);
    const pending = this.building.get(hit.fp);
    if (pending) return pending;
    const build = runSliced(this.steps(defs, now)).then((doc) => this.kept(hit.fp, doc));
    this.building.set(hit.fp, build);
    const done = (): void => {
      if (this.building.get(hit.fp) === build) this.building.delete(hit.fp);
    };
    build.then(done, done);
    return build;
  }

  /** The kept document of `defs` (noted under its array too), or its fingerprint to build it. */
  private lookup(defs: Defs): { doc?: T; fp: string } {
    const hit = this.byIdentity.get(defs);
    if (hit !== undefined) return { doc: hit, fp: '' };
    const fp = this.fingerprint(defs);
    const doc = this.byContent.get(fp);
    if (doc !== undefined) this.byIdentity.set(defs, doc);
    return { doc, fp };
  }

  /** Keeps `doc` under `fp` unless a document is kept there already (then that one is returned). */
  private kept(fp: string, doc: T): T {
    const had = this.byContent.get(fp);
    if (had !== undefined) return had;
    if (this.byContent.size >= this.keep) this.byContent.delete(this.byContent.keys().next().value!);
    this.byContent.set(fp, doc);
    return doc;
  }
}
