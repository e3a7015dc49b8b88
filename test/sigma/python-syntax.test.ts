// `re` values are read with Python's syntax (python-syntax.ts): what Python 3.11 refuses is refused with its
// message, what it reads is matched as it matches it, and what cannot run in linear time is refused with the
// reason. Expected results were taken from CPython 3.11's `re`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSafeRegex } from '../../src/sigma/index.js';
import { canonicalRegex } from '../../src/sigma/regex/python-syntax.js';
import { regexLiterals } from '../../src/sigma/index/regex-literals.js';
import { toLuceneRegex } from '../../src/sigma/opensearch/lucene-regex.js';

const spec = (source: string) => ({ source, i: false, m: false, s: false });

function results(source: string, values: string[]): boolean[] {
  const r = compileSafeRegex(spec(source));
  assert.ok(r.ok, `${source}: ${r.ok ? '' : r.message}`);
  return values.map((v) => r.regex.test(v));
}

test('Python syntax RE2 lacks is read as Python reads it', () => {
  const cases: Array<[string, string[], boolean[]]> = [
    ['a(?#note)b', ['ab', 'a(?#note)b'], [true, false]],
    ['(?x) a b # c\n c', ['abc', 'a b c'], [true, false]],
    ['(?x)a\\ b[ ]c', ['a b c', 'abc'], [true, false]],
    ['(?x:a b)c d', ['abc d', 'abcd'], [true, false]],
    ['[\\b]', ['\b', 'b'], [true, false]],
    ['\\U0001F600+', ['😀😀'], [true]],
    ['\\0\\101\\x41\\u0041', ['\x00AAA'], [true]],
    ['\\é', ['é'], [true]],
    ['(?u)\\w', ['é'], [true]],
    ['(?P<name>ab)c', ['abc'], [true]],
    ['(?i:a)B', ['AB', 'Ab'], [true, false]],
    ['(?-i:a)b', ['ab', 'Ab', 'aB'], [true, false, false]],
    ['a{}', ['a{}'], [true]],
    ['[]a]', [']', 'a'], [true, true]],
    ['[^]a]', [']', 'b'], [false, true]],
    ['\\a\\v', ['\x07\x0b'], [true]],
    // \W and \S inside brackets are Unicode classes too.
    ['[a\\W]', ['a', 'é', ' '], [true, false, true]],
    ['[\\S]', [' ', 'é'], [false, true]],
  ];
  for (const [source, values, want] of cases) assert.deepEqual(results(source, values), want, source);
});

test('what Python refuses is refused, with its message', () => {
  const cases: Array<[string, string]> = [
    ['\\z', 'bad escape \\z'],
    ['\\pL', 'bad escape \\p'],
    ['\\Q.\\E', 'bad escape \\Q'],
    ['\\x{41}', 'incomplete escape \\x'],
    ['\\x4', 'incomplete escape \\x4'],
    ['(?U)a', 'unknown extension ?U'],
    ['(?z)', 'unknown extension ?z'],
    ['a(?i)b', 'global flags not at the start of the expression'],
    ['\\12', 'invalid group reference 12'],
    ['\\477', 'octal escape value \\477 outside of range 0-0o377'],
    ['^*', 'nothing to repeat'],
    ['*a', 'nothing to repeat'],
    ['a|*b', 'nothing to repeat'],
    ['\\b+', 'nothing to repeat'],
    ['a**', 'multiple repeat'],
    ['(?<n>a)', 'unknown extension ?<n'],
    ['a{2,1}', 'min repeat greater than max repeat'],
    ['[z-a]', 'bad character range z-a'],
    ['[\\w-z]', 'bad character range \\w-z'],
    ['(?L)a', "bad inline flags: cannot use 'L' flag with a str pattern"],
    ['(?au)a', "bad inline flags: flags 'a', 'u' and 'L' are incompatible"],
    ['(?-i)a', 'missing :'],
    ['[a', 'unterminated character set'],
    ['(a', 'missing ), unterminated subpattern'],
    ['a)', 'unbalanced parenthesis'],
    ['\\', 'bad escape (end of pattern)'],
    ['(?P<1>a)', "bad character in group name '1'"],
    ['(?P<n>a)(?P<n>b)', "redefinition of group name 'n'"],
    ['(?', 'unexpected end of pattern'],
    ['[\\A]', 'bad escape \\A'],
    ['[\\8]', 'bad escape \\8'],
    ['\\U00110000', 'bad escape \\U00110000'],
    ['(?i', 'missing -, : or )'],
    ['(?#abc', 'missing ), unterminated comment'],
    ['😀\\', 'bad escape (end of pattern)'],
  ];
  for (const [source, message] of cases) {
    const r = compileSafeRegex(spec(source));
    assert.equal(r.ok, false, source);
    if (!r.ok) assert.ok(r.message.startsWith(`regex is invalid: ${message}`), `${source}: ${r.message}`);
  }
});

test('groups nested beyond 100 levels are refused with the reason, never a stack overflow', () => {
  assert.deepEqual(results(`${'('.repeat(100)}a${')'.repeat(100)}`, ['a', 'b']), [true, false]);
  for (const source of [`${'('.repeat(101)}a${')'.repeat(101)}`, `${'(?:'.repeat(5000)}a${')'.repeat(5000)}`, `${'(?i:'.repeat(3000)}a${')'.repeat(3000)}`, `x${'('.repeat(20000)}`]) {
    const r = canonicalRegex(spec(source));
    assert.ok(!r.ok && /^regex is invalid: more than 100 nested groups at position \d+$/.test(r.message), `${source.slice(0, 12)}: ${JSON.stringify(r)}`);
  }
});

test('what Python reads but a linear-time automaton cannot run is refused with the reason', () => {
  const cases: Array<[string, RegExp]> = [
    ['(?=a)', /lookaround assertions are refused: it cannot be matched in guaranteed linear time/],
    ['(?<!a)b', /lookaround/],
    ['(a)\\1', /backreferences are refused/],
    ['(?P<n>a)(?P=n)', /backreferences are refused/],
    ['(a)?(?(1)b|c)', /conditional groups are refused/],
    ['(?>a)', /atomic groups are refused/],
    ['a*+', /possessive repeats are refused/],
    ['a{1,2}+', /possessive repeats are refused/],
    ['\\N{LATIN SMALL LETTER A}', /named Unicode characters/],
    ['(?a)\\w', /the ASCII flag/],
    ['(?a:\\w)', /the ASCII flag/],
    ['(?m:^a)', /the m flag applies to the whole regex/],
    ['[^a\\W]', /a negated class holding \\W cannot be matched/],
  ];
  for (const [source, message] of cases) {
    const r = compileSafeRegex(spec(source));
    assert.equal(r.ok, false, source);
    if (!r.ok) assert.match(r.message, message, source);
  }
});

test('the canonical spelling moves global flags into the spec and spells characters plainly', () => {
  const c = canonicalRegex({ source: '(?i)(?s)(?x) a\\tb # c\n[\\b-\\x0c]\\é(?P<n>x)', i: false, m: false, s: false });
  assert.deepEqual(c, { ok: true, spec: { source: 'a\\x09b[\\x08-\\x0c]é(?:x)', i: true, m: false, s: true } });
  assert.deepEqual(canonicalRegex(spec('a\\{b\\}[\\]\\-^]')), { ok: true, spec: spec('a\\{b\\}[\\]\\-\\^]') });
  // The index and the Lucene translation read the same canonical pattern as the matcher.
  assert.deepEqual(regexLiterals(spec('(?x) inv oke (?#x)-mimi')), ['invoke-mimi']);
  assert.equal(regexLiterals(spec('a(?i)bcdef')), null);
  const lucene = toLuceneRegex('(?x) ^a b c $', { i: false, m: false, s: false });
  assert.deepEqual(lucene, { ok: true, source: 'abc\n?', caseInsensitive: false });
  assert.equal(toLuceneRegex('\\z', { i: false, m: false, s: false }).ok, false);
});
