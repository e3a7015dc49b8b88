// Reading field values out of events. Promises: a field `a.b.c` resolves as a flat key (`"a.b.c"`), as a
// nested path, or any mix (`{"a.b": {"c": …}}`), longest key first; arrays at any level fan out (any member);
// when a key is missing, event keys with spaces are matched with their spaces removed (sigma-notes §13.5).
// A field is present when some path holds a value, null and empty arrays included (`present`); `each`
// visits the values, arrays expanded, so an empty array gives none.
// Lookups allocate nothing per event except one index per object that has keys with spaces (kept for the
// last few objects looked into; `rememberNoSpacedKeys` lets a caller that already walked an object's keys
// say that it has none).
export type Visit = (value: unknown) => boolean;

export interface Accessor {
  /** Call visit for every value found (null included, arrays expanded); true as soon as visit returns true. */
  each(event: unknown, visit: Visit): boolean;
  /** Whether the field holds anything, be it null or an empty array. */
  present(event: unknown): boolean;
}

const NO_SPACED = new Map<string, string>();
const RECENT = 4;
const recentNodes: Array<object | null> = new Array<object | null>(RECENT).fill(null);
const recentIndexes: Array<Map<string, string>> = new Array<Map<string, string>>(RECENT).fill(NO_SPACED);
let nextSlot = 0;

let lastNode: object | null = null;
let lastIndex: Map<string, string> = NO_SPACED;

function remember(node: object, idx: Map<string, string>): void {
  recentNodes[nextSlot] = node;
  recentIndexes[nextSlot] = idx;
  nextSlot = (nextSlot + 1) % RECENT;
  lastNode = node;
  lastIndex = idx;
}

/** The caller has just enumerated `node`'s keys (for…in) and none holds a space. */
export function rememberNoSpacedKeys(node: object): void {
  remember(node, NO_SPACED);
}

function spaced(node: Record<string, unknown>): Map<string, string> {
  // Rules are evaluated one after another on the same event: the last few objects are remembered.
  if (node === lastNode) return lastIndex;
  for (let i = 0; i < RECENT; i++) {
    if (recentNodes[i] === node) {
      lastNode = node;
      lastIndex = recentIndexes[i];
      return lastIndex;
    }
  }
  let idx = NO_SPACED;
  for (const k in node) {
    if (k.includes(' ')) {
      if (idx === NO_SPACED) idx = new Map();
      idx.set(k.replace(/ /g, ''), k);
    }
  }
  remember(node, idx);
  return idx;
}

function get(node: Record<string, unknown>, key: string, stripped: string): unknown {
  const v = node[key];
  // Inherited members (toString, constructor, __proto__) are not event fields.
  if (v !== undefined) return typeof v === 'function' || v === Object.prototype ? undefined : v;
  if (stripped !== key) {
    const w = node[stripped];
    if (w !== undefined) return typeof w === 'function' ? undefined : w;
  }
  const idx = spaced(node);
  if (idx === NO_SPACED) return undefined;
  const orig = idx.get(stripped);
  return orig === undefined ? undefined : node[orig];
}

function emit(v: unknown, visit: Visit): boolean {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (emit(v[i], visit)) return true;
    return false;
  }
  return visit(v);
}

const ANYTHING: Visit = () => true;

export function makeAccessor(path: string): Accessor {
  const segs = path.split('.');
  const n = segs.length;
  if (n === 1) {
    const stripped = path.replace(/ /g, '');
    return {
      each(event, visit) {
        if (typeof event !== 'object' || event === null) return false;
        const v = get(event as Record<string, unknown>, path, stripped);
        return v === undefined ? false : emit(v, visit);
      },
      present(event) {
        return typeof event === 'object' && event !== null && get(event as Record<string, unknown>, path, stripped) !== undefined;
      },
    };
  }
  // keys[i][j] = segs[i..j) joined with '.'
  const keys: string[][] = [];
  const strippedKeys: string[][] = [];
  for (let i = 0; i < n; i++) {
    keys.push([]);
    strippedKeys.push([]);
    for (let j = i + 1; j <= n; j++) {
      keys[i][j] = segs.slice(i, j).join('.');
      strippedKeys[i][j] = keys[i][j].replace(/ /g, '');
    }
  }
  // The values found at the end of the path go to `visit`, expanded when arrays (`each`) or whole (`present`).
  const walk = (node: unknown, i: number, visit: Visit, expand: boolean): boolean => {
    if (Array.isArray(node)) {
      for (let k = 0; k < node.length; k++) if (walk(node[k], i, visit, expand)) return true;
      return false;
    }
    if (typeof node !== 'object' || node === null) return false;
    for (let j = n; j > i; j--) {
      const v = get(node as Record<string, unknown>, keys[i][j], strippedKeys[i][j]);
      if (v === undefined) continue;
      if (j === n) {
        if (expand ? emit(v, visit) : visit(v)) return true;
      } else if (walk(v, j, visit, expand)) return true;
    }
    return false;
  };
  return { each: (event, visit) => walk(event, 0, visit, true), present: (event) => walk(event, 0, ANYTHING, false) };
}

/** Visit every leaf value of an event (for keyword searches), with its dotted path. */
export function eachLeaf(node: unknown, visit: (value: unknown, path: string) => boolean, path = ''): boolean {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (eachLeaf(node[i], visit, path)) return true;
    return false;
  }
  if (typeof node === 'object' && node !== null) {
    for (const k in node) {
      if (eachLeaf((node as Record<string, unknown>)[k], visit, path ? `${path}.${k}` : k)) return true;
    }
    return false;
  }
  return visit(node, path);
}
