// Walking an event for the candidate index: every value the matcher's field accessors could find, with the
// record (a "route") of its canonical field name. Promises (soundness): if the matcher's accessor for field
// F finds value v in the event (see compile/field-access.ts: flat dotted keys, nested paths or any mix,
// arrays fanned out at any level, keys with spaces matched with spaces removed), then the walk visits v
// with the route made for `canonicalField(F)`, and if the accessor finds F present (an empty array
// included), the walk visits some value with that route. The walk may visit more (path, value) pairs than
// any accessor would; that only weakens the index. Every primitive leaf (what keyword searches see) is visited
// at least once. `walk` also reports whether a top-level key holds a space (the accessors' spaced-key
// fallback uses it).
//
// Events nested deeper than MAX_EVENT_DEPTH objects or arrays are refused (EventTooDeepError, see
// event-depth.ts) rather than walked.
//
// Routes live in a trie of keys, so nested events need no path strings, and each node remembers the key
// that followed it last time (events of one kind list their keys in one order), so most keys are found
// by comparing two interned strings instead of a Map lookup. Beyond `limit` nodes, routes are made per
// visit and not remembered (`make` is told so).

import { EventTooDeepError, MAX_EVENT_DEPTH } from '../event-depth.js';

/** Index-side field names: spaces removed (the accessor's fallback compares keys without spaces). */
export function canonicalField(field: string): string {
  return field.includes(' ') ? field.replace(/ /g, '') : field;
}

interface Node<R> {
  readonly key: string;
  readonly path: string;
  readonly route: R;
  readonly spaced: boolean;
  children: Map<string, Node<R>> | null;
  /** The node of the key that followed this one in its object last time. */
  next: Node<R> | null;
  /** The node of the first key of this value's object last time. */
  first: Node<R> | null;
}

export type RouteVisitor<R> = (route: R, value: unknown) => void;

export class FieldRoutes<R> {
  private root = new Map<string, Node<R>>();
  private rootFirst: Node<R> | null = null;
  private count = 0;

  constructor(
    private readonly make: (path: string, remembered: boolean) => R,
    private readonly limit: number,
  ) {}

  /** Forget every route (they are made again as keys are met). */
  clear(): void {
    this.root = new Map();
    this.rootFirst = null;
    this.count = 0;
  }

  /** Visit every (route, value) of an event: objects and null included, arrays expanded. Returns true when
   * some top-level key of the event holds a space. */
  walk(event: object, visit: RouteVisitor<R>, depth = 1): boolean {
    if (depth > MAX_EVENT_DEPTH) throw new EventTooDeepError();
    if (Array.isArray(event)) for (const m of event) if (typeof m === 'object' && m !== null) this.walk(m as object, visit, depth + 1);
    return this.walkObject(event as Record<string, unknown>, null, visit, depth);
  }

  private walkObject(node: Record<string, unknown>, parent: Node<R> | null, visit: RouteVisitor<R>, depth: number): boolean {
    let spaced = false;
    let prev: Node<R> | null = null;
    for (const k in node) {
      const v = node[k];
      if (v === undefined || typeof v === 'function') continue;
      let n: Node<R> | null = prev !== null ? prev.next : parent !== null ? parent.first : this.rootFirst;
      if (n === null || n.key !== k) {
        n = this.child(parent, k);
        if (prev !== null) prev.next = n;
        else if (parent !== null) parent.first = n;
        else this.rootFirst = n;
      }
      if (n.spaced) spaced = true;
      this.visitValue(n, v, visit, depth);
      prev = n;
    }
    return spaced;
  }

  /** Visit value v of the key of node n, in an object at `depth`. */
  private visitValue(n: Node<R>, v: unknown, visit: RouteVisitor<R>, depth: number): void {
    if (typeof v !== 'object' || v === null) {
      visit(n.route, v);
      return;
    }
    if (depth >= MAX_EVENT_DEPTH) throw new EventTooDeepError();
    if (Array.isArray(v)) {
      // An empty array holds no value but makes the field present (exists, null).
      if (v.length === 0) visit(n.route, v);
      for (let i = 0; i < v.length; i++) this.visitValue(n, v[i], visit, depth + 1);
      return;
    }
    visit(n.route, v);
    this.walkObject(v as Record<string, unknown>, n, visit, depth + 1);
  }

  private child(parent: Node<R> | null, key: string): Node<R> {
    const map = parent === null ? this.root : parent.children;
    const known = map?.get(key);
    if (known !== undefined) return known;
    const name = canonicalField(key);
    const path = parent === null ? name : `${parent.path}.${name}`;
    const remember = this.count < this.limit;
    const n: Node<R> = { key, path, route: this.make(path, remember), spaced: name !== key, children: null, next: null, first: null };
    if (remember) {
      this.count++;
      if (parent === null) this.root.set(key, n);
      else (parent.children ??= new Map()).set(key, n);
    }
    return n;
  }
}
