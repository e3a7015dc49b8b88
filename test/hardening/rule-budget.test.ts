// The engine's per-rule work limits (src/sigma/compile/rule-budget.ts): what counts toward a rule's
// matching cost, that SigmaHQ-shaped rules stay far inside, and that a rule over a limit is refused as
// such (`overLimit`) without compiling its regexes for matching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, parseRule, ruleCost, type CompiledRule } from '../../src/sigma/index.js';

function compile(selection: string): ReturnType<typeof compileRule> {
  const parsed = parseRule(`title: t\nlogsource: {product: windows}\ndetection:\n  selection:\n${selection}\n  condition: selection\nlevel: low\n`);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return compileRule(parsed.rule);
}
const list = (key: string, values: string[]) => `    ${key}:\n${values.map((v) => `      - '${v}'`).join('\n')}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
function matcherOf(result: ReturnType<typeof compileRule>): CompiledRule {
  assert.ok(result.ok, JSON.stringify(result));
  return result.matcher;
}

test('matching cost: a regex its program size, a wildcard pattern its length, a substring 1, a large case-insensitive substring list 1 in all', () => {
  const regex = ruleCost(matcherOf(compile(list('CommandLine|re', ['ab+c']))).ir);
  assert.equal(regex.regexes, 1);
  assert.ok(regex.matchCost > 1 && regex.matchCost < 20, String(regex.matchCost));
  assert.deepEqual(ruleCost(matcherOf(compile(list('CommandLine', ['*a*bc*']))).ir), { regexes: 0, wildcards: 1, matchCost: 6, partial: false });
  assert.equal(ruleCost(matcherOf(compile(list('CommandLine|contains', ['one', 'two']))).ir).matchCost, 2);
  const many = ruleCost(matcherOf(compile(list('CommandLine|contains', range(5000).map((i) => `needle-${i}`)))).ir);
  assert.equal(many.matchCost, 1);
  assert.equal(ruleCost(matcherOf(compile(list('Image', range(5000).map((i) => `exact-${i}.exe`)))).ir).matchCost, 0);
});

test('over a limit: refused with overLimit and one error naming the limit', () => {
  const regexes = compile(list('CommandLine|re', range(201).map((i) => `[a-z]{999}${i}`)));
  assert.equal(regexes.ok, false);
  assert.ok(!regexes.ok && regexes.overLimit);
  assert.deepEqual(!regexes.ok && regexes.errors, [{ field: 'detection', message: 'the rule has 201 regular expressions (limit 200 per rule)' }]);
  const cost = compile(list('CommandLine|re', range(11).map((i) => `(.{1000})x${i}`)));
  assert.ok(!cost.ok && cost.overLimit);
  assert.match(!cost.ok ? cost.errors[0].message : '', /^the rule's matching cost is 10,0\d\d or more \(limit 10,000 per rule;/);
  // An unsafe regex is still an ordinary error, not a limit.
  const unsafe = compile(list('CommandLine|re', ['(?=x)y']));
  assert.ok(!unsafe.ok && !unsafe.overLimit);
});
