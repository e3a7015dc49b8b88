// Regex safety: catastrophic patterns finish fast (also with i), inline flags, unsafe constructs refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, problems } from './helpers.js';
import { compileSafeRegex } from '../../src/sigma/index.js';

/** Whether the regex (which must compile) finds a match in `value`. */
function regexTest(source: string, value: string, flags: { i?: boolean; m?: boolean } = {}): boolean {
  const r = compileSafeRegex({ source, i: flags.i ?? false, m: flags.m ?? false, s: false });
  assert.ok(r.ok, source);
  return r.ok && r.regex.test(value);
}

test('(a+)+$ on a*40+! finishes fast, with and without |i', () => {
  const input = { F: 'a'.repeat(40) + '!' };
  for (const key of ['F|re', 'F|re|i']) {
    const m = compile(`sel:\n    ${key}: '(a+)+$'\ncondition: sel`);
    const t0 = performance.now();
    assert.equal(m.match(input), false);
    assert.ok(performance.now() - t0 < 200, key);
  }
  const long = { F: 'a'.repeat(100_000) + '!' };
  const m = compile(`sel:\n    F|re: '(?i)^(a|aa)+$'\ncondition: sel`);
  const t0 = performance.now();
  assert.equal(m.match(long), false);
  assert.ok(performance.now() - t0 < 2000);
});

test('(.*a){12} and nested quantifiers stay linear', () => {
  const m = compile(`sel:\n    F|re: '(.*a){12}x'\ncondition: sel`);
  const t0 = performance.now();
  assert.equal(m.match({ F: 'a'.repeat(5000) }), false);
  assert.ok(performance.now() - t0 < 1000);
});

test('lookaround and backreferences are refused with a clear validation error', () => {
  for (const re of ['(?<!x)a', '(?=a)b', '(a)\\1']) {
    const errs = problems(`sel:\n    F|re: '${re}'\ncondition: sel`);
    assert.equal(errs.length, 1, re);
    assert.match(errs[0].message, /linear time|cannot be compiled safely/);
  }
});

test('repeat counts beyond the linear-time matcher limit of 1000 are refused with the reason', () => {
  assert.ok(regexTest('^a{1000}$', 'a'.repeat(1000)));
  for (const [re, count] of [['a{1001}', '{1001}'], ['a{2,1001}', '{2,1001}'], ['(?:a{100}){11}', '{11}']]) {
    const r = compileSafeRegex({ source: re, i: false, m: false, s: false });
    assert.deepEqual(r, { ok: false, message: `regex repeat ${count} is too large: at most 1000 repetitions are supported (nested repeats multiply)` }, re);
  }
});

test('inline (?i) / (?s) flags become flags; (?x) drops whitespace and comments', () => {
  const r = compileSafeRegex({ source: '(?is)a.b', i: false, m: false, s: false });
  assert.ok(r.ok && r.regex.test('A\nB'));
  const x = compileSafeRegex({ source: '(?x)^a b # note', i: false, m: false, s: false });
  assert.ok(x.ok && x.regex.test('ab') && !x.regex.test('a b'));
});

test('per-rule work limits: windash positions and total value tests', async () => {
  const { problems } = await import('./helpers.js');
  assert.match(problems(`sel:\n    F|windash: '-a -b -c -d -e -f -g'\ncondition: sel`)[0].message, /too many dash positions/);
  const many = Array.from({ length: 60_000 }, (_, i) => `v${i}`).join(',');
  assert.match(problems(`sel:\n    F: [${many}]\ncondition: sel`)[0].message, /limit 50000/);
});

test('patterns read as Python reads them: $ before a final newline, \\Z, \\uXXXX; classes and escapes kept', () => {
  const re = (source: string, value: string, m = false): boolean => regexTest(source, value, { m });
  assert.equal(re('a$', 'a\n'), true);
  assert.equal(re('a$', 'a\nb'), false);
  assert.equal(re('a$', 'a\r\n'), false);
  assert.equal(re('^a$', 'b\na\n', true), true);
  assert.equal(re('a\\Z', 'a\n'), false);
  assert.equal(re('a\\Z', 'xa'), true);
  assert.equal(re('[$]', '$'), true);
  assert.equal(re('[^]$]x', '$x'), false);
  assert.equal(re('\\$', 'x$'), true);
  assert.equal(re('\\u0041\\U0001F600', 'A😀'), true);
  assert.equal(re('\\\\u0041', '\\u0041'), true);
  assert.equal(compile("sel:\n  F|re: 'exe$'\ncondition: sel").match({ F: 'cmd.exe\n' }), true);
  // `{,n}` and `{,}` repeat from zero; a brace that starts no repetition is text.
  for (const [source, value, want] of [['^a{,2}b$', 'b', true], ['^a{,2}b$', 'aab', true], ['^a{,2}b$', 'aaab', false], ['^xa{,}$', 'xaaaa', true], ['^xa{,}$', 'xb', false], ['^a{,2$', 'a{,2', true], ['^a{ ,2}$', 'a{ ,2}', true]] as const) {
    assert.equal(re(source, value), want, `${source} ${value}`);
  }
  // No POSIX classes: `[[:alpha:]]` is the set of `[`, `:`, `a`, `l`, `p`, `h` followed by a `]`.
  assert.equal(re('^[[:alpha:]]$', 'a'), false);
  assert.equal(re('^[[:alpha:]]$', ':]'), true);
  assert.equal(re('^[[:alpha:]]$', '[]'), true);
});

test('\\d, \\w and \\s are Unicode classes as in Python; \\b stays ASCII', () => {
  const re = (source: string, value: string): boolean => regexTest(source, value);
  assert.equal(re('^\\w+$', 'über_ναι٣'), true);
  assert.equal(re('^\\W$', 'é'), false);
  assert.equal(re('^\\d+$', '٣42'), true);
  assert.equal(re('^\\D$', '٣'), false);
  assert.equal(re('^\\s+$', ' \t\u00a0\u2003\u3000\x1c\x85'), true);
  assert.equal(re('^\\S$', '\u00a0'), false);
  assert.equal(re('^[\\w-]+$', 'naïve-ü'), true);
  assert.equal(re('^[\\d.]+$', '١.٢'), true);
  assert.equal(re('^\\w$', '-'), false);
  assert.equal(re('\\bcmd\\b', 'x cmd y'), true);
  // Ignoring case does not fold a class: U+0345 (a combining mark RE2 folds with the letter ι) is no word
  // character, with i as without.
  assert.equal(regexTest('^\\W$', '\u0345', { i: true }), true);
  assert.equal(regexTest('^\\w$', '\u0345', { i: true }), false);
  assert.equal(regexTest('^\\w+$', 'ΙΣ', { i: true }), true);
  // In a rule, with i: a letter class is still a class.
  assert.equal(compile("sel:\n  F|re|i: '^\\w+\\.EXE$'\ncondition: sel").match({ F: 'Überwachung.exe' }), true);
});

test('ignoring case, ı and İ are i as in Python (in the pattern, in ranges and in the value)', () => {
  const re = (source: string, value: string, i = true): boolean => regexTest(source, value, { i });
  for (const [source, value] of [['^i$', 'ı'], ['^i$', 'İ'], ['^[a-z]+$', 'İstanbul'], ['^ı$', 'I'], ['^İ$', 'i'], ['^[i]$', 'ı']]) assert.equal(re(source, value), true, `${source} ${value}`);
  assert.equal(re('^[^i]$', 'ı'), false);
  assert.equal(re('^i$', 'ı', false), false); // case-sensitive: different letters
  assert.equal(compile("sel:\n  F|re: '(?i)^mimikatz$'\ncondition: sel").match({ F: 'MİMİKATZ' }), true);
});
