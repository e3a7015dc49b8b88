// Every SigmaHQ rule in rules* loads and compiles (sigma-native and windows-thor); deprecated/ and
// unsupported/ files load or are refused with a clear error, never a crash; spec examples parse.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildPipeline, compileRule, getPreset, parseRules } from '../../src/sigma/index.js';
import { corpus, rulesRoot, yamlFiles } from './corpus-helpers.js';

/** Rules that genuinely cannot be supported, with the reason. Empty: every active rule compiles. */
const ALLOWLIST: Record<string, string> = {};

const activeDirs = readdirSync(rulesRoot).filter((d) => d.startsWith('rules'));

test('every rule in rules* loads and compiles', () => {
  const native = getPreset('sigma-native')!;
  const thor = getPreset('windows-thor')!;
  // rules-placeholder needs values for %placeholders%; without them the engine must refuse (spec), so
  // compile those with a pipeline that treats unresolved placeholders as wildcards.
  const wildcard = buildPipeline({ defaultMapping: 'identity', fieldMappings: [], preset: 'windows-thor', unresolvedPlaceholders: 'wildcard' });
  const failures: string[] = [];
  let count = 0;
  for (const dir of activeDirs) {
    for (const file of yamlFiles(join(rulesRoot, dir))) {
      const rel = relative(rulesRoot, file);
      if (ALLOWLIST[rel]) continue;
      for (const r of parseRules(readFileSync(file, 'utf8'))) {
        count++;
        if (!r.ok) {
          failures.push(`${rel}: ${JSON.stringify(r.kind === 'yaml' ? r.message : r.errors)}`);
          continue;
        }
        const usesPlaceholders = /\|expand/.test(readFileSync(file, 'utf8'));
        for (const p of usesPlaceholders ? [wildcard] : [native, thor]) {
          const c = compileRule(r.rule, p);
          if (!c.ok) failures.push(`${rel} (${p.name}): ${JSON.stringify(c.errors)}`);
        }
      }
    }
  }
  assert.ok(count > 3700, `only ${count} rules found`);
  assert.deepEqual(failures, []);
});

test('placeholder rules are refused without placeholder values', () => {
  const file = yamlFiles(join(rulesRoot, 'rules-placeholder'))[0];
  const [r] = parseRules(readFileSync(file, 'utf8'));
  assert.ok(r.ok);
  const c = compileRule(r.rule, getPreset('sigma-native'));
  assert.equal(c.ok, false);
  if (!c.ok) assert.match(c.errors[0].message, /placeholder %.+% has no values/);
});

test('deprecated/ and unsupported/ load or are refused clearly', () => {
  for (const dir of ['deprecated', 'unsupported', 'other']) {
    for (const file of yamlFiles(join(rulesRoot, dir))) {
      for (const r of parseRules(readFileSync(file, 'utf8'))) {
        if (r.ok) {
          const c = compileRule(r.rule, getPreset('windows-thor'));
          if (!c.ok) assert.ok(c.errors.every((e) => e.message.length > 10), file);
        } else if (r.kind === 'yaml') assert.ok(r.message.length > 0);
        else assert.ok(r.errors.length > 0 && r.errors.every((e) => e.message.length > 10), file);
      }
    }
  }
});

test('deprecated count() aggregation is refused with a pointer to correlations', () => {
  const [r] = parseRules(readFileSync(join(rulesRoot, 'deprecated/other/generic_brute_force.yml'), 'utf8'));
  assert.equal(r.ok, false);
  if (!r.ok && r.kind === 'validation') {
    assert.equal(r.errors[0].field, 'detection.condition');
    assert.match(r.errors[0].message, /correlation/);
  }
});

test('spec-examples: correlation, filter and rule examples parse', () => {
  const base = join(corpus, 'spec-examples/schema');
  for (const kind of ['correlation', 'filter', 'rules']) {
    for (const file of yamlFiles(join(base, kind))) {
      const results = parseRules(readFileSync(file, 'utf8'));
      assert.ok(results.length > 0, file);
      for (const r of results) {
        assert.ok(r.ok, `${file}: ${JSON.stringify(r)}`);
        if (r.ok) assert.equal(r.rule.kind, kind === 'rules' ? 'detection' : kind === 'filter' ? 'filter' : 'correlation');
      }
    }
  }
});
