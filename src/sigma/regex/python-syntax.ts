// Python's regular-expression syntax (the reference semantics compile `re` values with Python 3.11's `re`),
// checked and rewritten in one canonical spelling. Promises: a pattern Python refuses is refused, with
// Python's message and position; a pattern Python reads but a linear-time automaton cannot run
// (lookaround, backreferences, conditional and atomic groups, possessive repeats) or that no consumer
// spells (named characters `\N{…}`, the ASCII flag, a multiline flag on part of the pattern) is refused
// with the reason; any other pattern comes out meaning the same in a plain subset of the syntax that the
// RE2 translation, the index's required literals and the Lucene translation all read alike: global flags
// moved into the spec, comments and verbose-mode whitespace dropped, named groups made non-capturing,
// every escaped character spelled as itself, `\` + punctuation, or `\xHH` for an ASCII control.
import type { RegexSpec } from './safe-regex.js';

export type CanonicalRegex = { ok: true; spec: RegexSpec } | { ok: false; message: string };

class PatternError extends Error {}

const WHITESPACE = ' \t\n\r\v\f';
const FLAG_LETTERS = 'aiLmsux';
/** Escapes that stand for one character (`\b` is a boundary outside brackets, a backspace inside). */
const CHARACTER_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };
const CLASS_ESCAPES = 'dDsSwW';
const ANCHOR_ESCAPES = 'AbBZ';
const isDigit = (t: string | null): boolean => t !== null && t >= '0' && t <= '9' && t.length === 1;
const isOctal = (t: string | null): boolean => t !== null && t >= '0' && t <= '7' && t.length === 1;
const isHex = (t: string | null): boolean => t !== null && /^[0-9A-Fa-f]$/.test(t);
const isAsciiLetter = (c: string): boolean => /^[A-Za-z]$/.test(c);
/** Python's str.isidentifier(), near enough for group names (they are dropped after the check). */
const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u;
const LINEAR_TIME = 'it cannot be matched in guaranteed linear time';
/** Groups a pattern may nest (Python's own parser gives up a few hundred levels deep; the limit keeps
 * this parser and every later reader of the pattern far from the stack's end). */
export const MAX_GROUP_NESTING = 100;

/** What the last item of a sequence was, for Python's "nothing to repeat" and "multiple repeat". */
type Last = 'none' | 'anchor' | 'repeat' | 'item';

/** One character of a pattern as canonical text: meta characters escaped, ASCII controls by code
 * (`\xHH`), a lone surrogate as `\uXXXX`, any other character as itself. */
function literal(cp: number, inClass: boolean): string {
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp >= 0xd800 && cp <= 0xdfff) return `\\u${cp.toString(16)}`;
  const c = String.fromCodePoint(cp);
  const meta = inClass ? '\\]^-[' : '\\.^$*+?{}[]|()';
  return meta.includes(c) ? `\\${c}` : c;
}

class Parser {
  private readonly chars: string[];
  private pos = 0;
  private groups = 1;
  private depth = 0;
  private readonly names = new Set<string>();
  readonly flags = { i: false, m: false, s: false, x: false };

  constructor(source: string) {
    this.chars = Array.from(source);
  }

  fail(message: string, at = this.pos): never {
    throw new PatternError(`${message} at position ${at}`);
  }

  /** The next token: one character (code point), or a backslash with the character after it. */
  peek(): string | null {
    const c = this.chars[this.pos];
    if (c === undefined) return null;
    if (c !== '\\') return c;
    const e = this.chars[this.pos + 1];
    if (e === undefined) this.fail('bad escape (end of pattern)');
    return c + e;
  }

  get(): string | null {
    const t = this.peek();
    if (t !== null) this.pos += t[0] === '\\' ? 2 : 1;
    return t;
  }

  match(t: string): boolean {
    if (this.peek() !== t) return false;
    this.get();
    return true;
  }

  /** Up to `max` following tokens that satisfy `ok`, joined. */
  getWhile(max: number, ok: (t: string | null) => boolean): string {
    let out = '';
    while (out.length < max && ok(this.peek())) out += this.get();
    return out;
  }

  parse(): string {
    const out = this.parseAlternatives(this.flags.x, 0);
    if (this.peek() !== null) this.fail('unbalanced parenthesis');
    return out;
  }

  parseAlternatives(verbose: boolean, nested: number): string {
    const branches: string[] = [];
    do {
      // Global flags (only at the very start) hold for every top-level branch after them.
      const top = nested === 0;
      branches.push(this.parseSequence(top ? verbose || this.flags.x : verbose, top && branches.length === 0));
    } while (this.match('|'));
    return branches.join('|');
  }

  parseSequence(verboseIn: boolean, first: boolean): string {
    let verbose = verboseIn;
    let out = '';
    let last: Last = 'none';
    for (;;) {
      const t = this.peek();
      if (t === null || t === '|' || t === ')') return out;
      const start = this.pos;
      this.get();
      if (verbose && WHITESPACE.includes(t)) continue;
      if (verbose && t === '#') {
        for (let c = this.get(); c !== null && c !== '\n'; c = this.get());
        continue;
      }
      if (t[0] === '\\') {
        const e = this.escape(t);
        out += e.text;
        last = e.anchor ? 'anchor' : 'item';
      } else if (t === '*' || t === '+' || t === '?' || t === '{') {
        const q = this.repeat(t, start);
        if (q === null) {
          out += '\\{';
          last = 'item';
          continue;
        }
        if (last === 'none' || last === 'anchor') this.fail('nothing to repeat', start);
        if (last === 'repeat') this.fail('multiple repeat', start);
        out += q;
        last = 'repeat';
      } else if (t === '[') {
        out += this.characterClass(start);
        last = 'item';
      } else if (t === '^' || t === '$') {
        out += t;
        last = 'anchor';
      } else if (t === '.') {
        out += t;
        last = 'item';
      } else if (t === '(') {
        const g = this.group(start, verbose, first && out === '' && last === 'none');
        if (g === null) {
          verbose = verbose || this.flags.x;
          continue;
        }
        out += g;
        last = 'item';
      } else {
        out += literal(t.codePointAt(0) as number, false);
        last = 'item';
      }
    }
  }

  /** A repetition operator's canonical text (with `?` when lazy), or null when `{` is a character. */
  repeat(t: string, start: number): string | null {
    let q = t;
    if (t === '{') {
      if (this.peek() === '}') return null;
      const lo = this.getWhile(Infinity, isDigit);
      const comma = this.match(',');
      const hi = comma ? this.getWhile(Infinity, isDigit) : lo;
      if (!this.match('}')) {
        this.pos = start + 1;
        return null;
      }
      if (hi !== '' && Number(hi) < Number(lo || '0')) this.fail('min repeat greater than max repeat', start + 1);
      q = comma ? `{${lo || '0'},${hi}}` : `{${lo}}`;
    }
    if (this.match('?')) return q + '?';
    if (this.peek() === '+') this.fail(`possessive repeats are refused: ${LINEAR_TIME} by this engine`, start);
    return q;
  }

  /** An escape outside brackets: its canonical text, and whether it is an anchor. */
  escape(t: string): { text: string; anchor: boolean } {
    const c = t[1];
    if (CLASS_ESCAPES.includes(c)) return { text: t, anchor: false };
    if (ANCHOR_ESCAPES.includes(c)) return { text: t, anchor: true };
    if (c >= '1' && c <= '9') {
      let digits = c;
      if (isDigit(this.peek())) {
        digits += this.get();
        if (isOctal(c) && isOctal(digits[1]) && isOctal(this.peek())) {
          digits += this.get();
          return { text: literal(this.octal(digits, t.length + 2), false), anchor: false };
        }
      }
      const group = Number(digits);
      if (group < this.groups) this.fail(`backreferences are refused: ${LINEAR_TIME}`);
      this.fail(`invalid group reference ${group}`, this.pos - digits.length);
    }
    return { text: literal(this.characterEscape(t, false), false), anchor: false };
  }

  octal(digits: string, length: number): number {
    const v = parseInt(digits, 8);
    if (v > 0o377) this.fail(`octal escape value \\${digits} outside of range 0-0o377`, this.pos - length + 1);
    return v;
  }

  /** The code point of an escape that stands for one character (inside or outside brackets). */
  characterEscape(t: string, inClass: boolean): number {
    const c = t[1];
    const at = this.pos - 2;
    if (CHARACTER_ESCAPES[c] !== undefined) return CHARACTER_ESCAPES[c];
    const hex = (n: number): number => {
      const digits = this.getWhile(n, isHex);
      if (digits.length !== n) this.fail(`incomplete escape \\${c}${digits}`, at);
      return parseInt(digits, 16);
    };
    if (c === 'x') return hex(2);
    if (c === 'u') return hex(4);
    if (c === 'U') {
      const v = hex(8);
      if (v > 0x10ffff) this.fail(`bad escape \\U${v.toString(16).padStart(8, '0')}`, at);
      return v;
    }
    if (c === 'N') this.fail('named Unicode characters (\\N{…}) are not supported', at);
    if (c === '0' || (inClass && isOctal(c))) {
      const digits = c + this.getWhile(2, isOctal);
      return this.octal(digits, digits.length + 1);
    }
    if (isAsciiLetter(c) || isDigit(c)) this.fail(`bad escape ${t}`, at);
    return t.codePointAt(1) as number;
  }

  characterClass(start: number): string {
    let out = '[';
    if (this.match('^')) out += '^';
    let empty = true;
    for (;;) {
      const t = this.get();
      if (t === null) this.fail('unterminated character set', start);
      if (t === ']' && !empty) return out + ']';
      empty = false;
      const lo = this.classItem(t);
      if (!this.match('-')) {
        out += typeof lo === 'number' ? literal(lo, true) : lo;
        continue;
      }
      const that = this.get();
      if (that === null) this.fail('unterminated character set', start);
      if (that === ']') return out + (typeof lo === 'number' ? literal(lo, true) : lo) + '\\-]';
      const hi = this.classItem(that);
      if (typeof lo !== 'number' || typeof hi !== 'number' || hi < lo) {
        this.fail(`bad character range ${t}-${that}`, this.pos - t.length - that.length - 1);
      }
      out += `${literal(lo, true)}-${literal(hi, true)}`;
    }
  }

  /** A class member: a code point, or the text of a class escape such as `\d`. */
  classItem(t: string): number | string {
    if (t[0] !== '\\') return t.codePointAt(0) as number;
    if (CLASS_ESCAPES.includes(t[1])) return t;
    if (ANCHOR_ESCAPES.includes(t[1]) && t[1] !== 'b') this.fail(`bad escape ${t}`, this.pos - 2);
    return this.characterEscape(t, true);
  }

  /** A group's canonical text, or null for a comment or a group of global flags (nothing to add). */
  group(start: number, verbose: boolean, first: boolean): string | null {
    if (!this.match('?')) return this.groupBody('(', start, verbose, true);
    const c = this.get();
    if (c === null) this.fail('unexpected end of pattern');
    if (c === 'P') {
      if (this.match('<')) {
        const name = this.until('>');
        if (!IDENTIFIER.test(name)) this.fail(`bad character in group name '${name}'`, this.pos - name.length - 1);
        if (this.names.has(name)) this.fail(`redefinition of group name '${name}'`, this.pos - name.length - 1);
        this.names.add(name);
        return this.groupBody('(?:', start, verbose, true);
      }
      if (this.match('=')) this.fail(`backreferences are refused: ${LINEAR_TIME}`, start);
      const n = this.get();
      if (n === null) this.fail('unexpected end of pattern');
      this.fail(`unknown extension ?P${n}`, this.pos - n.length - 2);
    }
    if (c === ':') return this.groupBody('(?:', start, verbose, false);
    if (c === '#') {
      for (;;) {
        if (this.peek() === null) this.fail('missing ), unterminated comment', start);
        if (this.get() === ')') return null;
      }
    }
    if (c === '=' || c === '!' || c === '<') {
      if (c === '<') {
        const d = this.get();
        if (d === null) this.fail('unexpected end of pattern');
        if (d !== '=' && d !== '!') this.fail(`unknown extension ?<${d}`, this.pos - d.length - 2);
      }
      this.fail(`lookaround assertions are refused: ${LINEAR_TIME}`, start);
    }
    if (c === '(') this.fail(`conditional groups are refused: ${LINEAR_TIME}`, start);
    if (c === '>') this.fail(`atomic groups are refused: ${LINEAR_TIME} by this engine`, start);
    if (FLAG_LETTERS.includes(c) || c === '-') return this.flagGroup(c, start, verbose, first);
    return this.fail(`unknown extension ?${c}`, this.pos - c.length - 1);
  }

  /** Text up to `end` (consumed), as Python's group-name reader takes it. */
  until(end: string): string {
    let name = '';
    for (;;) {
      const t = this.get();
      if (t === null) this.fail(`missing ${end}, unterminated name`);
      if (t === end) break;
      name += t;
    }
    if (name === '') this.fail('missing group name', this.pos - 1);
    return name;
  }

  /** The alternatives of a group opened at `start`, one level deeper (refused beyond MAX_GROUP_NESTING). */
  nestedAlternatives(verbose: boolean, start: number): string {
    if (++this.depth > MAX_GROUP_NESTING) this.fail(`more than ${MAX_GROUP_NESTING} nested groups`, start);
    const body = this.parseAlternatives(verbose, 1);
    this.depth--;
    return body;
  }

  groupBody(open: string, start: number, verbose: boolean, capture: boolean): string {
    if (capture) this.groups++;
    const body = this.nestedAlternatives(verbose, start);
    if (!this.match(')')) this.fail('missing ), unterminated subpattern', start);
    return `${open}${body})`;
  }

  flagGroup(first: string, start: number, verbose: boolean, atStart: boolean): string | null {
    const on = new Set<string>();
    const off = new Set<string>();
    let c: string | null = first;
    if (c !== '-') {
      for (;;) {
        if (c === 'L') this.fail("bad inline flags: cannot use 'L' flag with a str pattern");
        on.add(c);
        if (on.has('a') && on.has('u')) this.fail("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
        c = this.get();
        if (c === null) this.fail('missing -, : or )');
        if (c === ')' || c === '-' || c === ':') break;
        if (!FLAG_LETTERS.includes(c)) this.fail(/^\p{L}$/u.test(c) ? 'unknown flag' : 'missing -, : or )', this.pos - c.length);
      }
    }
    if (c === ')') {
      if (!atStart) this.fail('global flags not at the start of the expression', start);
      if (on.has('a')) this.fail('the ASCII flag (?a) is not supported', start);
      for (const f of ['i', 'm', 's', 'x'] as const) if (on.has(f)) this.flags[f] = true;
      return null;
    }
    if (c === '-') {
      c = this.get();
      if (c === null) this.fail('missing flag');
      if (!FLAG_LETTERS.includes(c)) this.fail(/^\p{L}$/u.test(c) ? 'unknown flag' : 'missing flag', this.pos - c.length);
      for (;;) {
        if ('aLu'.includes(c)) this.fail("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
        off.add(c);
        c = this.get();
        if (c === null) this.fail('missing :');
        if (c === ':') break;
        if (!FLAG_LETTERS.includes(c)) this.fail(/^\p{L}$/u.test(c) ? 'unknown flag' : 'missing :', this.pos - c.length);
      }
    }
    for (const f of on) if (off.has(f)) this.fail('bad inline flags: flag turned on and off');
    if (on.has('a')) this.fail('the ASCII flag (?a:…) is not supported', start);
    if (on.has('m') || off.has('m')) this.fail('the m flag applies to the whole regex here: use the m modifier or a leading (?m)', start);
    const letters = (set: Set<string>): string => ['i', 's'].filter((f) => set.has(f)).join('');
    const open = `(?${letters(on)}${letters(off) ? '-' + letters(off) : ''}:`;
    const subVerbose = (verbose || on.has('x')) && !off.has('x');
    const body = this.nestedAlternatives(subVerbose, start);
    if (!this.match(')')) this.fail('missing ), unterminated subpattern', start);
    return `${open}${body})`;
  }
}

/** The pattern checked as Python reads it and rewritten canonically, with its inline global flags merged
 * into the spec's flags; or the reason it is refused. */
export function canonicalRegex(spec: RegexSpec): CanonicalRegex {
  const parser = new Parser(spec.source);
  try {
    const source = parser.parse();
    const f = parser.flags;
    return { ok: true, spec: { source, i: spec.i || f.i, m: spec.m || f.m, s: spec.s || f.s } };
  } catch (e) {
    if (e instanceof PatternError) return { ok: false, message: `regex is invalid: ${e.message}` };
    throw e;
  }
}
