// Walking an event for the candidate index: every value the matcher's field accessors could find, with a
// canonical field name. Promises (soundness): if the matcher's accessor for field F finds value v in the
// event (see compile/field-access.ts: flat dotted keys, nested paths or any mix, arrays fanned out at any
// level, keys with spaces matched with spaces removed), then the walk visits v with
// `path === canonicalField(F)`. The walk may visit more (path, value) pairs than any accessor would; that
// only weakens the index. Every primitive leaf (what keyword searches see) is visited at least once.
// walkEvent also reports whether a top-level key holds a space (the accessors' spaced-key fallback uses it).
export type LeafVisitor = (path: string, value: unknown) => void;

/** Index-side field names: spaces removed (the accessor's fallback compares keys without spaces). */
export function canonicalField(field: string): string {
  return field.includes(' ') ? field.replace(/ /g, '') : field;
}

function visitValue(path: string, v: unknown, visit: LeafVisitor): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) visitValue(path, v[i], visit);
    return;
  }
  visit(path, v);
  if (typeof v === 'object' && v !== null) walkObject(v as Record<string, unknown>, path, visit);
}

/** Visits the object's values; true when some key (enumerated by for…in) holds a space. */
function walkObject(node: Record<string, unknown>, prefix: string, visit: LeafVisitor): boolean {
  let spaced = false;
  for (const k in node) {
    const hasSpace = k.includes(' ');
    if (hasSpace) spaced = true;
    const v = node[k];
    if (v === undefined || typeof v === 'function') continue;
    const key = hasSpace ? k.replace(/ /g, '') : k;
    visitValue(prefix === '' ? key : `${prefix}.${key}`, v, visit);
  }
  return spaced;
}

/** Visit every (canonical path, value) of an event: objects and null included, arrays expanded. Returns
 * true when some top-level key of the event holds a space. */
export function walkEvent(event: object, visit: LeafVisitor): boolean {
  if (Array.isArray(event)) for (const m of event) if (typeof m === 'object' && m !== null) walkEvent(m as object, visit);
  return walkObject(event as Record<string, unknown>, '', visit);
}
