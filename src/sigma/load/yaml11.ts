// YAML loading with PyYAML 1.1 scalar semantics (sigma-notes §13.1).
// Promises: every document is parsed with the failsafe schema and duplicate keys refused; quoted and block
// scalars stay strings; PLAIN scalars go through PyYAML's implicit resolvers (null, bool, int, float;
// timestamps stay as their text), so `00000429` stays a string. Aliases are expanded under a strict
// budget (alias bombs are refused) and inputs over 1 MiB are refused. Never throws. Texts in the plain
// Sigma subset take a fast single-pass reader (fast-yaml.ts) that yields exactly the same value; anything
// else goes through the general parser (`loadYamlFull`).
import { parseAllDocuments, isAlias, isMap, isScalar, isSeq, Scalar } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import { fastYaml } from './fast-yaml.js';

export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** Limit for a whole multi-document text (bulk import); each document still has MAX_DOCUMENT_BYTES. */
export const MAX_STREAM_BYTES = 16 * 1024 * 1024;
const MAX_ALIASES = 50;
const MAX_NODES = 2_000_000;

export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

export type YamlLoadResult =
  | { ok: true; documents: YamlValue[] }
  | { ok: false; kind: 'yaml' | 'size'; message: string };

const NULL_RE = /^(?:~|null|Null|NULL|)$/;
const BOOL_TRUE_RE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const BOOL_FALSE_RE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const INT_RE = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT_RE =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function sexagesimal(text: string): number {
  let value = 0;
  for (const part of text.split(':')) value = value * 60 + Number(part);
  return value;
}

/** Resolve an unquoted scalar the way PyYAML's SafeLoader (YAML 1.1) does. */
export function resolvePlainScalar(text: string): null | boolean | number | string {
  if (NULL_RE.test(text)) return null;
  if (BOOL_TRUE_RE.test(text)) return true;
  if (BOOL_FALSE_RE.test(text)) return false;
  if (INT_RE.test(text)) {
    let t = text.replace(/_/g, '');
    let sign = 1;
    if (t[0] === '-' || t[0] === '+') {
      if (t[0] === '-') sign = -1;
      t = t.slice(1);
    }
    let n: number;
    if (t.startsWith('0b')) n = parseInt(t.slice(2), 2);
    else if (t.startsWith('0x')) n = parseInt(t.slice(2), 16);
    else if (t.includes(':')) n = sexagesimal(t);
    else if (t.length > 1 && t[0] === '0') n = parseInt(t, 8);
    else n = Number(t);
    n *= sign;
    if (Number.isSafeInteger(n)) return n;
    // Integers beyond double precision become their exact decimal text (PyYAML ints are unbounded).
    if (t.includes(':')) return text;
    const big = t.startsWith('0b') ? BigInt(t) : t.startsWith('0x') ? BigInt(t) : t.length > 1 && t[0] === '0' ? BigInt('0o' + t.slice(1)) : BigInt(t);
    return (sign < 0 ? -big : big).toString();
  }
  if (FLOAT_RE.test(text)) {
    const t = text.replace(/_/g, '');
    const lower = t.toLowerCase();
    if (lower.endsWith('.inf')) return t.startsWith('-') ? -Infinity : Infinity;
    if (lower === '.nan') return NaN;
    if (t.includes(':')) {
      const neg = t.startsWith('-');
      const body = t.replace(/^[-+]/, '');
      const [whole, frac] = body.split('.');
      const v = sexagesimal(whole) + Number('0.' + (frac || '0'));
      return neg ? -v : v;
    }
    return Number(t);
  }
  return text;
}

class Budget {
  aliases = 0;
  nodes = 0;
}

class LoadError extends Error {}

function convert(node: unknown, doc: Document, budget: Budget): YamlValue {
  if (++budget.nodes > MAX_NODES) throw new LoadError('document expands to too many nodes (alias bomb?)');
  if (node === null || node === undefined) return null;
  if (isAlias(node)) {
    if (++budget.aliases > MAX_ALIASES) throw new LoadError(`too many YAML aliases (limit ${MAX_ALIASES})`);
    const target = node.resolve(doc);
    if (!target) throw new LoadError(`unresolved alias *${node.source}`);
    return convert(target, doc, budget);
  }
  if (isScalar(node)) {
    const value = node.value;
    if (typeof value !== 'string') return value === null || value === undefined ? null : String(value);
    if (node.type === Scalar.PLAIN && !node.tag) return resolvePlainScalar(value);
    return value;
  }
  if (isMap(node)) {
    const out: Record<string, YamlValue> = {};
    for (const pair of node.items) {
      const key = convert(pair.key as YamlNode, doc, budget);
      const keyText = key === null ? '' : typeof key === 'object' ? JSON.stringify(key) : String(key);
      if (Object.prototype.hasOwnProperty.call(out, keyText)) throw new LoadError(`duplicate key "${keyText}"`);
      // defineProperty: a key such as `__proto__` stays an ordinary own property (no prototype change).
      Object.defineProperty(out, keyText, { value: convert(pair.value as YamlNode, doc, budget), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (isSeq(node)) return node.items.map((item) => convert(item as YamlNode, doc, budget));
  return null;
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

function tooLarge(source: string, maxBytes: number): YamlLoadResult | null {
  // A UTF-8 byte count is at most 3 per UTF-16 code unit: short texts need no count.
  if (source.length * 3 <= maxBytes || Buffer.byteLength(source, 'utf8') <= maxBytes) return null;
  const what = maxBytes === MAX_DOCUMENT_BYTES ? 'document' : 'text';
  return { ok: false, kind: 'size', message: `${what} is larger than ${maxBytes} bytes (${maxBytes / 1024 / 1024} MiB)` };
}

/** Parse every document of a YAML text (the fast reader when the text allows it, else the full parser). */
export function loadYaml(source: string, maxBytes = MAX_DOCUMENT_BYTES): YamlLoadResult {
  const big = tooLarge(source, maxBytes);
  if (big) return big;
  // One document of at most MAX_DOCUMENT_BYTES (the fast reader only accepts a single document).
  if (source.length * 3 <= MAX_DOCUMENT_BYTES || Buffer.byteLength(source, 'utf8') <= MAX_DOCUMENT_BYTES) {
    const fast = fastYaml(source);
    if (fast !== null) return { ok: true, documents: [fast] };
  }
  return loadYamlFull(source, maxBytes);
}

/** Parse every document of a YAML text with the general parser. */
export function loadYamlFull(source: string, maxBytes = MAX_DOCUMENT_BYTES): YamlLoadResult {
  const big = tooLarge(source, maxBytes);
  if (big) return big;
  try {
    const docs = parseAllDocuments(source, { schema: 'failsafe', uniqueKeys: true, prettyErrors: true });
    if (!Array.isArray(docs)) return { ok: false, kind: 'yaml', message: 'not a YAML document stream' };
    const out: YamlValue[] = [];
    for (const doc of docs) {
      const [start, , end] = doc.range;
      if (end - start > MAX_DOCUMENT_BYTES && Buffer.byteLength(source.slice(start, end), 'utf8') > MAX_DOCUMENT_BYTES) {
        return { ok: false, kind: 'size', message: `document is larger than ${MAX_DOCUMENT_BYTES} bytes (1 MiB)` };
      }
      const err = doc.errors[0];
      if (err) {
        const pos = err.linePos?.[0];
        const where = pos ? ` (line ${pos.line}, column ${pos.col})` : '';
        return { ok: false, kind: 'yaml', message: `YAML syntax error${where}: ${firstLine(err.message)}` };
      }
      const budget = new Budget();
      out.push(convert(doc.contents, doc, budget));
    }
    return { ok: true, documents: out };
  } catch (e) {
    return { ok: false, kind: 'yaml', message: e instanceof Error ? e.message : String(e) };
  }
}
