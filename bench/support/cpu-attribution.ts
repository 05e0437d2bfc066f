/**
 * Attributes a V8 CPU profile (`node --cpu-prof`) of the bundled server to source files,
 * mapped through `dist/k8ts.mjs.map`: each busy sample goes to the project file (`src/…`)
 * of its innermost project frame, so time in libraries and built-ins counts for the
 * project code that called them, and a wrapper (a filter calling the next handler) does not
 * claim the time of what it wraps.
 *
 * Used by bench/pod-trace.ts to measure the trace's own cost directly, since the
 * on/off difference of whole runs is within the machine's run-to-run noise.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

/** Busy samples and those attributed to `prefixes` (source paths such as `src/trace/`). */
export interface Attribution {
  /** samples that were not idle */
  busy: number;
  /** busy samples whose innermost project frame is in one of the prefixes */
  matched: number;
  /** matched / busy (0–1) */
  share: number;
  /** matched samples per source file */
  byFile: Record<string, number>;
  /** busy samples in V8's garbage collector (no project frame: attributed to nobody) */
  gc: number;
}

/**
 * @param profilePath a .cpuprofile written by `node --cpu-prof`
 * @param mapPath the bundle's source map (sources relative to the bundle's folder)
 * @param prefixes source path fragments to attribute (matched with `includes`)
 */
export function attribute(profilePath: string, mapPath: string, prefixes: string[]): Attribution {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as Profile;
  const map = new SourceMap(JSON.parse(readFileSync(mapPath, 'utf8')));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sourceOf = new Map<number, string | undefined>();
  const source = (n: ProfileNode): string | undefined => {
    if (sourceOf.has(n.id)) return sourceOf.get(n.id);
    let s: string | undefined;
    if (n.callFrame.url.endsWith('k8ts.mjs') && n.callFrame.lineNumber >= 0) {
      const e = map.findEntry(n.callFrame.lineNumber, n.callFrame.columnNumber) as { originalSource?: string };
      s = e.originalSource;
    }
    sourceOf.set(n.id, s);
    return s;
  };
  // the innermost frame of the project's own sources (not node_modules), per profile node
  const projectFile = new Map<number, string | null>();
  const fileOf = (id: number): string | null => {
    const known = projectFile.get(id);
    if (known !== undefined) return known;
    const s = source(byId.get(id)!);
    const i = s && !s.includes('node_modules') ? s.lastIndexOf('src/') : -1;
    const up = parent.get(id);
    const r = i >= 0 ? s!.slice(i) : up === undefined ? null : fileOf(up);
    projectFile.set(id, r);
    return r;
  };
  const matchOf = (id: number): string | null => {
    const f = fileOf(id);
    return f && prefixes.some((p) => f.includes(p)) ? f : null;
  };
  let busy = 0;
  let matched = 0;
  let gc = 0;
  const byFile: Record<string, number> = {};
  for (const id of profile.samples) {
    const name = byId.get(id)!.callFrame.functionName;
    if (name === '(idle)') continue;
    busy++;
    if (name === '(garbage collector)') gc++;
    const f = matchOf(id);
    if (f) {
      matched++;
      byFile[f] = (byFile[f] ?? 0) + 1;
    }
  }
  return { busy, matched, share: busy ? matched / busy : 0, byFile, gc };
}
