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
