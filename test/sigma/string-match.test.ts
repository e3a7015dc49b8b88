// Case-insensitive equals/prefix/suffix fold ASCII in place instead of folding the whole value: checked
// against the definition (foldCase of the whole value, case-fold.ts) on seeded random strings built from
// characters whose case is special (U+0130 and dotless i, KELVIN SIGN folds to ASCII, sigma and final
// sigma, astral letters, German sharp s, long s). Grouped prefix/suffix sets agree with testing each
// literal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldCase } from '../../src/sigma/case-fold.js';
import { AffixSet } from '../../src/sigma/compile/affix-set.js';
import { compileString } from '../../src/sigma/compile/string-match.js';
import { ANY, ONE } from '../../src/sigma/detection/sigma-string.js';
import type { StrPart } from '../../src/sigma/ir.js';
import { prng } from './index-helpers.js';

const ALPHABET = ['a', 'B', 'k', 'K', 'i', 'I', 's', '\\', '.', ' ', '\u0130', '\u0307', '\u212a', '\u03a3', '\u03c3', '\u03c2', '\u00df', '\u1e9e', '\u{10400}', '\u{10428}', 'E', 'x', '\u0131', '\u017f'];

function randomText(rnd: () => number, max: number): string {
  let s = '';
  const n = Math.floor(rnd() * (max + 1));
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
  return s;
}

test('case-insensitive equals/startswith/endswith agree with folding the whole value', () => {
  const rnd = prng(7);
  const shapes: Array<[string, (lit: string) => StrPart[], (value: string, lit: string) => boolean]> = [
    ['eq', (lit) => [lit], (v, lit) => v === lit],
    ['prefix', (lit) => [lit, ANY], (v, lit) => v.startsWith(lit)],
    ['suffix', (lit) => [ANY, lit], (v, lit) => v.endsWith(lit)],
  ];
  for (let round = 0; round < 4000; round++) {
    const lit = randomText(rnd, 4);
    // Values often derived from the literal (so that matches happen), else random.
    const base = rnd() < 0.5 ? lit : randomText(rnd, 3);
    const value = rnd() < 0.5 ? randomText(rnd, 2) + base + randomText(rnd, 2) : base;
    for (const [name, parts, want] of shapes) {
      if (lit === '' && name !== 'eq') continue;
      const testFn = compileString(parts(lit), false);
      const expected = want(foldCase(value), foldCase(lit));
      assert.equal(testFn(value), expected, `${name} ${JSON.stringify(lit)} on ${JSON.stringify(value)}`);
      assert.equal(compileString(parts(lit), true)(value), want(value, lit), `cased ${name}`);
    }
  }
});

test('folding in place: the characters whose case is special', () => {
  const eq = (lit: string): ((s: string) => boolean) => compileString([lit], false);
  assert.equal(eq('k')('\u212a'), true); // KELVIN SIGN lowercases to ASCII k
  assert.equal(eq('i')('\u0130'), true); // U+0130 is one letter with i (toLowerCase gives two characters)
  assert.equal(eq('i\u0307')('\u0130'), false);
  assert.equal(eq('\u03bf\u03c3')('\u039f\u03a3'), true); // a final capital sigma is sigma
  assert.equal(eq('ab')('AB'), true);
  assert.equal(eq('ab')('ABC'), false);
  assert.equal(compileString([ANY, '.exe'], false)('C:\\X\\A.EXE'), true);
  assert.equal(compileString([ANY, 'k.exe'], false)('\u212a.EXE'), true);
  assert.equal(compileString(['c:\\', ANY], false)('C:\\Windows'), true);
  assert.equal(compileString(['c:\\windows', ANY], false)('C:\\'), false);
  assert.equal(compileString([ANY, 'xi'], false)('x\u0130'), true);
  assert.equal(compileString(['\u0130', ANY], false)('I\u0131a'), true); // İ, I, i and ı are one letter
});

test('prefix and suffix sets agree with testing every literal', () => {
  const rnd = prng(21);
  for (let round = 0; round < 400; round++) {
    const lits = Array.from({ length: Math.floor(rnd() * 34) }, () => randomText(rnd, 12));
    const prefixes = new AffixSet(lits, false);
    const suffixes = new AffixSet(lits, true);
    for (let t = 0; t < 30; t++) {
      // Values often start or end with one of the literals.
      const lit = lits[Math.floor(rnd() * lits.length)] ?? '';
      const s = t % 3 === 0 ? randomText(rnd, 16) : t % 3 === 1 ? lit + randomText(rnd, 6) : randomText(rnd, 6) + lit;
      assert.equal(prefixes.test(s), lits.some((l) => s.startsWith(l)), `${JSON.stringify(lits)} prefix of ${s}`);
      assert.equal(suffixes.test(s), lits.some((l) => s.endsWith(l)), `${JSON.stringify(lits)} suffix of ${s}`);
    }
  }
});

test('`?` is one character, also outside the Basic Multilingual Plane (a surrogate pair)', () => {
  const glob = (parts: StrPart[], cased = false): ((s: string) => boolean) => compileString(parts, cased);
  assert.equal(glob(['a', ONE, 'b'])('a😀b'), true);
  assert.equal(glob(['a', ONE, 'b'], true)('a😀b'), true);
  assert.equal(glob(['a', ONE, ONE, 'b'])('a😀b'), false);
  assert.equal(glob([ONE, ONE])('😀'), false);
  assert.equal(glob([ANY, ONE, ONE])('😀'), false);
  assert.equal(glob([ANY, ONE, ONE])('x😀'), true);
  assert.equal(glob([ANY, ONE, 'b'])('😀😀b'), true);
  assert.equal(glob(['x', ONE])('x𝐀'), true);
  assert.equal(glob([ANY, '😀', ONE])('a😀😀'), true);
});

test('wildcard patterns agree with an anchored Unicode regex (random patterns and texts, astral characters)', () => {
  const rnd = prng(31);
  const chars = ['a', 'b', '😀', '𝐀', 'é'];
  const pick = (): string => chars[Math.floor(rnd() * chars.length)];
  const esc = (c: string): string => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (let round = 0; round < 3000; round++) {
    const parts: StrPart[] = [];
    let source = '';
    for (let k = Math.floor(rnd() * 5); k >= 0; k--) {
      const r = rnd();
      const part: StrPart = r < 0.25 ? ANY : r < 0.5 ? ONE : pick();
      parts.push(part);
      source += part === ANY ? '[\\s\\S]*' : part === ONE ? '[\\s\\S]' : esc(part as string);
    }
    const re = new RegExp(`^${source}$`, 'u');
    const text = Array.from({ length: Math.floor(rnd() * 5) }, pick).join('');
    assert.equal(compileString(parts, true)(text), re.test(text), `${source} on ${text}`);
  }
});

test('long values (beyond the small fold cache) are folded right, one after another', () => {
  const contains = compileString([ANY, ...'straße'.split(''), ANY] as StrPart[], false);
  const ends = compileString([ANY, ...'–x'.split('')] as StrPart[], false);
  const pad = 'İ'.repeat(5000);
  const a = `${pad}STRASSE STRAẞE ${pad}–X`;
  const b = `${pad}strasse strase ${pad}–y`;
  const seq = [a, b, a, a.slice(0, -1) + 'Y', a];
  assert.deepEqual(seq.map((v) => contains(v)), [true, false, true, true, true]);
  assert.deepEqual(seq.map((v) => ends(v)), [true, false, true, false, true]);
});
