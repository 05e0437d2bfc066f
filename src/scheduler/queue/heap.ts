/**
 * A binary heap keyed by string with O(log n) push/pop/update/delete and O(1) lookup,
 * ordered by a less-function (upstream pkg/scheduler/backend/heap).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/backend/heap/heap.go
 */
export class Heap<T> {
  private readonly items: T[] = [];
  private readonly keys: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly keyOf: (x: T) => string,
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  get length(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds or replaces (by key) an item. */
  addOrUpdate(x: T): void {
    const k = this.keyOf(x);
    const i = this.index.get(k);
    if (i !== undefined) {
      this.items[i] = x;
      this.fix(i);
      return;
    }
    this.items.push(x);
    this.keys.push(k);
    this.index.set(k, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const top = this.items[0]!;
    this.swap(0, n - 1);
    this.items.pop();
    this.index.delete(this.keys.pop()!);
    if (n > 1) this.down(0);
    return top;
  }

  delete(key: string): T | undefined {
    const i = this.index.get(key);
    if (i === undefined) return undefined;
    const x = this.items[i]!;
    const last = this.items.length - 1;
    if (i !== last) this.swap(i, last);
    this.items.pop();
    this.index.delete(this.keys.pop()!);
    if (i !== last) this.fix(i);
    return x;
  }

  /** Items in heap (not sorted) order. */
  list(): T[] {
    return this.items.slice();
  }

  private fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  // Sifting moves a "hole": each level writes one item and one index entry, and the
  // moving item is written once at its final place.

  private up(i: number): boolean {
    const it = this.items;
    const ks = this.keys;
    const x = it[i]!;
    const k = ks[i]!;
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const y = it[p]!;
      if (!this.less(x, y)) break;
      it[i] = y;
      ks[i] = ks[p]!;
      this.index.set(ks[i]!, i);
      i = p;
    }
    if (i === start) return false;
    it[i] = x;
    ks[i] = k;
    this.index.set(k, i);
    return true;
  }

  private down(i: number): void {
    const it = this.items;
    const ks = this.keys;
    const n = it.length;
    const x = it[i]!;
    const k = ks[i]!;
    const start = i;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let m = l;
      const r = l + 1;
      if (r < n && this.less(it[r]!, it[l]!)) m = r;
      const y = it[m]!;
      if (!this.less(y, x)) break;
      it[i] = y;
      ks[i] = ks[m]!;
      this.index.set(ks[i]!, i);
      i = m;
    }
    if (i === start) return;
    it[i] = x;
    ks[i] = k;
    this.index.set(k, i);
  }

  private swap(i: number, j: number): void {
    if (i === j) return;
    const it = this.items;
    const ks = this.keys;
    const x = it[i]!;
    it[i] = it[j]!;
    it[j] = x;
    const k = ks[i]!;
    ks[i] = ks[j]!;
    ks[j] = k;
    this.index.set(ks[i]!, i);
    this.index.set(k, j);
  }
}
