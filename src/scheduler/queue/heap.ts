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

  private up(i: number): boolean {
    let moved = false;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.items[i]!, this.items[p]!)) break;
      this.swap(i, p);
      i = p;
      moved = true;
    }
    return moved;
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      let m = l;
      const r = l + 1;
      if (r < n && this.less(this.items[r]!, this.items[l]!)) m = r;
      if (!this.less(this.items[m]!, this.items[i]!)) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(i: number, j: number): void {
    if (i === j) return;
    const it = this.items;
    const ks = this.keys;
    [it[i], it[j]] = [it[j]!, it[i]!];
    [ks[i], ks[j]] = [ks[j]!, ks[i]!];
    this.index.set(ks[i]!, i);
    this.index.set(ks[j]!, j);
  }
}
