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

/** Folds of the characters met so far, for the Basic Multilingual Plane (so at most 65,536 entries). */
const folded = new Map<number, string>();

/** Character by character (the slow path: some lowercase character at or above U+0130). */
function foldEach(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : s[i];
      continue;
    }
    const cp = s.codePointAt(i) as number;
    let f = folded.get(cp);
    if (f === undefined) {
      f = String.fromCodePoint(foldCodePoint(cp));
      if (cp <= 0xffff) folded.set(cp, f);
    }
    out += f;
    if (cp > 0xffff) i++;
  }
  return out;
}

/** `s` folded for a case-insensitive comparison (see the top of this file). */
export function foldCase(s: string): string {
  const l = s.toLowerCase();
  return WIDE.test(l) ? foldEach(s) : l;
}
