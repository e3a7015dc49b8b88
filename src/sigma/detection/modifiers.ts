// Value modifiers (sigma-notes §4): turn a raw YAML value plus a modifier chain into a typed ValueExpr.
// Promises: modifiers apply left to right; value-producing expansions (windash, base64offset) are OR groups
// even under `all`; `all` and `neq` act on the whole item; misuse (unknown modifier, `re` not first,
// base64 of a wildcard, compare on a string, ...) is reported as a ModifierError with a readable message.
import { Buffer } from 'node:buffer';
import {
  ANY,
  extractPlaceholders,
  hasPlaceholders,
  hasWildcards,
  isPlain,
  literalText,
  parseSigmaString,
  pushLiteral,
} from './sigma-string.js';
import type { Part, SigmaString } from './sigma-string.js';
import { hostBits, parseCidr } from './ip.js';
import { numberText } from './number-text.js';
import type { CompareOp, ItemExpr, TimePart, ValueExpr, ValueLeaf } from './value-expr.js';

export class ModifierError extends Error {}

export type RawScalar = null | boolean | number | string;

const VALUE_MODIFIERS = new Set([
  'contains', 'startswith', 'endswith', 'base64', 'base64offset', 'wide', 'utf16le', 'utf16be', 'utf16',
  'windash', 're', 'i', 'ignorecase', 'm', 'multiline', 's', 'dotall', 'cidr', 'exists', 'expand', 'fieldref',
  'gt', 'gte', 'lt', 'lte', 'cased', 'minute', 'hour', 'day', 'week', 'month', 'year',
]);
const LIST_MODIFIERS = new Set(['all', 'neq']);
/** Modifiers that must come first in the whole chain, before `all` and `neq` too (pySigma counts every
 * modifier applied before them; `exists` is checked in buildItem). */
const FIRST_ONLY = new Set(['re', 'cidr']);
const TIME_PARTS = new Set<string>(['minute', 'hour', 'day', 'week', 'month', 'year']);
const WINDASH_CHARS = ['-', '/', '\u2013', '\u2014', '\u2015'];
const MAX_WINDASH_POSITIONS = 6;

export function isKnownModifier(m: string): boolean {
  return VALUE_MODIFIERS.has(m) || LIST_MODIFIERS.has(m);
}

function describe(leaf: ValueLeaf): string {
  return leaf.t === 'str' ? 'string' : leaf.t === 'num' ? 'number' : leaf.t;
}

function withParts(s: SigmaString, parts: Part[]): SigmaString {
  return { ...s, parts };
}

function addWildcards(s: SigmaString, start: boolean, end: boolean): SigmaString {
  const src = s.parts;
  const parts: Part[] = [];
  if (start && src[0] !== ANY) parts.push(ANY);
  for (let i = 0; i < src.length; i++) parts.push(src[i]);
  if (end && parts[parts.length - 1] !== ANY) parts.push(ANY);
  return withParts(s, parts);
}

function stringBytes(s: SigmaString): Buffer {
  const text = literalText(s);
  return s.bytes ? Buffer.from(text, 'latin1') : Buffer.from(text, 'utf8');
}

function encodeUtf16(s: SigmaString, bigEndian: boolean, bom: boolean): SigmaString {
  const parts: Part[] = [];
  if (bom) pushLiteral(parts, '\xff\xfe');
  for (const p of s.parts) {
    if (typeof p !== 'string') {
      parts.push(p);
      continue;
    }
    let out = '';
    for (let i = 0; i < p.length; i++) {
      const u = p.charCodeAt(i);
      out += bigEndian ? String.fromCharCode(u >> 8, u & 0xff) : String.fromCharCode(u & 0xff, u >> 8);
    }
    pushLiteral(parts, out);
  }
  return { parts, cased: s.cased, bytes: true };
}

/** Space padding put before the bytes for offsets 0, 1 and 2 (made once: they never change). */
const OFFSET_PADS = [Buffer.alloc(0), Buffer.from(' '), Buffer.from('  ')];
const OFFSET_START = [0, 2, 3];
const OFFSET_END = [undefined, -3, -2];

function base64Offsets(bytes: Buffer): string[] {
  const start = OFFSET_START;
  const end = OFFSET_END;
  const out: string[] = [];
  for (let i = 0; i < 3; i++) {
    const enc = (i === 0 ? bytes : Buffer.concat([OFFSET_PADS[i], bytes])).toString('base64');
    const e = end[(bytes.length + i) % 3];
    out.push(enc.slice(start[i], e));
  }
  return out;
}

function windash(s: SigmaString): ValueExpr {
  // Collect (part index, char index) of every dash/slash matching Python's \B[-/]\b, whose word characters
  // are Unicode letters, digits and '_' (JavaScript's \b knows ASCII only): not after a word character,
  // before one.
  const positions: Array<[number, number]> = [];
  s.parts.forEach((p, pi) => {
    if (typeof p !== 'string') return;
    const re = /(?<![\p{L}\p{N}_])[-/](?=[\p{L}\p{N}_])/gu;
    for (let m = re.exec(p); m; m = re.exec(p)) positions.push([pi, m.index]);
  });
  if (positions.length === 0) return { t: 'str', s };
  if (positions.length > MAX_WINDASH_POSITIONS) {
    throw new ModifierError(`windash: too many dash positions (${positions.length}, limit ${MAX_WINDASH_POSITIONS})`);
  }
  const variants: ValueExpr[] = [];
  const total = WINDASH_CHARS.length ** positions.length;
  for (let combo = 0; combo < total; combo++) {
    const parts = s.parts.map((p) => (typeof p === 'string' ? p.split('') : p));
    let c = combo;
    for (const [pi, ci] of positions) {
      (parts[pi] as string[])[ci] = WINDASH_CHARS[c % WINDASH_CHARS.length];
      c = Math.floor(c / WINDASH_CHARS.length);
    }
    variants.push({ t: 'str', s: withParts(s, parts.map((p) => (Array.isArray(p) ? p.join('') : p))) });
  }
  return { t: 'any', of: variants };
}

/** Modifiers that take a string only: a number or a boolean is refused, as pySigma's type check does
 * (sigma-notes §2.4); quoting the value makes it a string. */
const STRING_ONLY = new Set(['contains', 'startswith', 'endswith', 'windash', 'base64', 'base64offset', 'wide', 'utf16le', 'utf16be', 'utf16', 'cased', 'expand', 're']);

function applyOne(mod: string, leaf: ValueLeaf, index: number, field: string | null): ValueExpr {
  if ((leaf.t === 'num' || leaf.t === 'bool') && STRING_ONLY.has(mod)) {
    const what = leaf.t === 'num' ? `the number ${leaf.text}` : `the boolean ${leaf.b}`;
    throw new ModifierError(`modifier '${mod}' cannot be applied to ${what} (quote it to match its text)`);
  }
  if (FIRST_ONLY.has(mod) && index !== 0) throw new ModifierError(`modifier '${mod}' must be the first modifier`);
  switch (mod) {
    case 'contains':
    case 'startswith':
    case 'endswith': {
      const start = mod !== 'startswith';
      const end = mod !== 'endswith';
      if (leaf.t === 'str') return { t: 'str', s: addWildcards(leaf.s, start, end) };
      if (leaf.t === 're') return leaf; // regexes are unanchored searches already
      if (leaf.t === 'fieldref') {
        return { ...leaf, startsWith: leaf.startsWith || mod === 'startswith' || mod === 'contains', endsWith: leaf.endsWith || mod === 'endswith' || mod === 'contains' };
      }
      break;
    }
    case 'cased':
      if (leaf.t === 'str') return { t: 'str', s: { ...leaf.s, cased: true } };
      break;
    case 'windash':
      if (leaf.t === 'str') return windash(leaf.s);
      break;
    case 'base64':
    case 'base64offset':
      if (leaf.t === 'str') {
        if (!isPlain(leaf.s)) throw new ModifierError(`${mod}: value must not contain wildcards or placeholders`);
        const bytes = stringBytes(leaf.s);
        const cased = leaf.s.cased; // Sigma default: case-insensitive, like any string value
        if (mod === 'base64') return { t: 'str', s: { parts: [bytes.toString('base64')], cased, bytes: false } };
        return { t: 'any', of: base64Offsets(bytes).map((b) => ({ t: 'str' as const, s: { parts: [b], cased, bytes: false } })) };
      }
      break;
    case 'wide':
    case 'utf16le':
    case 'utf16be':
    case 'utf16':
      if (leaf.t === 'str') return { t: 'str', s: encodeUtf16(leaf.s, mod === 'utf16be', mod === 'utf16') };
      break;
    case 're':
      if (leaf.t === 'str') return { t: 're', source: literalText(leaf.s), i: false, m: false, s: false };
      break;
    case 'i':
    case 'ignorecase':
      if (leaf.t === 're') return { ...leaf, i: true };
      break;
    case 'm':
    case 'multiline':
      if (leaf.t === 're') return { ...leaf, m: true };
      break;
    case 's':
    case 'dotall':
      if (leaf.t === 're') return { ...leaf, s: true };
      break;
    case 'cidr': {
      const text = leaf.t === 'str' ? literalText(leaf.s) : null;
      if (text !== null) {
        const cidr = parseCidr(text);
        if (!cidr) throw new ModifierError(`cidr: '${text}' is not a valid IPv4/IPv6 network`);
        if (hostBits(cidr)) throw new ModifierError(`cidr: '${text}' has host bits set beyond the /${cidr.prefix} prefix`);
        return { t: 'cidr', cidr, text };
      }
      break;
    }
    case 'exists':
      if (field === null) throw new ModifierError("modifier 'exists' needs a field name");
      if (leaf.t === 'bool') return { t: 'exists', b: leaf.b };
      throw new ModifierError("modifier 'exists' expects true or false (a boolean, unquoted)");
    case 'expand':
      if (leaf.t === 'str') return { t: 'str', s: extractPlaceholders(leaf.s) };
      if (leaf.t === 're') {
        // pySigma takes `re|expand`; without a placeholder it changes nothing.
        if (/(?<!\\)%[^%]+%/.test(leaf.source)) throw new ModifierError('expand: placeholders inside a regular expression are not supported');
        return leaf;
      }
      break;
    case 'fieldref':
      if (field === null) throw new ModifierError("modifier 'fieldref' needs a field name");
      if (leaf.t === 'str') {
        if (hasWildcards(leaf.s) || hasPlaceholders(leaf.s)) throw new ModifierError('fieldref: the referenced field name must not contain wildcards');
        return { t: 'fieldref', field: literalText(leaf.s), startsWith: false, endsWith: false, cased: false };
      }
      break;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (leaf.t === 'num') return { t: 'cmp', op: mod as CompareOp, n: leaf.n };
      if (leaf.t === 'time' && leaf.op === 'eq') return { ...leaf, op: mod as CompareOp };
      throw new ModifierError(`modifier '${mod}' expects a number`);
    default:
      if (TIME_PARTS.has(mod)) {
        if (leaf.t === 'num') return { t: 'time', part: mod as TimePart, op: 'eq', n: leaf.n };
        throw new ModifierError(`modifier '${mod}' expects a number`);
      }
  }
  throw new ModifierError(`modifier '${mod}' cannot be applied to a ${describe(leaf)} value`);
}

function initialLeaf(v: RawScalar, firstMod: string | undefined): ValueLeaf {
  if (v === null) return { t: 'null' };
  if (typeof v === 'boolean') return { t: 'bool', b: v };
  if (typeof v === 'number') return { t: 'num', n: v, text: numberText(v) };
  if (firstMod === 're') return { t: 'str', s: { parts: [v], cased: false, bytes: false } }; // raw, unescaped
  return { t: 'str', s: parseSigmaString(v) };
}

/** Apply modifier `mod` (position `i` in the chain) to every leaf of `v`. Compare and time modifiers take
 * numbers only: a quoted '5' is a string, refused like pySigma ("Compare operator expects number"). */
function applyToLeaves(mod: string, v: ValueExpr, i: number, field: string | null): ValueExpr {
  if (v.t === 'any' || v.t === 'all') return { t: v.t, of: v.of.map((x) => applyToLeaves(mod, x, i, field)) };
  return applyOne(mod, v, i, field);
}

export function buildItem(field: string | null, modifiers: string[], values: RawScalar[], path: string): ItemExpr {
  for (const m of modifiers) {
    if (!isKnownModifier(m)) throw new ModifierError(`unknown modifier '${m}'`);
  }
  // `exists` tests the field itself: no modifier may come before it, not even `all` or `neq` (pySigma).
  if (modifiers.includes('exists') && modifiers[0] !== 'exists') throw new ModifierError("modifier 'exists' must be the first modifier");
  const valueMods = modifiers.filter((m) => !LIST_MODIFIERS.has(m));
  const all = modifiers.includes('all');
  const negate = modifiers.includes('neq');
  if (values.length === 0) return { field, value: { t: 'null' }, negate, path };
  if (values.length > 1 && values.some((v) => v === null)) {
    // R forbids null in a list; pySigma accepts it as one more alternative. Accept it too.
  }
  const exprs = values.map((raw) => {
    let v: ValueExpr = initialLeaf(raw, valueMods[0]);
    modifiers.forEach((m, i) => {
      if (!LIST_MODIFIERS.has(m)) v = applyToLeaves(m, v, i, field);
    });
    return v;
  });
  const value: ValueExpr = exprs.length === 1 ? exprs[0] : { t: all ? 'all' : 'any', of: exprs };
  return { field, value, negate, path };
}
