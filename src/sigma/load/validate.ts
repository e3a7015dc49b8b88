// Rule document validation in the spec's order: schema-level attribute checks, then the required
// attributes (title, logsource, detection, level), then the detection itself. Promises: all errors of a
// stage are collected as {field, message}; a later stage runs only when the earlier one passed.
import type { YamlValue } from './yaml11.js';
import { isTimestamp } from './yaml11-scalars.js';
import { parseDetection } from '../detection/parse-detection.js';
import { LEVELS, STATUSES } from '../rule.js';
import type { FieldError, Level, Logsource, ParseResult, SigmaCorrelation, SigmaRule, Status } from '../rule.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Rule dates as the reference reads them: `YYYY-MM-DD`, or the older `YYYY/M/D`, years 1000 to 3999. */
const DATE_RE = /^([1-3]\d{3})(?:-([01]\d)-([0-3]\d)|\/([01]?\d)\/([0-3]?\d))$/;

/** Whether `text` is a rule date naming a day of the calendar (`2023-02-30` is not). The loader keeps a
 * timestamp as its text: one PyYAML builds a date or a date and time from is taken too, as the reference
 * takes those objects (`date: 2023-01-01 10:00:00`). */
function isRuleDate(text: string): boolean {
  const m = DATE_RE.exec(text);
  if (m === null) return isTimestamp(text);
  // Both forms name the day the timestamp YYYY-MM-DD names (the calendar check is the loader's).
  const two = (x: string): string => x.padStart(2, '0');
  return isTimestamp(`${m[1]}-${two(m[2] ?? m[4])}-${two(m[3] ?? m[5])}`);
}
const TAG_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9._-]+$/;
/** The relations a `related` entry may name (pySigma's SigmaRelatedType). */
const RELATED_TYPES = ['correlation', 'derived', 'merged', 'obsolete', 'renamed', 'similar'];
const CORRELATION_TYPES = ['event_count', 'value_count', 'temporal', 'temporal_ordered', 'value_sum', 'value_avg', 'value_percentile', 'value_median'];
const TIMESPAN_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, M: 2629746, y: 31556952 };

function isMap(v: unknown): v is Record<string, YamlValue> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(doc: Record<string, YamlValue>, key: string, errors: FieldError[]): string[] {
  const v = doc[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    errors.push({ field: key, message: 'must be a list' });
    return [];
  }
  const out: string[] = [];
  v.forEach((x, i) => {
    if (typeof x === 'string' || typeof x === 'number') out.push(String(x));
    else errors.push({ field: `${key}[${i}]`, message: 'must be a string' });
  });
  return out;
}

function optionalString(doc: Record<string, YamlValue>, key: string, errors: FieldError[], max = 65535): string | undefined {
  const v = doc[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') {
    errors.push({ field: key, message: 'must be a string' });
    return undefined;
  }
  const s = String(v);
  if (s.length > max) errors.push({ field: key, message: `must be at most ${max} characters` });
  return s;
}

/** `related`: a list of {id: UUID, type: one of RELATED_TYPES}, as the reference implementation checks it. */
function checkRelated(v: YamlValue | undefined, errors: FieldError[]): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) {
    errors.push({ field: 'related', message: 'must be a list' });
    return;
  }
  v.forEach((item, i) => {
    if (!isMap(item) || item.id === undefined || item.type === undefined) {
      errors.push({ field: `related[${i}]`, message: 'must be a map with an id and a type' });
      return;
    }
    if (typeof item.id !== 'string' || !UUID_RE.test(item.id)) errors.push({ field: `related[${i}].id`, message: 'id must be a UUID' });
    if (typeof item.type !== 'string' || !RELATED_TYPES.includes(item.type.toLowerCase())) {
      errors.push({ field: `related[${i}].type`, message: `type must be one of ${RELATED_TYPES.join(', ')}` });
    }
  });
}

/** An optional attribute that must be a non-empty string of at most 256 characters when given (`name`,
 * `taxonomy`). */
function nonEmptyString(doc: Record<string, YamlValue>, key: string, errors: FieldError[]): string | undefined {
  const s = optionalString(doc, key, errors, 256);
  if (s === '') errors.push({ field: key, message: 'must not be empty' });
  return s;
}

function parseLogsource(v: YamlValue | undefined, errors: FieldError[], required: boolean): Logsource {
  if (v === undefined || v === null) {
    if (required) errors.push({ field: 'logsource', message: 'logsource is required' });
    return {};
  }
  if (!isMap(v)) {
    errors.push({ field: 'logsource', message: 'logsource must be a map' });
    return {};
  }
  const out: Logsource = {};
  for (const [k, val] of Object.entries(v)) {
    if (val === null) continue;
    if (typeof val !== 'string' && typeof val !== 'number' && typeof val !== 'boolean') {
      errors.push({ field: `logsource.${k}`, message: 'must be a string' });
      continue;
    }
    out[k] = String(val);
  }
  if (!out.category && !out.product && !out.service) {
    errors.push({ field: 'logsource', message: 'logsource needs at least one of category, product, service' });
  }
  return out;
}

function parseTimespan(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d+)([smhdwMy])$/.exec(v);
  return m ? Number(m[1]) * TIMESPAN_UNITS[m[2]] : null;
}

function common(doc: Record<string, YamlValue>, errors: FieldError[]): Omit<SigmaRule, 'kind' | 'logsource' | 'detection'> {
  const title = doc.title;
  if (title !== undefined && (typeof title !== 'string' || title.length > 256)) {
    errors.push({ field: 'title', message: 'title must be a string of at most 256 characters' });
  }
  const id = optionalString(doc, 'id', errors);
  if (id !== undefined && !UUID_RE.test(id)) errors.push({ field: 'id', message: 'id must be a UUID' });
  let status: Status | undefined;
  if (doc.status !== undefined && doc.status !== null) {
    const s = String(doc.status).toLowerCase();
    if ((STATUSES as string[]).includes(s)) status = s as Status;
    else errors.push({ field: 'status', message: `status must be one of ${STATUSES.join(', ')}` });
  }
  let level: Level | undefined;
  if (doc.level !== undefined && doc.level !== null) {
    const l = String(doc.level).toLowerCase();
    if ((LEVELS as string[]).includes(l)) level = l as Level;
    else errors.push({ field: 'level', message: `level must be one of ${LEVELS.join(', ')}` });
  }
  for (const key of ['date', 'modified']) {
    const d = doc[key];
    if (d !== undefined && d !== null && !(typeof d === 'string' && isRuleDate(d))) {
      errors.push({ field: key, message: 'must be a date YYYY-MM-DD' });
    }
  }
  checkRelated(doc.related, errors);
  nonEmptyString(doc, 'taxonomy', errors);
  optionalString(doc, 'license', errors);
  stringList(doc, 'fields', errors);
  stringList(doc, 'scope', errors);
  const tags = stringList(doc, 'tags', errors);
  tags.forEach((t, i) => {
    if (!TAG_RE.test(t)) errors.push({ field: `tags[${i}]`, message: `tag '${t}' must be namespace.name` });
  });
  return {
    id,
    name: nonEmptyString(doc, 'name', errors),
    title: typeof title === 'string' ? title : '',
    description: optionalString(doc, 'description', errors),
    author: optionalString(doc, 'author', errors),
    level,
    status,
    date: typeof doc.date === 'string' ? doc.date : undefined,
    modified: typeof doc.modified === 'string' ? doc.modified : undefined,
    tags,
    references: stringList(doc, 'references', errors),
    falsepositives: stringList(doc, 'falsepositives', errors),
    raw: doc,
  };
}

function fail(errors: FieldError[]): ParseResult {
  return { ok: false, kind: 'validation', errors };
}

function validateCorrelation(doc: Record<string, YamlValue>): ParseResult {
  const errors: FieldError[] = [];
  const base = common(doc, errors);
  if (errors.length) return fail(errors);
  if (typeof doc.title !== 'string') errors.push({ field: 'title', message: 'title is required' });
  const c = doc.correlation;
  if (!isMap(c)) return fail([...errors, { field: 'correlation', message: 'correlation must be a map' }]);
  const type = typeof c.type === 'string' ? c.type : '';
  if (!CORRELATION_TYPES.includes(type)) errors.push({ field: 'correlation.type', message: `type must be one of ${CORRELATION_TYPES.join(', ')}` });
  const rulesRaw = c.rules;
  const rules = Array.isArray(rulesRaw) ? rulesRaw.map(String) : typeof rulesRaw === 'string' ? [rulesRaw] : [];
  const extended = (type === 'temporal' || type === 'temporal_ordered') && typeof c.condition === 'string';
  if (rules.length === 0 && !extended) errors.push({ field: 'correlation.rules', message: 'rules must list at least one rule id or name' });
  const timespanSeconds = parseTimespan(c.timespan);
  if (timespanSeconds === null) errors.push({ field: 'correlation.timespan', message: 'timespan must look like 5m (units s, m, h, d)' });
  const groupByRaw = c['group-by'];
  const groupBy = Array.isArray(groupByRaw) ? groupByRaw.map(String) : typeof groupByRaw === 'string' ? [groupByRaw] : [];
  const cond = c.condition;
  if (cond === undefined && type !== 'temporal' && type !== 'temporal_ordered') {
    errors.push({ field: 'correlation.condition', message: `condition is required for ${type}` });
  } else if (isMap(cond)) {
    const ops = Object.keys(cond).filter((k) => ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'].includes(k));
    if (ops.length === 0) errors.push({ field: 'correlation.condition', message: 'condition needs one of gt, gte, lt, lte, eq, neq' });
    if (type.startsWith('value_') && cond.field === undefined) errors.push({ field: 'correlation.condition.field', message: `${type} needs a field` });
  } else if (cond !== undefined && !extended) {
    errors.push({ field: 'correlation.condition', message: 'condition must be a map' });
  }
  if (errors.length) return fail(errors);
  const correlation: SigmaCorrelation = {
    type,
    rules,
    groupBy,
    timespan: String(c.timespan),
    timespanSeconds: timespanSeconds ?? 0,
    condition: (cond ?? undefined) as SigmaCorrelation['condition'],
    aliases: isMap(c.aliases) ? c.aliases : undefined,
    generate: doc.generate === true || c.generate === true,
  };
  return { ok: true, rule: { ...base, kind: 'correlation', logsource: {}, detection: {}, correlation } };
}

function validateFilter(doc: Record<string, YamlValue>): ParseResult {
  const errors: FieldError[] = [];
  const base = common(doc, errors);
  if (errors.length) return fail(errors);
  if (typeof doc.title !== 'string') errors.push({ field: 'title', message: 'title is required' });
  const logsource = parseLogsource(doc.logsource, errors, true);
  const f = doc.filter;
  if (!isMap(f)) return fail([...errors, { field: 'filter', message: 'filter must be a map' }]);
  if (errors.length) return fail(errors);
  const r = f.rules;
  const rules: string[] | 'any' =
    r === 'any' || (Array.isArray(r) && r.length === 0) ? 'any' : Array.isArray(r) ? r.map(String) : typeof r === 'string' ? [r] : [];
  if (rules !== 'any' && rules.length === 0) errors.push({ field: 'filter.rules', message: 'rules is required' });
  const parsed = parseDetection(f, 'filter', errors, ['rules']);
  if (errors.length || !parsed) return fail(errors);
  return { ok: true, rule: { ...base, kind: 'filter', logsource, detection: f, filter: { rules, detection: parsed, raw: f } } };
}

/** Validate one (already merged) YAML document as a Sigma rule, correlation or filter. */
export function validateDocument(doc: YamlValue): ParseResult {
  if (!isMap(doc)) return fail([{ field: '', message: 'a Sigma document must be a YAML map' }]);
  if ('correlation' in doc) return validateCorrelation(doc);
  if ('filter' in doc) return validateFilter(doc);
  // 1. schema: attribute types and formats
  const errors: FieldError[] = [];
  const base = common(doc, errors);
  if (doc.detection !== undefined && !isMap(doc.detection)) errors.push({ field: 'detection', message: 'detection must be a map' });
  if (errors.length) return fail(errors);
  // 2. required attributes
  if (typeof doc.title !== 'string' || doc.title === '') errors.push({ field: 'title', message: 'title is required' });
  const logsource = parseLogsource(doc.logsource, errors, true);
  if (doc.detection === undefined || doc.detection === null) errors.push({ field: 'detection', message: 'detection is required' });
  if (doc.level === undefined || doc.level === null) errors.push({ field: 'level', message: 'level is required' });
  if (errors.length) return fail(errors);
  // 3. detection semantics
  const detection = doc.detection as Record<string, YamlValue>;
  const parsed = parseDetection(detection, 'detection', errors);
  if (errors.length || !parsed) return fail(errors);
  return { ok: true, rule: { ...base, kind: 'detection', logsource, detection, parsed } };
}
