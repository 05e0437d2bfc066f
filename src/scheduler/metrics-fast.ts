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

/** One label set of a counter. */
export class CounterChild {
  value = 0;
  constructor(readonly labels: Record<string, string>) {}
  inc(n = 1): void {
    this.value += n;
  }
}

/** A counter with pre-resolved label children. */
export class FastCounter {
  readonly type = 'counter';
  private readonly children = new Map<string, CounterChild>();
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
    const key = values.length === 2 ? values[0] + '\x00' + values[1] : values.join('\x00');
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = new CounterChild(labelObject(this.labelNames, values))));
    return c;
  }

  /** Increments the counter without labels. */
  inc(n = 1): void {
    this.unlabelled!.inc(n);
  }

  /** The total over every label set. */
  total(): number {
    let t = 0;
    for (const c of this.children.values()) t += c.value;
    return t;
  }

  reset(): void {
    for (const c of this.children.values()) c.value = 0;
  }

  async get(): Promise<MetricData> {
    return this.getForPromString();
  }

  async getForPromString(): Promise<MetricData> {
    return {
      name: this.name,
      help: this.help,
      type: 'counter',
      values: [...this.children.values()].map((c) => ({ labels: c.labels, value: c.value })),
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
  private readonly children = new Map<string, HistogramChild>();
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
    const key = values.length === 2 ? values[0] + '\x00' + values[1] : values.join('\x00');
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = new HistogramChild(labelObject(this.labelNames, values), this.bounds)));
    return c;
  }

  /** Records a value without labels. */
  observe(v: number): void {
    this.unlabelled!.observe(v);
  }

  reset(): void {
    for (const c of this.children.values()) {
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
    for (const c of this.children.values()) {
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
