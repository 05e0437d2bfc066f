/**
 * Field sets (structured-merge-diff `fieldpath.Set`): a trie of path elements where each
 * node says whether the path itself is a member and which children it has. Path
 * elements are kept in their serialized form, the keys of upstream's `fieldsV1` JSON:
 *
 * - `f:<name>`  a struct field or a map key
 * - `k:<json>`  an associative list item by its key fields (`k:{"name":"nginx"}`; fields sorted by name)
 * - `v:<json>`  a set item by its value (`v:"example.com/finalizer"`)
 * - `i:<n>`     a list item by index
 *
 * In `fieldsV1`, `.` marks a node that is itself a member and also has children; a
 * member without children is `{}`.
 *
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/v4.4.2/fieldpath/set.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/v4.4.2/fieldpath/serialize.go
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management
 */

/** A JSON value as it appears in objects. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** One serialized path element (`f:spec`, `k:{"name":"nginx"}`, `v:1`, `i:0`). */
export type PE = string;

/** A set of field paths (a trie). Mutating methods change `this`; set algebra returns new sets. */
export class FieldSet {
  /** the path leading to this node is itself in the set */
  member = false;
  /** child nodes by serialized path element (absent when none) */
  children: Map<PE, FieldSet> | undefined = undefined;

  /** True when neither this node nor any descendant is a member. */
  isEmpty(): boolean {
    if (this.member) return false;
    if (!this.children) return true;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  /** The child node for `pe`, created when absent. */
  descend(pe: PE): FieldSet {
    let m = this.children;
    if (!m) m = this.children = new Map();
    let c = m.get(pe);
    if (!c) {
      c = new FieldSet();
      m.set(pe, c);
    }
    return c;
  }

  /** The child node for `pe`, if any. */
  child(pe: PE): FieldSet | undefined {
    return this.children?.get(pe);
  }

  /** Adds a path (the empty path marks this node). */
  insert(path: readonly PE[], len = path.length): void {
    let n: FieldSet = this;
    for (let i = 0; i < len; i++) n = n.descend(path[i]!);
    n.member = true;
  }

  /** Whether `path` is a member. */
  has(path: readonly PE[]): boolean {
    let n: FieldSet | undefined = this;
    for (const pe of path) {
      n = n.children?.get(pe);
      if (!n) return false;
    }
    return n.member;
  }

  /** A deep copy. */
  clone(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    if (this.children) {
      out.children = new Map();
      for (const [k, v] of this.children) out.children.set(k, v.clone());
    }
    return out;
  }

  /** Members of either set. */
  union(o: FieldSet): FieldSet {
    const out = this.clone();
    out.addAll(o);
    return out;
  }

  /** Adds every member of `o` to this set (mutates). */
  addAll(o: FieldSet): void {
    if (o.member) this.member = true;
    if (!o.children) return;
    for (const [k, v] of o.children) this.descend(k).addAll(v);
  }

  /** Members of this set that are not members of `o` (children of a removed member stay). */
  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && !o.member;
    if (this.children) {
      for (const [k, v] of this.children) {
        const oc = o.children?.get(k);
        const d = oc ? v.difference(oc) : v.clone();
        if (!d.isEmpty()) (out.children ??= new Map()).set(k, d);
      }
    }
    return out;
  }

  /** Members of both sets. */
  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && o.member;
    if (this.children && o.children) {
      for (const [k, v] of this.children) {
        const oc = o.children.get(k);
        if (!oc) continue;
        const i = v.intersection(oc);
        if (!i.isEmpty()) (out.children ??= new Map()).set(k, i);
      }
    }
    return out;
  }

  /** Whether every member of this set is a member of `o` (no allocation). */
  isSubsetOf(o: FieldSet): boolean {
    if (this.member && !o.member) return false;
    if (!this.children) return true;
    for (const [k, v] of this.children) {
      const oc = o.children?.get(k);
      if (oc === undefined ? !v.isEmpty() : !v.isSubsetOf(oc)) return false;
    }
    return true;
  }

  /** Whether some path is a member of both sets (no allocation). */
  intersects(o: FieldSet): boolean {
    if (this.member && o.member) return true;
    if (!this.children || !o.children) return false;
    for (const [k, v] of this.children) {
      const oc = o.children.get(k);
      if (oc !== undefined && v.intersects(oc)) return true;
    }
    return false;
  }

  /** Removes empty child nodes (mutates); returns whether this node is empty. */
  prune(): boolean {
    if (this.children) {
      for (const [k, v] of this.children) if (v.prune()) this.children.delete(k);
      if (this.children.size === 0) this.children = undefined;
    }
    return !this.member && !this.children;
  }

  /** Every member path in upstream order (`cb` gets a shared array: copy to keep it). */
  forEachPath(cb: (path: readonly PE[]) => void): void {
    const stack: PE[] = [];
    const walk = (n: FieldSet): void => {
      if (n.member) cb(stack);
      if (!n.children) return;
      for (const k of sortedKeys(n.children)) {
        stack.push(k);
        walk(n.children.get(k)!);
        stack.pop();
      }
    };
    walk(this);
  }

  /** Number of member paths. */
  size(): number {
    let n = this.member ? 1 : 0;
    if (this.children) for (const c of this.children.values()) n += c.size();
    return n;
  }

  /**
   * The `fieldsV1` JSON object of this set, keys in upstream's order (`.` first, then
   * fields by name, keyed items, set values, indices).
   */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (!this.children) return out;
    for (const k of sortedKeys(this.children)) {
      const c = this.children.get(k)!;
      if (c.children && !c.isEmpty()) {
        const inner = c.toFieldsV1();
        if (c.member) out[k] = { '.': {}, ...inner };
        else if (Object.keys(inner).length) out[k] = inner;
      } else if (c.member) out[k] = {};
    }
    return out;
  }

  /**
   * Parses a `fieldsV1` JSON object.
   * @throws Error on keys that are not path elements or non-object values
   */
  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    readInto(s, v);
    return s;
  }
}

function readInto(s: FieldSet, v: unknown): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('fieldsV1: expected an object');
  for (const k of Object.keys(v)) {
    const cv = (v as Record<string, unknown>)[k];
    if (k === '.') {
      s.member = true;
      continue;
    }
    if (k.length < 2 || k[1] !== ':' || !'fkvi'.includes(k[0]!)) throw new Error(`fieldsV1: unknown path element ${JSON.stringify(k)}`);
    const c = s.descend(k);
    if (cv !== null && typeof cv === 'object' && Object.keys(cv).length === 0) c.member = true;
    else readInto(c, cv);
  }
}

// ------------------------------------------------------------------ ordering

const TYPE_RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function sortedKeys(m: Map<PE, FieldSet>): PE[] {
  const keys = [...m.keys()];
  if (keys.length > 1) sortPEs(keys);
  return keys;
}

/**
 * Sorts path elements in place by {@link comparePE}, each `k:`/`v:` element's JSON parsed
 * once for the whole sort instead of twice per comparison.
 */
export function sortPEs(pes: PE[]): PE[] {
  let parsed: Map<PE, JsonValue> | undefined;
  for (const pe of pes) {
    const t = pe.charCodeAt(0);
    if (t === 107 /* k */ || t === 118 /* v */) (parsed ??= new Map()).set(pe, JSON.parse(pe.slice(2)) as JsonValue);
  }
  if (parsed === undefined) return pes.sort(comparePE);
  const values = parsed;
  return pes.sort((a, b) => comparePEWith(a, b, values));
}

/**
 * Orders serialized path elements as upstream's PathElement.Compare: fields before keys
 * before values before indices; fields by name, keys field by field, values by type
 * (numbers, strings, booleans, lists, maps, null) then content, indices numerically.
 */
export function comparePE(a: PE, b: PE): number {
  return comparePEWith(a, b, undefined);
}

/** {@link comparePE} with the parsed JSON of `k:`/`v:` elements looked up in `values` first. */
function comparePEWith(a: PE, b: PE, values: Map<PE, JsonValue> | undefined): number {
  const ta = a.charCodeAt(0);
  const tb = b.charCodeAt(0);
  if (ta !== tb) return TYPE_RANK[a[0]!]! - TYPE_RANK[b[0]!]!;
  if (ta === 102 /* f */) return a < b ? -1 : a > b ? 1 : 0;
  if (ta === 105 /* i */) return Number(a.slice(2)) - Number(b.slice(2));
  if (a === b) return 0;
  const va = values?.get(a) ?? (JSON.parse(a.slice(2)) as JsonValue);
  const vb = values?.get(b) ?? (JSON.parse(b.slice(2)) as JsonValue);
  return ta === 107 /* k */ ? compareFieldLists(va as Record<string, JsonValue>, vb as Record<string, JsonValue>) : compareValues(va, vb);
}

function compareFieldLists(a: Record<string, JsonValue>, b: Record<string, JsonValue>): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  for (let i = 0; ; i++) {
    if (i >= ka.length && i >= kb.length) return 0;
    if (i >= ka.length) return -1;
    if (i >= kb.length) return 1;
    if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
    const c = compareValues(a[ka[i]!]!, b[kb[i]!]!);
    if (c !== 0) return c;
  }
}

function valueRank(v: JsonValue): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null) return 4;
  return 5;
}

/** Upstream value.Compare: numbers < strings < booleans < lists < maps < null. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) - (b as number);
    case 1:
      return a! < b! ? -1 : a! > b! ? 1 : 0;
    case 2:
      return (a ? 1 : 0) - (b ? 1 : 0);
    case 3: {
      const la = a as JsonValue[];
      const lb = b as JsonValue[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i]!, lb[i]!);
        if (c !== 0) return c;
      }
      return la.length - lb.length;
    }
    case 4: {
      const ma = a as Record<string, JsonValue>;
      const mb = b as Record<string, JsonValue>;
      return compareFieldLists(sortObject(ma), sortObject(mb));
    }
    default:
      return 0;
  }
}

function sortObject(o: Record<string, JsonValue>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k]!;
  return out;
}

// ------------------------------------------------------------------ path elements

/** JSON as Go's encoding/json writes it (HTML-safe escapes of <, >, & and U+2028/9). */
export function goJSON(v: unknown): string {
  const s = JSON.stringify(v);
  return /[<>&\u2028\u2029]/.test(s) ? s.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : s;
}

/** `f:<name>` */
export function fieldPE(name: string): PE {
  return 'f:' + name;
}

/** `k:{…}` for the key fields of an associative list item, fields sorted by name. */
export function keyPE(fields: ReadonlyArray<readonly [string, JsonValue]>): PE {
  const sorted = fields.length > 1 ? [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) : fields;
  let s = 'k:{';
  for (let i = 0; i < sorted.length; i++) {
    if (i) s += ',';
    s += goJSON(sorted[i]![0]) + ':' + goJSON(sorted[i]![1]);
  }
  return s + '}';
}

/** `v:<json>` for a set item. */
export function valuePE(v: JsonValue): PE {
  return 'v:' + goJSON(v);
}

/** `i:<n>` */
export function indexPE(i: number): PE {
  return 'i:' + i;
}

function toStringValue(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (Array.isArray(v)) return '[' + v.map(toStringValue).join(',') + ']';
  if (typeof v === 'object')
    return Object.keys(v)
      .map((k) => `${k}=${toStringValue(v[k]!)}`)
      .join('');
  return String(v);
}

/** Go's %q of a string (close enough for printable text: JSON escaping). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * A path as upstream prints it in conflict messages: `.spec.replicas`,
 * `.spec.template.spec.containers[name="nginx"].image`, `.metadata.finalizers[="x"]`, `[0]`.
 */
export function pathString(path: readonly PE[]): string {
  let s = '';
  for (const pe of path) {
    switch (pe[0]) {
      case 'f':
        s += '.' + pe.slice(2);
        break;
      case 'k': {
        const o = JSON.parse(pe.slice(2)) as Record<string, JsonValue>;
        s +=
          '[' +
          Object.keys(o)
            .map((k) => `${k}=${toStringValue(o[k]!)}`)
            .join(',') +
          ']';
        break;
      }
      case 'v':
        s += '[=' + toStringValue(JSON.parse(pe.slice(2)) as JsonValue) + ']';
        break;
      default:
        s += '[' + pe.slice(2) + ']';
    }
  }
  return s;
}
