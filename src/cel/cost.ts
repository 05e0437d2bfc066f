/**
 * Runtime cost tracking for CEL evaluation, after cel-go's `ActualCost` as Kubernetes
 * enables it (`cel.EvalOptions(cel.OptTrackCost)`, `cel.CostLimit(PerCallLimit)`): every
 * evaluation step costs 1, library functions add what upstream's `library.CostEstimator`
 * charges for them (traversal of strings and lists, regex compilation), and when the
 * running total passes the limit the evaluation stops with cel-go's
 * `operation cancelled: actual cost limit exceeded`.
 *
 * The evaluator of `@marcbachmann/cel-js` evaluates every sub-expression through its
 * `run` method; {@link instrumentEnvironment} wraps that method on the environment's
 * evaluator once, so a tracker set with {@link withCostTracker} sees each step. The
 * figures therefore count evaluated AST nodes, which is close to but not identical with
 * cel-go's interpretable steps (cel-go folds some constants and charges 0 for them).
 *
 * @see https://github.com/google/cel-go/blob/master/interpreter/runtimecost.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/cost.go
 */
import type { Environment } from '@marcbachmann/cel-js';

/** cel-go's message when a program passes its cost limit. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** Thrown inside an evaluation that passed its cost limit (caught by the program). */
export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_EXCEEDED);
    this.name = 'CostLimitExceeded';
  }
}

/** The running cost of one evaluation. */
export class CostTracker {
  /** cost so far, in cel-go cost units */
  cost = 0;
  /** set once the cost passed {@link limit} (an error may have been swallowed by `||`/`&&`) */
  exceeded = false;

  constructor(
    /** the most this evaluation may cost; Infinity for none */
    readonly limit: number,
  ) {}

  /** Adds `n` units. @throws CostLimitExceeded when the total passes the limit */
  add(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) {
      this.exceeded = true;
      throw new CostLimitExceeded();
    }
  }
}

let current: CostTracker | undefined;

/** Charges `n` units to the evaluation under way (library functions call this). */
export function chargeCost(n: number): void {
  if (current !== undefined && n > 0) current.add(n);
}

/** cel-go's traversal cost of a string or bytes value: 0.1 per byte, rounded up. */
export function traversalCost(size: number): number {
  return Math.ceil(size * 0.1);
}

/** Runs `fn` with `tracker` receiving every step and charge; restores the previous tracker. */
export function withCostTracker<T>(tracker: CostTracker, fn: () => T): T {
  const prev = current;
  current = tracker;
  try {
    return fn();
  } finally {
    current = prev;
  }
}

interface EvaluatorLike {
  run(ast: unknown, ctx: unknown): unknown;
}

const instrumented = new WeakSet<Environment>();

/**
 * Makes `env`'s evaluator charge one unit per evaluated sub-expression to the current
 * tracker. Idempotent. The evaluator is reached through a probe expression whose root
 * node hands it over; the library keeps it private otherwise.
 */
export function instrumentEnvironment(env: Environment): void {
  if (instrumented.has(env)) return;
  const probe = env.parse('true');
  let evaluator: EvaluatorLike | undefined;
  (probe.ast as unknown as { evaluate: (ev: EvaluatorLike) => boolean }).evaluate = (ev) => {
    evaluator = ev;
    return true;
  };
  probe({});
  if (evaluator === undefined) throw new Error('cel: could not reach the evaluator to track cost');
  const run = evaluator.run;
  evaluator.run = function (this: EvaluatorLike, ast: unknown, ctx: unknown) {
    if (current !== undefined) current.add(1);
    return run.call(this, ast, ctx);
  };
  instrumented.add(env);
}
