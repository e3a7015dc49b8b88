// Case folding for Sigma's case-insensitive comparisons, shared by the matcher and the candidate index (one
// fold, so the index can never disagree with the matcher). Two characters are equal ignoring case when their
// simple lowercase forms are equal or are lowercase letters with the same uppercase (one character or
// several): the rule of a regular expression's ignore-case flag as the reference semantics apply it (`I`,
// `İ`, `i` and `ı` are one letter; so are `σ` and the final `ς`, `s` and `ſ`, `µ` and `μ`, and `ΐ` and `ΐ`
// or the ligatures `ﬅ` and `ﬆ`, whose uppercase is several characters). `foldCase` maps every character on
// its own to the smallest member of its class, so folding never depends on a character's neighbours (unlike
// String.prototype.toLowerCase's final sigma) and never changes a string's length (unlike toLowerCase on
// `İ`, which gives two characters); it equals toLowerCase on every string whose lowercase holds only
// characters below U+0130 (all of ASCII and Latin-1 among them: the common case costs one toLowerCase).

/** Matches a string that holds a character at or above U+0130 (its lowercase then needs the full fold). */
const WIDE = /[^\0-\u012f]/;

/** Code unit → its fold, for lowercase letters that are not the smallest of their class (built lazily). */
let classes: Map<number, number> | null = null;

/** The simple lowercase of one code point: its lowercase alone (no neighbours, so never a final sigma),
 * where that is one code point; U+0130's simple lowercase is `i`. */
function simpleLower(cp: number): number {
  const l = String.fromCodePoint(cp).toLowerCase();
  const first = l.codePointAt(0) as number;
  return l.length === String.fromCodePoint(first).length ? first : cp === 0x130 ? 0x69 : cp;
}

/** Lowercase letters of the Basic Multilingual Plane that share an uppercase (one character or several) with
 * a smaller one, mapped to the smallest of their class. */
function buildClasses(): Map<number, number> {
  const byUpper = new Map<string, number[]>();
  for (let cp = 0; cp < 0x10000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const l = simpleLower(cp);
    if (l !== cp) continue; // classes are made of lowercase forms
    const u = String.fromCharCode(cp).toUpperCase();
    if (u === String.fromCharCode(cp)) continue;
    const members = byUpper.get(u);
    if (members) members.push(cp);
    else byUpper.set(u, [cp]);
  }
  const out = new Map<number, number>();
  for (const members of byUpper.values()) for (const m of members) if (m !== members[0]) out.set(m, members[0]);
  return out;
}

/** The fold of one code point. */
export function foldCodePoint(cp: number): number {
  const l = simpleLower(cp);
  classes ??= buildClasses();
  return classes.get(l) ?? l;
}

/** The fold of every code unit (a lone surrogate folds to itself), built on the first string that needs it. */
let unitFolds: Uint16Array | null = null;

function buildUnitFolds(): Uint16Array {
  const t = new Uint16Array(0x10000);
  for (let c = 0; c < 0x10000; c++) t[c] = c < 0x80 ? (c >= 65 && c <= 90 ? c + 32 : c) : c >= 0xd800 && c <= 0xdfff ? c : foldCodePoint(c);
  return t;
}

/** Code units turned into text in slices (an argument list has a bounded length). */
function unitsToString(units: Uint16Array, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 8192) out += String.fromCharCode.apply(null, units.subarray(i, Math.min(length, i + 8192)) as unknown as number[]);
  return out;
}

/** Character by character (the slow path: some lowercase character at or above U+0130), through the table
 * of code-unit folds; a surrogate pair is folded as its code point. */
function foldEach(s: string): string {
  const table = (unitFolds ??= buildUnitFolds());
  const n = s.length;
  const out = new Uint16Array(n);
  let j = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const f = foldCodePoint(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
        if (f > 0xffff) {
          out[j++] = 0xd800 + ((f - 0x10000) >> 10);
          out[j++] = 0xdc00 + ((f - 0x10000) & 0x3ff);
        } else out[j++] = f;
        i++;
        continue;
      }
    }
    out[j++] = table[c];
  }
  return unitsToString(out, j);
}

/** `s` folded for a case-insensitive comparison (see the top of this file). */
export function foldCase(s: string): string {
  const l = s.toLowerCase();
  return WIDE.test(l) ? foldEach(s) : l;
}
