// Detection section parsing (sigma-notes §2): search identifiers into SearchNodes, conditions into ASTs.
// Promises: every error carries a path (`detection.<id>`, `detection.<id>[i].<field|mods>`,
// `detection.condition`); identifiers used by conditions exist; `x of` patterns select something.
import { buildItem, ModifierError } from './modifiers.js';
import type { RawScalar } from './modifiers.js';
import { ConditionError, parseCondition, selectIdentifiers } from '../condition/parse.js';
import type { ConditionAst } from '../condition/parse.js';
import type { FieldError, ParsedDetection, SearchNode } from '../rule.js';

function isScalar(v: unknown): v is RawScalar {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function item(field: string | null, mods: string[], values: RawScalar[], path: string, errors: FieldError[]): SearchNode | null {
  try {
    return { t: 'item', item: buildItem(field, mods, values, path) };
  } catch (e) {
    if (e instanceof ModifierError) {
      errors.push({ field: path, message: e.message });
      return null;
    }
    throw e;
  }
}

function parseMap(map: Record<string, unknown>, path: string, errors: FieldError[]): SearchNode | null {
  const keys = Object.keys(map);
  if (keys.length === 0) {
    errors.push({ field: path, message: 'empty map: a selection needs at least one field' });
    return null;
  }
  const items: SearchNode[] = [];
  for (const key of keys) {
    const [fieldPart, ...mods] = key.split('|');
    const field = fieldPart === '' ? null : fieldPart;
    const p = `${path}.${key}`;
    const raw = map[key];
    let values: RawScalar[];
    if (Array.isArray(raw)) {
      if (!raw.every(isScalar)) {
        errors.push({ field: p, message: 'a field value list may only contain scalars' });
        continue;
      }
      values = raw;
    } else if (isScalar(raw)) {
      values = [raw];
    } else {
      errors.push({ field: p, message: 'a field value must be a scalar or a list of scalars' });
      continue;
    }
    const node = item(field, mods.map((m) => m.trim()), values, p, errors);
    if (node) items.push(node);
  }
  return items.length === 1 ? items[0] : { t: 'and', of: items };
}

function parseSearch(def: unknown, path: string, errors: FieldError[]): SearchNode | null {
  if (isMap(def)) return parseMap(def, path, errors);
  if (Array.isArray(def)) {
    if (def.length === 0) {
      errors.push({ field: path, message: 'empty list' });
      return null;
    }
    if (def.every(isScalar)) return item(null, [], def, path, errors);
    const alts: SearchNode[] = [];
    def.forEach((el, i) => {
      const p = `${path}[${i}]`;
      let node: SearchNode | null = null;
      if (isMap(el)) node = parseMap(el, p, errors);
      else if (isScalar(el)) node = item(null, [], [el], p, errors);
      else errors.push({ field: p, message: 'nested lists are not allowed in a search identifier' });
      if (node) alts.push(node);
    });
    return alts.length === 1 ? alts[0] : { t: 'or', of: alts };
  }
  if (def === null) {
    errors.push({ field: path, message: 'search identifier has no definition' });
    return null;
  }
  return item(null, [], [def as RawScalar], path, errors);
}

function checkAst(ast: ConditionAst, names: string[], path: string, errors: FieldError[]): void {
  switch (ast.t) {
    case 'and':
    case 'or':
      checkAst(ast.a, names, path, errors);
      checkAst(ast.b, names, path, errors);
      return;
    case 'not':
      checkAst(ast.a, names, path, errors);
      return;
    case 'id':
      if (!names.includes(ast.name)) errors.push({ field: path, message: `search identifier '${ast.name}' is not defined in the detection` });
      return;
    case 'of':
      if (selectIdentifiers(ast.pattern, names).length === 0) {
        errors.push({ field: path, message: `pattern '${ast.pattern}' matches no search identifier` });
      }
  }
}

/** Keys of a detection section that are not search identifiers. */
const NON_SEARCH_KEYS = new Set(['condition', 'timeframe']);

export function parseDetection(
  detection: Record<string, unknown>,
  base: string,
  errors: FieldError[],
  extraNonSearch: string[] = [],
): ParsedDetection | null {
  const before = errors.length;
  const searches = new Map<string, SearchNode>();
  for (const [name, def] of Object.entries(detection)) {
    if (NON_SEARCH_KEYS.has(name) || extraNonSearch.includes(name)) continue;
    const node = parseSearch(def, `${base}.${name}`, errors);
    if (node) searches.set(name, node);
  }
  const names = [...detection ? Object.keys(detection) : []].filter((n) => !NON_SEARCH_KEYS.has(n) && !extraNonSearch.includes(n));
  if (names.length === 0) errors.push({ field: base, message: 'the detection needs at least one search identifier' });
  const rawCond = detection.condition;
  const condPath = `${base}.condition`;
  const conditions: ConditionAst[] = [];
  const texts: unknown[] = Array.isArray(rawCond) ? rawCond : [rawCond];
  if (rawCond === undefined || rawCond === null) {
    errors.push({ field: condPath, message: 'condition is required' });
  } else if (texts.length === 0) {
    errors.push({ field: condPath, message: 'condition list is empty' });
  } else {
    for (const text of texts) {
      if (typeof text !== 'string') {
        errors.push({ field: condPath, message: 'condition must be a string or a list of strings' });
        continue;
      }
      try {
        const ast = parseCondition(text);
        checkAst(ast, names, condPath, errors);
        conditions.push(ast);
      } catch (e) {
        if (e instanceof ConditionError) errors.push({ field: condPath, message: e.message });
        else throw e;
      }
    }
  }
  if (typeof detection.timeframe !== 'undefined' && errors.length === before) {
    // `timeframe` belongs to the deprecated aggregation syntax; with no aggregation it has no effect.
  }
  return errors.length === before ? { searches, conditions } : null;
}
