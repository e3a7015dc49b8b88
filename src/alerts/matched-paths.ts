// Where the fields a rule matched on sit in the event as stored. The explain mode names fields as the
// rule saw the event: after field mapping (ECS `process.executable` for `Image`) and after the preset's
// event shaping (an evtx_dump event's `Event.EventData.NewProcessName` read as `NewProcessName`, NXLog's
// `SourceName` read as `Provider_Name`). Promises: each matched field with the dotted paths (keys joined
// by '.', array members by their index) of the stored values it stands for: the field itself when the
// stored event has it, else where the preset's shaping took it from, else (bounded) the stored values
// equal to the matched value (under a key of the field's name first); an empty list when none is found.
// Pure.
import { fieldOriginsOf, type Pipeline } from '../sigma/index.js';

export interface MatchedField {
  field: string;
  value: unknown;
  paths: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** At most this many stored values are compared when a field is found only by its value. */
const MAX_LEAVES = 2000;
const MAX_PATHS = 5;
const MAX_DEPTH = 12;

/** The matched fields of every selection that held, each once (first value kept), without modifiers. */
export function matchedFieldValues(conditions: readonly unknown[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const condition of conditions) {
    if (!isObj(condition)) continue;
    for (const selection of Object.values(condition)) {
      if (!isObj(selection)) continue;
      for (const [field, value] of Object.entries(selection)) {
        const name = field.split('|')[0];
        if (!out.has(name)) out.set(name, value);
      }
    }
  }
  return out;
}

/** The stored paths a dotted field name reaches: nested objects, keys that contain dots, array members. */
export function pathsOf(event: unknown, field: string): string[] {
  const segments = field.split('.');
  const out: string[] = [];
  const walk = (value: unknown, from: number, prefix: string, depth: number): void => {
    if (out.length >= MAX_PATHS || depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      value.slice(0, 100).forEach((member, i) => walk(member, from, `${prefix}${i}.`, depth + 1));
      return;
    }
    if (!isObj(value)) return;
    for (let to = segments.length; to > from; to--) {
      const key = segments.slice(from, to).join('.');
      if (!Object.hasOwn(value, key)) continue;
      if (to === segments.length) out.push(prefix + key);
      else walk(value[key], to, `${prefix}${key}.`, depth + 1);
    }
  };
  walk(event, 0, '', 0);
  return out;
}

const comparable = (v: unknown): string | undefined => (typeof v === 'string' ? v.toLowerCase() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/**
 * Stored scalar values equal to `value` (case-insensitive for text), by their paths; bounded. Values under
 * a key named like the field's last part come first; other places count only for text of four characters
 * or more (a number or a short word would be found all over an event).
 */
function pathsByValue(event: unknown, field: string, value: unknown): string[] {
  const want = comparable(value);
  if (want === undefined || want === '') return [];
  const name = (field.split('.').pop() ?? field).toLowerCase();
  const named: string[] = [];
  const elsewhere: string[] = [];
  let seen = 0;
  const walk = (v: unknown, prefix: string, depth: number): void => {
    if (named.length >= MAX_PATHS || seen >= MAX_LEAVES || depth > MAX_DEPTH) return;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((m, i) => [String(i), m]) : isObj(v) ? Object.entries(v) : [];
    for (const [k, child] of entries) {
      if (isObj(child) || Array.isArray(child)) walk(child, `${prefix}${k}.`, depth + 1);
      else {
        seen++;
        if (comparable(child) !== want) continue;
        if (k.replace(/ /g, '').toLowerCase() === name) named.push(prefix + k);
        else if (typeof child === 'string' && want.length >= 4 && elsewhere.length < MAX_PATHS) elsewhere.push(prefix + k);
      }
    }
  };
  walk(event, '', 0);
  return named.length > 0 ? named : elsewhere;
}

/** Each matched field of the alert with the paths of the stored event it stands for. */
export function matchedFields(conditions: readonly unknown[], stored: Obj, pipeline: Pick<Pipeline, 'flattenEvtxDump' | 'eventShape'> | undefined): MatchedField[] {
  const wanted = matchedFieldValues(conditions);
  if (wanted.size === 0) return [];
  const origins = fieldOriginsOf(pipeline, stored);
  return [...wanted].map(([field, value]) => {
    let paths = pathsOf(stored, field);
    if (paths.length === 0) paths = origins.get(field) ?? [];
    if (paths.length === 0) paths = pathsByValue(stored, field, value);
    return { field, value, paths };
  });
}
