// A fast single-pass reader for the plain YAML subset Sigma rules are written in: one document of block
// maps and block sequences (compact `- key: value` items included), plain scalars (also over several
// lines), one-line single- and double-quoted scalars, literal and folded block scalars (`|`, `|-`, `>`,
// `>-`) and comments. It exists because the general parser costs ~0.5 ms per rule.
//
// Promises: `fastYaml(text)` returns either null ("not sure: use the full parser") or exactly the value
// yaml11.ts's loadYaml would produce for the text's only document (same key order, same PyYAML 1.1 plain
// scalar resolution, keys made own properties). It returns null on anything outside the subset: tabs,
// carriage returns, a BOM, directives and document markers, anchors, aliases, tags, flow collections,
// double-quoted keys and single-quoted keys holding a quote, multi-line quoted scalars, uncommon escapes,
// block scalar indentation indicators or keep chomping, duplicate keys, inconsistent indentation, more than
// MAX_NESTING nested collections, and anything after a value that YAML would refuse. Never throws.
import { resolvePlainScalar, YamlValueError } from './yaml11-scalars.js';
import type { YamlValue } from './yaml11.js';
import { MAX_NESTING } from './bounded-parse.js';

class NotPlain extends Error {}

/** First characters of the plain scalars PyYAML's resolvers can turn into something other than a string:
 * 1 for `~`, signs, `.` and digits (null, ints, floats, timestamps) and `=`, `<` (refused `=` and `<<`), 2
 * for letters that start a null or boolean word. */
const MAY_RESOLVE = new Uint8Array(128);
for (const c of '~-+.0123456789=<') MAY_RESOLVE[c.charCodeAt(0)] = 1;
for (const c of 'nNyYtToOfF') MAY_RESOLVE[c.charCodeAt(0)] = 2;
/** The only texts starting with a letter that resolve to null or a boolean (ints and floats never do). */
const WORDS = new Set(['null', 'Null', 'NULL', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);

/** resolvePlainScalar, skipping its regexes for texts that can only be strings. */
function resolve(text: string): YamlValue {
  const c = text.charCodeAt(0);
  if (c >= 128) return text;
  const k = MAY_RESOLVE[c];
  return k === 0 || (k === 2 && !WORDS.has(text)) ? text : resolvePlainScalar(text);
}

const fail = (): never => {
  throw new NotPlain();
};

/** Characters that cannot start a plain scalar (or that we do not handle there). */
const BAD_START = new Set(['[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', ',', '?', "'", '"']);

function defineKey(out: Record<string, YamlValue>, key: string, value: YamlValue): void {
  if (Object.prototype.hasOwnProperty.call(out, key)) fail();
  // Plain assignment creates the same own data property except for `__proto__` (an inherited setter).
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** Position of the `:` that ends a plain implicit key in `t`, or -1 when the line is not `key: …`. */
function keyEnd(t: string): number {
  for (let p = 0; p < t.length; p++) {
    const c = t.charCodeAt(p);
    if (c === 58 /* : */ && (p + 1 === t.length || t.charCodeAt(p + 1) === 32)) return p;
    if (c === 35 /* # */ && p > 0 && t.charCodeAt(p - 1) === 32) return -1;
  }
  return -1;
}

/** `t` without its trailing spaces (YAML's white space is the space and the tab, which this reader
 * refuses; String.prototype.trimEnd would also strip no-break and other Unicode spaces, which are content). */
function trimSpacesEnd(t: string): string {
  let end = t.length;
  while (end > 0 && t.charCodeAt(end - 1) === 32) end--;
  return end === t.length ? t : t.slice(0, end);
}

/** `t` without its leading spaces (see trimSpacesEnd). */
function trimSpacesStart(t: string): string {
  let start = 0;
  while (start < t.length && t.charCodeAt(start) === 32) start++;
  return start === 0 ? t : t.slice(start);
}

/** Where a ` # comment` starts in a plain scalar line (the `#`), or -1. */
function commentAt(t: string): number {
  for (let p = 1; p < t.length; p++) if (t.charCodeAt(p) === 35 && t.charCodeAt(p - 1) === 32) return p;
  return -1;
}

/** Strip a trailing ` # comment` from a plain scalar line and trailing spaces. */
function plainPart(t: string): string {
  const at = commentAt(t);
  return trimSpacesEnd(at < 0 ? t : t.slice(0, at));
}

/** After a quoted scalar only spaces and a comment may follow. */
function onlyComment(t: string, from: number): void {
  let p = from;
  while (p < t.length && t.charCodeAt(p) === 32) p++;
  if (p < t.length && (t.charCodeAt(p) !== 35 || p === from)) fail();
}

function singleQuoted(t: string): string {
  let out = '';
  let p = 1;
  for (;;) {
    const q = t.indexOf("'", p);
    if (q < 0) return fail();
    out += t.slice(p, q);
    if (t.charCodeAt(q + 1) === 39) {
      out += "'";
      p = q + 2;
      continue;
    }
    onlyComment(t, q + 1);
    return out;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0' };

function doubleQuoted(t: string): string {
  let out = '';
  let p = 1;
  while (p < t.length) {
    const c = t[p];
    if (c === '"') {
      onlyComment(t, p + 1);
      return out;
    }
    if (c !== '\\') {
      out += c;
      p++;
      continue;
    }
    const e = t[p + 1];
    if (e === undefined) return fail();
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      p += 2;
      continue;
    }
    const len = e === 'x' ? 2 : e === 'u' ? 4 : 0;
    const hex = t.slice(p + 2, p + 2 + len);
    if (len === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) return fail();
    out += String.fromCharCode(parseInt(hex, 16));
    p += 2 + len;
  }
  return fail();
}

/** A plain implicit key, resolved like any plain scalar and used as text (null: the empty key). */
function plainKey(rawKey: string): string {
  if (BAD_START.has(rawKey[0]) || ((rawKey[0] === '-' || rawKey[0] === ':') && (rawKey.length === 1 || rawKey[1] === ' '))) fail();
  const key = resolve(rawKey);
  return key === null ? '' : String(key);
}

/** A single-quoted key such as `'|all'`: a string, taken as is. Only the simple form is read here: no
 * quote inside (no `''` escape, no second quoted piece). */
function singleQuotedKey(rawKey: string): string {
  const close = rawKey.indexOf("'", 1);
  if (close !== rawKey.length - 1) fail();
  return rawKey.slice(1, close);
}

class Reader {
  private readonly ind: number[];
  private readonly txt: string[];
  private i = 0;
  /** Block collections open: deeper texts are left to the general parser, which bounds nesting. */
  private depth = 0;

  constructor(lines: string[]) {
    this.ind = [];
    this.txt = [];
    for (const l of lines) {
      let n = 0;
      while (n < l.length && l.charCodeAt(n) === 32) n++;
      // Directives and document markers (`%`, `---`, `...` at the start of a line): not a single plain document.
      if (n === 0 && (l.charCodeAt(0) === 37 || l.startsWith('---') || l.startsWith('...'))) fail();
      this.ind.push(n);
      this.txt.push(n === 0 ? l : l.slice(n));
    }
  }

  /** Index of the next line holding content (not blank, not a comment), or -1. */
  private next(): number {
    for (let k = this.i; k < this.txt.length; k++) {
      const t = this.txt[k];
      if (t.length !== 0 && t.charCodeAt(0) !== 35) return k;
    }
    return -1;
  }

  document(): YamlValue {
    const k = this.next();
    if (k < 0) return fail();
    const t = this.txt[k];
    if (this.ind[k] !== 0 || t.startsWith('- ') || t === '-' || keyEnd(t) <= 0) return fail();
    this.i = k;
    const v = this.map(0);
    if (this.next() >= 0) fail();
    return v;
  }

  /** A value that starts on a following line, its parent at indentation `parent`. */
  private nested(parent: number, seqAllowedAtParent: boolean): YamlValue {
    const k = this.next();
    if (k < 0) return null;
    const n = this.ind[k];
    const t = this.txt[k];
    const isItem = t.startsWith('- ') || t === '-';
    if (n > parent || (n === parent && seqAllowedAtParent && isItem)) {
      this.i = k;
      if (isItem) return this.seq(n);
      if (keyEnd(t) > 0) return this.map(n);
      return fail(); // a scalar on its own line
    }
    return null;
  }

  private map(n: number): Record<string, YamlValue> {
    if (++this.depth > MAX_NESTING) fail();
    const out = this.mapItems(n);
    this.depth--;
    return out;
  }

  private mapItems(n: number): Record<string, YamlValue> {
    const out: Record<string, YamlValue> = {};
    for (;;) {
      const k = this.next();
      if (k < 0 || this.ind[k] < n) return out;
      const t = this.txt[k];
      if (this.ind[k] > n || t.startsWith('- ') || t === '-') return this.ind[k] === n ? out : fail();
      const p = keyEnd(t);
      if (p <= 0 || p > 1000) fail();
      const rawKey = trimSpacesEnd(t.slice(0, p));
      const keyText = rawKey.charCodeAt(0) === 39 ? singleQuotedKey(rawKey) : plainKey(rawKey);
      this.i = k + 1;
      const rest = trimSpacesStart(t.slice(p + 1));
      defineKey(out, keyText, this.inlineValue(rest, n, true));
    }
  }

  private seq(n: number): YamlValue[] {
    if (++this.depth > MAX_NESTING) fail();
    const out = this.seqItems(n);
    this.depth--;
    return out;
  }

  private seqItems(n: number): YamlValue[] {
    const out: YamlValue[] = [];
    for (;;) {
      const k = this.next();
      if (k < 0 || this.ind[k] < n) return out;
      const t = this.txt[k];
      if (this.ind[k] > n) fail();
      if (!(t.startsWith('- ') || t === '-')) return out;
      let rest = t.slice(1);
      let col = n + 1;
      while (rest.charCodeAt(0) === 32) {
        rest = rest.slice(1);
        col++;
      }
      if (rest.startsWith('- ') || rest === '-') fail();
      if (rest.length !== 0 && rest.charCodeAt(0) !== 35 && keyEnd(rest) > 0 && !BAD_START.has(rest[0])) {
        // Compact map: the item's first line is re-read as a key line at the item's column.
        this.ind[k] = col;
        this.txt[k] = rest;
        this.i = k;
        out.push(this.map(col));
        continue;
      }
      this.i = k + 1;
      out.push(this.inlineValue(rest, n, false));
    }
  }

  /** The value after `key:` or `- ` (text `rest`), the key or dash at indentation `n`. */
  private inlineValue(rest: string, n: number, inMap: boolean): YamlValue {
    if (rest.length === 0 || rest.charCodeAt(0) === 35) return this.nested(n, inMap);
    const c = rest[0];
    let v: YamlValue;
    if (c === "'") v = singleQuoted(rest);
    else if (c === '"') v = doubleQuoted(rest);
    else if (c === '|' || c === '>') v = this.block(rest, n);
    else {
      if (BAD_START.has(c) || ((c === '-' || c === ':') && (rest.length === 1 || rest[1] === ' '))) fail();
      // A comment ends the scalar: a continuation line after it is an error (left to the full parser).
      v = this.plain(plainPart(rest), n, commentAt(rest) >= 0);
    }
    this.after(n);
    return v;
  }

  /** After a scalar value, the next content line may not be more indented than its key or dash. */
  private after(n: number): void {
    const k = this.next();
    if (k >= 0 && this.ind[k] > n) fail();
  }

  private plain(first: string, n: number, commented: boolean): YamlValue {
    if (keyEnd(first) >= 0 || first.endsWith(':')) fail();
    let text = first;
    let breaks = 0;
    let k = this.i;
    for (; k < this.txt.length; k++) {
      const t = this.txt[k];
      if (t.length === 0) {
        breaks++;
        continue;
      }
      if (this.ind[k] <= n || t.charCodeAt(0) === 35) break;
      const part = plainPart(t);
      if (commented || part.length !== t.length || keyEnd(part) >= 0 || part.endsWith(':') || t.startsWith('- ') || BAD_START.has(t[0])) fail();
      text += breaks === 0 ? ' ' + part : '\n'.repeat(breaks) + part;
      breaks = 0;
      this.i = k + 1;
    }
    return resolve(text);
  }

  private block(header: string, n: number): string {
    const folded = header[0] === '>';
    let h = header.slice(1);
    let chomp = '';
    if (h[0] === '-' || h[0] === '+') {
      chomp = h[0];
      h = h.slice(1);
    }
    if (chomp === '+' || (h.length !== 0 && trimSpacesStart(h)[0] !== '#') || (h.length !== 0 && h[0] !== ' ')) fail();
    // Body: blank lines and lines indented deeper than the parent.
    const body: string[] = [];
    let m = -1;
    let k = this.i;
    for (; k < this.txt.length; k++) {
      const t = this.txt[k];
      if (t.length === 0) {
        if (m >= 0 && this.ind[k] > m) fail(); // spaces beyond the indentation: content we do not model
        if (m < 0 && this.ind[k] > 0) fail();
        body.push('');
        continue;
      }
      if (m < 0) {
        if (this.ind[k] <= n) break;
        m = this.ind[k];
      }
      if (this.ind[k] < m) {
        if (this.ind[k] > n) fail();
        break;
      }
      body.push(' '.repeat(this.ind[k] - m) + t);
    }
    // Trailing blank lines belong to chomping and are not part of the content.
    let end = body.length;
    while (end > 0 && body[end - 1] === '') end--;
    this.i = this.i + end;
    // Skip the trailing blank lines too (they hold no content).
    const lines = body.slice(0, end);
    if (lines.length === 0) return '';
    let text: string;
    if (!folded) text = lines.join('\n');
    else {
      text = '';
      let prevContent = false;
      let breaks = 0;
      for (const l of lines) {
        if (l.length === 0) {
          breaks++;
          continue;
        }
        if (l.charCodeAt(0) === 32) fail(); // more-indented lines keep their breaks: not modelled
        text += prevContent ? (breaks === 0 ? ' ' : '\n'.repeat(breaks)) + l : '\n'.repeat(breaks) + l;
        prevContent = true;
        breaks = 0;
      }
    }
    // Clip chomping keeps the final line break, which the last line of a text may not have.
    const broken = this.i < this.txt.length;
    return chomp === '-' || !broken ? text : text + '\n';
  }
}

/** Control characters other than the line feed (tabs, CR), DEL and C1 controls, the BOM and the
 * non-characters U+FFFE/U+FFFF, and the line and paragraph separators U+2028/U+2029 (line breaks to YAML 1.1):
 * anything outside line feed, printable ASCII, U+00A0–U+2027, U+202A–U+FEFE, U+FF00–U+FFFD. */
const ODD_CHARACTER = /[^\n\x20-\x7e\xa0-\u2027\u202a-\ufefe\uff00-\ufffd]/;

function hasOddCharacter(text: string): boolean {
  return ODD_CHARACTER.test(text);
}

/** The single document of `text` if it is in the plain Sigma subset, else null (use the full parser). */
export function fastYaml(text: string): YamlValue | null {
  if (hasOddCharacter(text)) return null;
  try {
    return new Reader(text.split('\n')).document();
  } catch (e) {
    if (e instanceof NotPlain || e instanceof YamlValueError) return null;
    throw e;
  }
}
