// Required literals of regexes are sound: on corpus regexes and generated strings, whenever the regex
// matches a value, the lowercased value contains one of the literals; and the analysis finds literals
// where it obviously should.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileSafeRegex, RuleIndex } from '../../src/sigma/index.js';
import { foldCase } from '../../src/sigma/case-fold.js';
import { regexLiterals } from '../../src/sigma/index/regex-literals.js';
import { compile } from './helpers.js';
import { prng } from './index-helpers.js';
import { rulesRoot, yamlFiles } from './corpus-helpers.js';

test('literals found where they are certain, none where they are not', () => {
  const lit = (source: string, i = false): string[] | null => regexLiterals({ source, i, m: false, s: false });
  assert.deepEqual(lit('foo\\.exe'), ['foo.exe']);
  assert.deepEqual(lit('abc(d|e)fghi'), ['abcdfghi', 'abcefghi']);
  assert.equal(lit('x(?=abcd)efgh'), null); // refused: lookaround
  assert.deepEqual(lit('-(W|R)\\s?(\\s|"|\')'), null);
  assert.deepEqual(regexLiterals({ source: '-(W|R)\\s?(\\s|"|\')', i: false, m: false, s: false }, 1), ['-w', '-r']);
  assert.deepEqual(lit('ab(c|d)+e'), ['abc', 'abd']);
  assert.deepEqual(lit('ab(cd|e)?fgh'), ['fgh']);
  assert.deepEqual(lit('a(b\\|c)d'), null);
  assert.deepEqual(lit('(?:abc|abd)x'), ['abcx', 'abdx']);
  assert.deepEqual(lit('(sk|ab)cd', true), ['skcd', 'abcd']); // K and ſ fold to k and s
  assert.deepEqual(lit('abcd?e'), ['abc']);
  assert.deepEqual(lit('ab+cdef'), ['cdef']);
  assert.deepEqual(lit('Mimi|Katz'), ['mimi', 'katz']);
  assert.deepEqual(lit('(?i)invoke-mimi'), ['invoke-mimi']);
  assert.equal(lit('mimi|x'), null);
  assert.equal(lit('\\d+\\s[a-z]'), null);
  assert.equal(lit('a.b.c'), null);
  assert.deepEqual(lit('ask', true), ['ask']);
  assert.equal(lit('ab\u00e9cd', true), null);
  // Escapes are read as Python reads them: `\x41` is A, never the text "41".
  assert.deepEqual(lit('\\x41BCD'), ['abcd']);
  assert.deepEqual(lit('\\u0041bcd'), ['abcd']);
  assert.deepEqual(lit('\\U00000041bcd'), ['abcd']);
  assert.deepEqual(lit('\\101xyz'), ['axyz']);
  assert.deepEqual(lit('\\x414243'), ['a4243']);
  assert.equal(lit('\\x41'), null);
  assert.equal(lit('z|\\x414243'), null);
  // Comments and verbose-mode whitespace are no text; Python refuses RE2's own escapes, so no literals.
  assert.deepEqual(lit('ab(?#comment)cd'), ['abcd']);
  assert.deepEqual(lit('(?x) ab  cd # note\n'), ['abcd']);
  assert.deepEqual(lit('(?x)ab\\ cd'), ['ab cd']);
  for (const refused of ['\\x{41}bcd', '\\p{Lu}abc', '\\pLabc', '\\k<n>abc', '\\Qa.bc\\Efgh']) assert.equal(lit(refused), null, refused);
  // Python's `{,n}` repeats from zero: the character before it is optional, and the braces are no text.
  assert.equal(lit('ab{,2}cd'), null);
  assert.deepEqual(lit('abc{,}dxyz'), ['dxyz']);
  assert.deepEqual(lit('abc{x}'), ['abc{x}']);
  // `[[:alpha:]]` is a set then a literal `]`.
  assert.deepEqual(lit('[[:alpha:]]abc'), [']abc']);
});

test('whenever a corpus regex matches, the value contains one of its literals (generated values)', () => {
  const sources = new Set<string>();
  for (const f of yamlFiles(`${rulesRoot}/rules`)) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\|re(?:\|i)?:\s*'((?:[^']|'')*)'/g)) sources.add(m[1].replace(/''/g, "'"));
  }
  assert.ok(sources.size > 50, `${sources.size} regexes`);
  const rnd = prng(11);
  let checked = 0;
  let matched = 0;
  for (const source of sources) {
    for (const i of [false, true]) {
      const lits = regexLiterals({ source, i, m: false, s: false });
      const re = compileSafeRegex({ source, i, m: false, s: false });
      if (!lits || !re.ok) continue;
      checked++;
      // Values built from the regex's own literal pieces, case-flipped and shuffled, plus K/ſ look-alikes.
      const pieces = source.split(/[\\()[\]|?*+.{}^$]+/).filter(Boolean);
      for (let n = 0; n < 60; n++) {
        let v = '';
        for (let k = Math.floor(rnd() * 6); k >= 0; k--) {
          let p = pieces[Math.floor(rnd() * pieces.length)] ?? 'x';
          if (rnd() < 0.3) p = p.toUpperCase();
          if (rnd() < 0.1) p = p.replace(/k/gi, '\u212a').replace(/s/gi, '\u017f');
          v += (rnd() < 0.5 ? ' ' : '') + p;
        }
        if (re.regex.test(v)) {
          matched++;
          const lower = foldCase(v);
          assert.ok(lits.some((l) => lower.includes(l)), `${source} (i=${i}) matched ${JSON.stringify(v)} but has none of ${JSON.stringify(lits)}`);
        }
      }
    }
  }
  assert.ok(checked > 40 && matched > 20, `checked ${checked}, matched ${matched}`);
});

test('the candidate index finds values matched through escapes (`\\x41`, `\\101`, `\\U00000041`, `\\u0041`)', () => {
  const index = new RuleIndex<string>();
  const sources = ['\\x41', 'z|\\x41', 'q*\\x41', '\\101', '[A-Z]', '\\u0041bc', '\\U00000041\\x42c', '\\x41(?#c)bc'];
  const rules = sources.map((source, k) => {
    const m = compile(`sel:\n  F|re: '${source}'\ncondition: sel`);
    index.add(String(k), m);
    return m;
  });
  for (const F of ['A', 'xAy', 'Abc', 'ABc', 'a', '41', 'x41A']) {
    const want = rules.map((r, k) => (r.match({ F }) ? String(k) : null)).filter((k) => k !== null);
    assert.deepEqual(index.match({ F }).sort(), want.sort(), F);
  }
  assert.equal(rules[0].match({ F: 'A' }), true);
  assert.equal(rules[5].match({ F: 'Abc' }), true);
});
