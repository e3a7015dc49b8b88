// SigmaHQ regression cases: every case matches at least min_match_count (or 1) of its events with
// sigma-native, and with windows-thor (log source conditions) on the same events.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileRule, getPreset, parseRule } from '../../src/sigma/index.js';
import { regressionCases, rulesRoot } from './corpus-helpers.js';

const cases = regressionCases();

for (const preset of ['sigma-native', 'windows-thor']) {
  test(`regression cases match with ${preset}`, () => {
    const failures: string[] = [];
    for (const c of cases) {
      const parsed = parseRule(readFileSync(join(rulesRoot, c.rule_path), 'utf8'));
      if (!parsed.ok) {
        failures.push(`${c.rule_path}: parse ${JSON.stringify(parsed)}`);
        continue;
      }
      const compiled = compileRule(parsed.rule, getPreset(preset));
      if (!compiled.ok) {
        failures.push(`${c.rule_path}: compile ${JSON.stringify(compiled.errors)}`);
        continue;
      }
      const n = c.events.filter((e) => compiled.matcher.match(e)).length;
      const want = c.min_match_count ?? 1;
      if (n < want) failures.push(`${c.rule_path}: ${n} of ${c.events.length} matched, want ${want}`);
      else if (n > 0) {
        const ex = compiled.matcher.explain(c.events.find((e) => compiled.matcher.match(e))!);
        assert.ok(ex.matched && ex.matchedConditions.length > 0, c.rule_path);
      }
    }
    assert.equal(cases.length, 101);
    assert.deepEqual(failures, []);
  });
}
