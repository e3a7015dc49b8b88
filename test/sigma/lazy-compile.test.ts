// Compilation is checked eagerly and built lazily: compileIR reports the same errors as building the
// closures would (every refused regex, in rule order, keyword searches included) before any event is seen,
// and a compiled rule matches and explains the same before and after its first evaluation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, getPreset, parseRule } from '../../src/sigma/index.js';

function compile(detection: string): ReturnType<typeof compileRule> {
  const p = parseRule(`title: t\nlogsource: {product: windows}\nlevel: low\ndetection:\n${detection}`);
  assert.ok(p.ok, JSON.stringify(p));
  return compileRule(p.rule, getPreset('sigma-native'));
}

test('refused regexes are reported at compile time, in order, with their fields', () => {
  const c = compile("  a:\n    CommandLine|re: '(?=a)b'\n  b:\n    Image: x\n  k:\n    '|re': '(?=c)d'\n  c:\n    Other|re: 'ok'\n  condition: a or (b and k) or c\n");
  assert.equal(c.ok, false);
  if (c.ok) return;
  assert.deepEqual(
    c.errors.map((e) => e.field),
    ['detection (CommandLine)', 'detection (keywords)'],
  );
  for (const e of c.errors) assert.match(e.message, /lookaround/);
});

test('a lazily built rule matches and explains like an eagerly used one', () => {
  const c = compile("  s:\n    Image|endswith: '\\\\evil.exe'\n    CommandLine|contains|all: ['-a', '-b']\n  condition: s\n");
  assert.ok(c.ok);
  const hit = { Image: 'C:\\x\\EVIL.exe', CommandLine: 'run -b -a' };
  const miss = { Image: 'C:\\x\\good.exe', CommandLine: 'run -b -a' };
  const e = c.matcher.explain(hit); // first use goes through explain
  assert.equal(e.matched, true);
  assert.deepEqual(e.matchedConditions, [{ s: { Image: hit.Image, CommandLine: hit.CommandLine } }]);
  assert.equal(c.matcher.match(hit), true);
  assert.equal(c.matcher.match(miss), false);
  const m = c.matcher.match;
  assert.equal(m(miss), false); // a detached reference keeps working
  assert.equal(m(hit), true);
});
