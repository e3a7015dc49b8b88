// Public entry points for loading Sigma text: parseRule (one rule) and parseRules (bulk, multi-document).
// Promises: never throws; YAML syntax problems are kind 'yaml' with a line number; rule problems are kind
// 'validation' with {field, message}; `action: global|reset|repeat` collections are expanded the way
// pySigma does (deep merge, the global value wins).
import { loadYaml, MAX_DOCUMENT_BYTES, MAX_STREAM_BYTES } from './yaml11.js';
import type { YamlValue } from './yaml11.js';
import { validateDocument } from './validate.js';
import type { ParseResult } from '../rule.js';

function isMap(v: unknown): v is Record<string, YamlValue> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(rule: Record<string, YamlValue>, global: Record<string, YamlValue>): Record<string, YamlValue> {
  const out: Record<string, YamlValue> = { ...rule };
  for (const [k, v] of Object.entries(global)) {
    const cur = Object.prototype.hasOwnProperty.call(out, k) ? out[k] : undefined;
    Object.defineProperty(out, k, { value: isMap(cur) && isMap(v) ? deepMerge(cur, v) : v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Expand a document stream into rule documents (collection actions applied). */
function expandCollection(docs: YamlValue[]): Array<YamlValue | ParseResult> {
  const out: Array<YamlValue | ParseResult> = [];
  let global: Record<string, YamlValue> | null = null;
  let previous: Record<string, YamlValue> | null = null;
  for (const doc of docs) {
    if (doc === null) continue; // empty document (e.g. a trailing ---)
    if (isMap(doc) && typeof doc.action === 'string') {
      const { action, ...rest } = doc;
      if (action === 'global') global = rest;
      else if (action === 'reset') global = null;
      else if (action === 'repeat') {
        if (!previous) out.push({ ok: false, kind: 'validation', errors: [{ field: 'action', message: "'repeat' has no previous rule" }] });
        else {
          previous = deepMerge(previous, rest);
          out.push(previous);
        }
      } else out.push({ ok: false, kind: 'validation', errors: [{ field: 'action', message: `unknown collection action '${action}'` }] });
      continue;
    }
    const merged = global && isMap(doc) ? deepMerge(doc, global) : doc;
    if (isMap(merged)) previous = merged;
    out.push(merged);
  }
  return out;
}

function isResult(x: unknown): x is ParseResult {
  return isMap(x) && typeof (x as { ok?: unknown }).ok === 'boolean' && 'kind' in (x as object);
}

/** Parse a multi-document YAML text (up to 16 MiB, each document up to 1 MiB) into one result per rule. */
export function parseRules(yaml: string): ParseResult[] {
  return parseStream(yaml, MAX_STREAM_BYTES);
}

function parseStream(yaml: string, maxBytes: number): ParseResult[] {
  const loaded = loadYaml(yaml, maxBytes);
  if (!loaded.ok) {
    if (loaded.kind === 'size') return [{ ok: false, kind: 'validation', errors: [{ field: 'document', message: loaded.message }] }];
    return [{ ok: false, kind: 'yaml', message: loaded.message }];
  }
  return expandCollection(loaded.documents).map((d) => (isResult(d) ? d : validateDocument(d)));
}

/** Parse and validate one Sigma document. A text holding several rules is refused (use parseRules). */
export function parseRule(yaml: string): ParseResult {
  const results = parseStream(yaml, MAX_DOCUMENT_BYTES);
  if (results.length === 0) return { ok: false, kind: 'validation', errors: [{ field: '', message: 'the document is empty' }] };
  if (results.length > 1) {
    return {
      ok: false,
      kind: 'validation',
      errors: [{ field: '', message: `the text holds ${results.length} Sigma documents where one rule is expected` }],
    };
  }
  return results[0];
}
