// The OpenSearch DSL compiler agrees with the JS matcher: corpus rules × regression events (and variants),
// evaluated by an in-process DSL interpreter with keyword-field semantics; refusals are explicit.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileDsl, compileRule, getPreset, parseRules } from '../../src/sigma/index.js';
import { toLuceneRegex } from '../../src/sigma/opensearch/lucene-regex.js';
import { compile } from './helpers.js';
import { evalDsl, IP_SUBFIELD, NUMERIC_SUBFIELD } from './dsl-eval.js';
import { regressionCases, rulesRoot, yamlFiles } from './corpus-helpers.js';

test('DSL shapes: term / prefix / wildcard / regexp / range / exists / bool, case_insensitive', () => {
  const m = compile(`sel:\n    A: x\n    B|startswith: 'p*'\n    C|endswith: '\\a?'\n    D|re: '^\\d+$'\n    E|gte: 5\n    F: null\nfilter:\n    G|cased: Y\ncondition: sel and not filter`);
  const r = compileDsl(m.ir, { numericSubfield: NUMERIC_SUBFIELD });
  assert.ok(r.ok);
  if (!r.ok) return;
  const text = JSON.stringify(r.query);
  for (const part of [
    '{"term":{"A":{"value":"x","case_insensitive":true}}}',
    '{"prefix":{"B":{"value":"p","case_insensitive":true}}}',
    String.raw`{"wildcard":{"C":{"value":"*\\\\a?","case_insensitive":true}}}`,
    '{"regexp":{"D":{"value":"[0-9]+\\n?","flags":"NONE","case_insensitive":false}}}',
    '{"range":{"E.num":{"gte":5}}}',
    '{"bool":{"must_not":[{"exists":{"field":"F"}}]}}',
    '{"term":{"G":{"value":"Y","case_insensitive":false}}}',
    '"_name":"sel"',
  ]) assert.ok(text.includes(part), `${part} in ${text}`);
});

test('DSL and JS matcher agree on booleans, numbers, null and exists (keyword-mapped values)', () => {
  const cases: Array<[string, object[]]> = [
    ['sel:\n    Flag: true\ncondition: sel', [{ Flag: true }, { Flag: 'TRUE' }, { Flag: 'True' }, { Flag: false }, { Flag: 'yes' }, {}]],
    ['sel:\n    Flag: false\ncondition: sel', [{ Flag: false }, { Flag: 'FALSE' }, { Flag: true }, { Flag: 0 }]],
    ['sel:\n    EventID: 4688\ncondition: sel', [{ EventID: 4688 }, { EventID: '4688' }, { EventID: 46880 }, { EventID: [1, 4688] }]],
    ['sel:\n    Image: null\ncondition: sel', [{ Image: 'x' }, {}, { Other: 1 }]],
  ];
  for (const [det, events] of cases) {
    const m = compile(det);
    const r = compileDsl(m.ir);
    assert.ok(r.ok, det);
    if (!r.ok) continue;
    for (const e of events) assert.equal(evalDsl(r.query, e), m.match(e), `${det} on ${JSON.stringify(e)}`);
  }
});

test('queries over the clause limit are refused with the reason; the limit is configurable', () => {
  const values = Array.from({ length: 1100 }, (_, i) => `    - 'v${i}'`).join('\n');
  const m = compile(`sel:\n  Hash|contains:\n${values}\ncondition: sel`);
  const r = compileDsl(m.ir);
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.errors.join(), /needs 1100 clauses; OpenSearch allows 1024/);
  assert.equal(compileDsl(m.ir, { maxClauses: 2048 }).ok, true);
});

test('Lucene regex translation refuses what it cannot express', () => {
  assert.deepEqual(toLuceneRegex('(?i)abc', { i: false, m: false, s: false }), { ok: true, source: '.*abc.*', caseInsensitive: true });
  assert.equal(toLuceneRegex('a\\bb', { i: false, m: false, s: false }).ok, false);
  assert.equal(toLuceneRegex('(?=a)', { i: false, m: false, s: false }).ok, false);
  assert.equal(toLuceneRegex('a|^b', { i: false, m: false, s: false }).ok, false);
});

test('DSL and JS matcher agree on the corpus and the regression events', () => {
  const events: object[] = regressionCases().flatMap((c) => c.events);
  // Originals plus an upper-cased copy of every 4th event (case-insensitivity on both sides).
  const variants = events.flatMap((e, i) =>
    i % 4 ? [e] : [e, Object.fromEntries(Object.entries(e).map(([k, v]) => [k, typeof v === 'string' ? v.toUpperCase() : v]))],
  );
  let compiled = 0;
  let refused = 0;
  let positives = 0;
  const mismatches: string[] = [];
  // The categories the regression events come from (the other Windows rules only add more negatives).
  const dirs = ['process_creation', 'registry', 'file', 'image_load', 'builtin'].map((d) => join(rulesRoot, 'rules/windows', d));
  for (const file of dirs.flatMap((d) => yamlFiles(d))) {
    for (const r of parseRules(readFileSync(file, 'utf8'))) {
      if (!r.ok) continue;
      const c = compileRule(r.rule, getPreset('windows-thor'));
      if (!c.ok) continue;
      const d = compileDsl(c.matcher.ir, { keywordFields: ['Message'], ipSubfield: IP_SUBFIELD, numericSubfield: NUMERIC_SUBFIELD });
      if (!d.ok) {
        refused++;
        continue;
      }
      compiled++;
      for (const e of variants) {
        const js = c.matcher.match(e);
        if (js) positives++;
        if (evalDsl(d.query, e) !== js) mismatches.push(`${file}: js=${js}`);
      }
    }
  }
  assert.deepEqual(mismatches.slice(0, 10), []);
  assert.ok(compiled > 1500, `compiled ${compiled}`);
  assert.ok(refused < 60, `refused ${refused}`);
  assert.ok(positives > 100);
});
