/**
 * Long computations written once as generators (`yield` between units of work) and run
 * either at once ({@link runNow}) or in slices that let the event loop serve other work
 * between them ({@link runSliced}): a slice runs units until its time budget is spent,
 * then the next slice is scheduled with `setImmediate` (after pending I/O callbacks).
 */

/** Work that yields (nothing) between units and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs every step at once and returns the result. */
export function runNow<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs the steps in slices of about `budgetMs` each, yielding to the event loop between slices.
 * @param budgetMs time per slice, ms (default 8)
 * @throws (rejects with) whatever a step throws
 */
export async function runSliced<T>(steps: Steps<T>, budgetMs = 8): Promise<T> {
  for (;;) {
    const until = performance.now() + budgetMs;
    do {
      const r = steps.next();
      if (r.done) return r.value;
    } while (performance.now() < until);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The bytes of `Buffer.from(JSON.stringify(value))` as steps: the members of objects down
 * to `depth` levels are written one by one (a step after every 16 values written whole);
 * arrays and anything deeper are written whole. The text is written as UTF-8 pieces
 * joined once at the end, so no long string is built, flattened or encoded in one go.
 * @param value a JSON value (objects, arrays, strings, numbers, booleans, null; members
 *   whose value is undefined are left out as JSON.stringify leaves them out)
 * @param depth how many levels of objects are written member by member (default 2)
 */
export function* jsonSteps(value: unknown, depth = 2): Steps<Buffer> {
  const parts: Buffer[] = [];
  let whole = 0;
  function* write(v: unknown, d: number): Steps<void> {
    if (d <= 0 || v === null || typeof v !== 'object' || Array.isArray(v) || typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      parts.push(Buffer.from(JSON.stringify(v)));
      if (++whole % 16 === 0) yield;
      return;
    }
    let sep = '{';
    for (const [k, m] of Object.entries(v)) {
      if (m === undefined || typeof m === 'function' || typeof m === 'symbol') continue;
      parts.push(Buffer.from(`${sep}${JSON.stringify(k)}:`));
      sep = ',';
      yield* write(m, d - 1);
    }
    parts.push(Buffer.from(sep === '{' ? '{}' : '}'));
  }
  yield* write(value, depth);
  return Buffer.concat(parts);
}
