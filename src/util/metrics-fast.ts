/**
 * Allocation-free counters and histograms for the scheduler's hot paths, exposed through
 * a prom-client Registry (they implement the `get()` / `getForPromString()` contract of
 * prom-client metrics). prom-client's own `observe()` hashes the label set on every
 * call; here a label set is resolved once (`labels(...)` caches the child) and recording
 * is a binary search and two additions.
 *
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/
 */

interface ValuePair {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: ValuePair[];
  aggregator: 'sum';
}

function labelObject(names: readonly string[], values: readonly string[]): Record<string, string> {
  const o: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) o[names[i]!] = values[i] ?? '';
  return o;
}

/**
 * Children by label values, as a tree of maps keyed by each value in turn: a lookup
 * hashes the caller's (usually constant, already hashed) strings instead of building a
 * joined key string on every call.
 */
class ChildTree<T> {
  private readonly root = new Map<string, unknown>();
  private leaf: T | undefined;

  get(values: readonly string[], make: () => T): T {
    if (values.length === 0) return (this.leaf ??= make());
    let m = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      const v = values[i]!;
      let next = m.get(v) as Map<string, unknown> | undefined;
      if (!next) m.set(v, (next = new Map()));
      m = next;
    }
    let c = m.get(values[last]!) as T | undefined;
    if (c === undefined) m.set(values[last]!, (c = make()));
    return c;
  }
}

/** One label set of a counter. */
class CounterChild {
  value = 0;
  constructor(readonly labels: Record<string, string>) {}
  inc(n = 1): void {
    this.value += n;
  }
}

/** A counter with pre-resolved label children. */
export class FastCounter {
  readonly type = 'counter';
  /** every child, for exposition */
  private readonly children: CounterChild[] = [];
  private readonly tree = new ChildTree<CounterChild>();
  private readonly unlabelled: CounterChild | null;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
  ) {
    this.unlabelled = labelNames.length === 0 ? this.labels() : null;
  }

  /** The child of these label values (created on first use, then cached). */
  labels(...values: string[]): CounterChild {
    return this.tree.get(values, () => {
      const c = new CounterChild(labelObject(this.labelNames, values));
      this.children.push(c);
      return c;
    });
  }

  /** Increments the counter without labels. */
  inc(n = 1): void {
    this.unlabelled!.inc(n);
  }

  /** The total over every label set. */
  total(): number {
    let t = 0;
    for (const c of this.children) t += c.value;
    return t;
  }

  reset(): void {
    for (const c of this.children) c.value = 0;
  }

  async get(): Promise<MetricData> {
    return this.getForPromString();
  }

  async getForPromString(): Promise<MetricData> {
    return {
      name: this.name,
      help: this.help,
      type: 'counter',
      values: [...this.children].map((c) => ({ labels: c.labels, value: c.value })),
      aggregator: 'sum',
    };
  }
}

/** One label set of a histogram: per-bucket (non-cumulative) counts, sum, count. */
export class HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: Float64Array,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const b = this.bounds;
    let lo = 0;
    let hi = b.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v <= b[mid]!) hi = mid;
      else lo = mid + 1;
    }
    this.counts[lo]!++;
    this.sum += v;
    this.count++;
  }
}

/** A histogram with pre-resolved label children. */
export class FastHistogram {
  readonly type = 'histogram';
  private readonly bounds: Float64Array;
  /** every child, for exposition */
  private readonly children: HistogramChild[] = [];
  private readonly tree = new ChildTree<HistogramChild>();
  private readonly unlabelled: HistogramChild | null;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    buckets: number[],
  ) {
    this.bounds = Float64Array.from([...buckets].sort((a, b) => a - b));
    this.unlabelled = labelNames.length === 0 ? this.labels() : null;
  }

  labels(...values: string[]): HistogramChild {
    return this.tree.get(values, () => {
      const c = new HistogramChild(labelObject(this.labelNames, values), this.bounds);
      this.children.push(c);
      return c;
    });
  }

  /** Records a value without labels. */
  observe(v: number): void {
    this.unlabelled!.observe(v);
  }

  reset(): void {
    for (const c of this.children) {
      c.counts.fill(0);
      c.sum = 0;
      c.count = 0;
    }
  }

  async get(): Promise<MetricData> {
    return this.getForPromString();
  }

  async getForPromString(): Promise<MetricData> {
    const values: ValuePair[] = [];
    for (const c of this.children) {
      let acc = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        acc += c.counts[i]!;
        const le = i < this.bounds.length ? this.bounds[i]! : '+Inf';
        values.push({ labels: { ...c.labels, le }, value: acc, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: c.labels, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: c.labels, value: c.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}
