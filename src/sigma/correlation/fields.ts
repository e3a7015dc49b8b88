// Reading an input's fields for a correlation: aliases resolved per referenced rule, flat names first
// then dotted paths into nested objects, values reduced to JSON scalars (objects and lists become their
// JSON text), group keys (a missing group-by field is the value null: such events form their own group,
// they are not dropped) and the aggregated value of value_* types.
import type { CompiledCorrelation, JsonValue } from './types.js';

/** The event field a correlation field (or alias) names for an input from these rule references. */
export function resolveField(c: CompiledCorrelation, field: string, entries: readonly number[], refs: readonly string[]): string {
  const alias = c.aliases[field];
  if (alias === undefined) return field;
  for (const e of entries) {
    const f = alias[c.rules[e].toLowerCase()];
    if (f !== undefined) return f;
  }
  for (const r of refs) {
    const f = alias[r.toLowerCase()];
    if (f !== undefined) return f;
  }
  return field;
}

function scalar(v: unknown): JsonValue | undefined {
  if (v === undefined) return undefined;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'object') {
    try {
      return JSON.stringify(v);
    } catch {
      return String(v);
    }
  }
  return String(v);
}

/** A field's value: the flat key if present, else the dotted path through nested objects. */
export function lookup(fields: Readonly<Record<string, unknown>>, name: string): JsonValue | undefined {
  if (Object.hasOwn(fields, name)) return scalar(fields[name]);
  if (!name.includes('.')) return undefined;
  let cur: unknown = fields;
  for (const part of name.split('.')) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur) || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return scalar(cur);
}

/** Every event field a correlation may read for an input (group-by and value fields, aliases resolved). */
export function neededFields(c: CompiledCorrelation, entries: readonly number[], refs: readonly string[]): string[] {
  return [...c.groupBy, ...c.fields].map((f) => resolveField(c, f, entries, refs));
}

/** The group key (by group-by name) and its identity text. Values compare as text: 443 and "443" are
 * one group. */
export function groupOf(c: CompiledCorrelation, f: Readonly<Record<string, JsonValue>>, entries: readonly number[], refs: readonly string[]): { key: Record<string, JsonValue>; id: string } {
  const key: Record<string, JsonValue> = {};
  const parts: Array<string | null> = [];
  for (const g of c.groupBy) {
    const name = resolveField(c, g, entries, refs);
    const v = Object.hasOwn(f, name) ? f[name] : null;
    key[g] = v;
    parts.push(v === null ? null : String(v));
  }
  return { key, id: JSON.stringify(parts) };
}

function numeric(v: JsonValue | undefined): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** The value an input brings to a value_* window, or undefined when it brings none (the input is then
 * not part of the window): value_count needs every listed field, value_sum/avg/median and percentiles
 * a number (or numeric text), the percentile-rank form any value. Other types: null. */
export function valueOf(c: CompiledCorrelation, f: Readonly<Record<string, JsonValue>>, entries: readonly number[], refs: readonly string[]): string | number | null | undefined {
  if (!c.type.startsWith('value_')) return null;
  const raw = c.fields.map((name) => {
    const n = resolveField(c, name, entries, refs);
    return Object.hasOwn(f, n) ? f[n] : undefined;
  });
  if (raw.some((v) => v === undefined || v === null)) return undefined;
  if (c.type === 'value_count') return raw.length === 1 ? String(raw[0]) : JSON.stringify(raw.map(String));
  if (c.type === 'value_percentile' && c.percentile === null) return String(raw[0]);
  const n = numeric(raw[0]);
  return n === null ? undefined : n;
}
