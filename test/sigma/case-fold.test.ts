// Case-insensitive matching of non-ASCII text: the fold (case-fold.ts) against its promises over every code
// point, the letter classes a regular expression's ignore-case flag uses (the reference semantics), and
// rules evaluated by the matcher and by the candidate index on values whose case is special.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldCase, foldCodePoint } from '../../src/sigma/case-fold.js';
import { RuleIndex } from '../../src/sigma/index.js';
import { compile } from './helpers.js';

test('the fold maps each character on its own, keeps lengths, is idempotent, and is toLowerCase below U+0130', () => {
  for (let cp = 0; cp < 0x30000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    const f = foldCodePoint(cp);
    assert.equal(String.fromCodePoint(f).length, c.length, `length of U+${cp.toString(16)}`);
    assert.equal(foldCodePoint(f), f, `idempotent on U+${cp.toString(16)}`);
    assert.equal(foldCase(c), String.fromCodePoint(f));
    if (cp < 0x130) assert.equal(f, c.toLowerCase().codePointAt(0), `U+${cp.toString(16)}`);
  }
  // Whole strings: character by character, whatever the neighbours (no final-sigma context).
  const s = 'ΟΔΟΣ İSTANBUL ſtraße Ǆ 𐐀 µ K';
  assert.equal(foldCase(s), [...s].map((c) => foldCase(c)).join(''));
  assert.equal(foldCase(s).length, s.length);
  assert.equal(foldCase('C:\\Windows\\System32\\CMD.EXE'), 'c:\\windows\\system32\\cmd.exe');
  // One string of every code unit (lone surrogates stay as they are) and of astral letters in pairs.
  const units = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c));
  const astral = ['\u{10400}', '\u{10428}', '\u{1E900}', '\u{1F600}', '\u{16E40}'];
  const all = [...units, ...astral, 'x\uD800', '\uDC00y'];
  const each = all.map((c) => (c.length === 1 && c >= '\uD800' && c <= '\uDFFF' ? c : [...c].map((x) => String.fromCodePoint(foldCodePoint(x.codePointAt(0) as number))).join('')));
  assert.equal(foldCase(all.join('')), each.join(''));
});

test('letters equal ignoring case are the classes of a regex ignore-case flag', () => {
  const same = [
    ['i', 'I', '\u0130', '\u0131'], // i, I, İ, dotless ı
    ['s', 'S', '\u017f'], // long s
    ['k', 'K', '\u212a'], // Kelvin sign
    ['\u03c3', '\u03c2', '\u03a3'], // σ, final ς, Σ
    ['\u00b5', '\u03bc', '\u039c'], // micro sign, μ, Μ
    ['\u03b8', '\u03d1', '\u0398'], // θ, ϑ
    ['\u00e5', '\u00c5', '\u212b'], // å, Å, Angstrom sign
    ['\u00df', '\u1e9e'], // ß, capital sharp s
    ['\u01c4', '\u01c5', '\u01c6'], // Ǆ, ǅ, ǆ
    // Lowercase letters whose uppercase is the same several characters (Python's re equates them too).
    ['\u0390', '\u1fd3'], // ΐ and ΐ: Ϊ́
    ['\u03b0', '\u1fe3'], // ΰ and ΰ: Ϋ́
    ['\ufb05', '\ufb06'], // the ligatures ﬅ and ﬆ: ST
  ];
  for (const cls of same) for (const c of cls) assert.equal(foldCase(c), foldCase(cls[0]), `${c} ~ ${cls[0]}`);
  // Different letters stay different: no multi-character folding (ß is not ss), no accent stripping.
  assert.notEqual(foldCase('\u00df'), foldCase('ss'));
  assert.notEqual(foldCase('\ufb06'), foldCase('s'));
  assert.notEqual(foldCase('\u00df'), foldCase('\ufb06'));
  assert.notEqual(foldCase('e'), foldCase('\u00e9'));
  assert.notEqual(foldCase('i'), foldCase('i\u0307'));
});

test('rules match special-case letters as one letter, in the matcher and through the candidate index', () => {
  const rules: Array<[string, string]> = [
    ['greek', "sel:\n  Name: 'ΟΔΟΣ'\ncondition: sel"],
    ['greek-contains', "sel:\n  Name|contains: 'σ ο'\ncondition: sel"],
    ['turkish', "sel:\n  City|startswith: 'ISTANBUL'\ncondition: sel"],
    ['one-char', "sel:\n  Code: 'A?B'\ncondition: sel"],
    ['long-s', "sel:\n  CommandLine|endswith: 'mimikatz.exe'\ncondition: sel"],
    ['keyword', "keywords:\n  - 'dıscovery'\ncondition: keywords"],
    ['cased', "sel:\n  Name|cased: 'ΟΔΟΣ'\ncondition: sel"],
    ['ligature', "sel:\n  Word|contains: 'a\ufb05b'\ncondition: sel"],
  ];
  const cases: Array<[Record<string, unknown>, string[]]> = [
    [{ Name: 'οδος' }, ['greek']],
    [{ Name: 'οδοσ' }, ['greek']],
    [{ Name: 'ΟΔΟΣ' }, ['greek', 'cased']],
    [{ Name: 'ΟΔΟΣ ΟΔΟΣ' }, ['greek-contains']], // the first Σ ends a word: ς as toLowerCase has it
    [{ City: 'İstanbul' }, ['turkish']],
    [{ City: 'ıstanbul Asia' }, ['turkish']],
    [{ City: 'istanbul' }, ['turkish']],
    [{ Code: 'aİb' }, ['one-char']], // İ is one character, as `?` requires
    [{ Code: 'a\u0130\u0130b' }, []],
    [{ CommandLine: 'C:\\tools\\MIMIKATZ.EXE' }, ['long-s']],
    [{ CommandLine: 'C:\\tools\\mimikatz.exe'.replace('s', '\u017f') }, ['long-s']],
    [{ CommandLine: 'C:\\tools\\mimi\u212aatz.exe' }, ['long-s']],
    [{ Message: 'Network DISCOVERY started' }, ['keyword']],
    [{ Message: 'network discovery' }, ['keyword']],
    [{ Message: 'NETWORK D\u0130SCOVERY' }, ['keyword']],
    [{ Name: 'oδoσ' }, []], // Latin o is not omicron
    [{ Word: 'x a\ufb06b' }, ['ligature']], // ﬅ and ﬆ are one letter ignoring case
    [{ Word: 'x astb' }, []],
  ];
  const index = new RuleIndex<string>();
  const matchers = rules.map(([key, detection]) => {
    const m = compile(detection);
    index.add(key, m);
    return [key, m] as const;
  });
  for (const [event, want] of cases) {
    const naive = matchers.filter(([, m]) => m.match(event)).map(([k]) => k);
    assert.deepEqual(naive.sort(), [...want].sort(), `matcher on ${JSON.stringify(event)}`);
    assert.deepEqual(index.match(event).sort(), naive.sort(), `index on ${JSON.stringify(event)}`);
  }
});
