// Per-rule work limits: a rule with more regexes, wildcard patterns or matching cost than a rule may have
// is refused with 422 naming the limit when it is created, updated, imported, deployed (a rule stored by
// an older version) or tested; the probe's shapes (thousands of catastrophic regexes, thousands of
// wildcard values against a 100 KB value) answer at once instead of freezing the service.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client, type Response } from '../helpers/service.js';
import { countRows, createPattern, createRule, ingest, sigma, type Json } from '../rules/fixtures.js';

/** A rule whose one selection lists `values` for `key` (a field with modifiers). */
function listRule(title: string, key: string, values: string[]): string {
  const list = values.map((v) => `      - '${v}'`).join('\n');
  return sigma({ title, detection: `  selection:\n    ${key}:\n${list}\n  condition: selection` });
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
/** Regexes that each need a thousand automaton states (the probe used 45,000 of them). */
const catastrophic = (n: number) => range(n).map((i) => `[a-z]{999}${i}`);
/** Wildcard values with a `*` inside (the probe used 40,000 of them). */
const wildcards = (n: number) => range(n).map((i) => `*a*${'b'.repeat(20)}${i}*`);
const HUNDRED_KB = ('a'.repeat(500) + '0').repeat(200).slice(0, 100_000);

function assertLimit(response: Response, detail: string, message: RegExp): void {
  assert.equal(response.statusCode, 422, response.body);
  assert.equal(response.data.detail, detail, response.body);
  assert.equal(response.data.status_code, 422);
  assert.equal(response.data.errors.length, 1, response.body);
  assert.equal(response.data.errors[0].field, 'detection');
  assert.match(response.data.errors[0].message, message);
}

const REGEX_LIMIT = /^the rule has 201 regular expressions \(limit 200 per rule\)$/;
const WILDCARD_LIMIT = /^the rule has 1,001 wildcard patterns \(limit 1,000 per rule\)$/;
const COST_LIMIT = /^the rule's matching cost is [\d,]+( or more)? \(limit 10,000 per rule; a regex counts its compiled program size/;

describeEachDatabase('rule work limits', (ctx) => {
  let admin: Client;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    await createPattern(admin, { name: 'limits', is_default: true });
  });

  test('create: over the regex, wildcard or matching-cost limit is 422 naming the limit; nothing is stored', async () => {
    const before = await countRows(ctx.service, 'rules', []);
    assertLimit(await admin.post('/api/rules', { yaml_content: listRule('Regexes', 'CommandLine|re', catastrophic(201)) }), 'Validation failed', REGEX_LIMIT);
    assertLimit(await admin.post('/api/rules', { yaml_content: listRule('Wildcards', 'CommandLine', wildcards(1001)) }), 'Validation failed', WILDCARD_LIMIT);
    // Eleven regexes of about a thousand states each: few regexes, but too much work per character.
    const costly = range(11).map((i) => `(.{1000})x${i}`);
    assertLimit(await admin.post('/api/rules', { yaml_content: listRule('Costly', 'CommandLine|re', costly), deploy: true }), 'Validation failed', COST_LIMIT);
    assert.equal(await countRows(ctx.service, 'rules', []), before);
    // At the limits a rule is fine.
    const atLimits = await admin.post('/api/rules', { yaml_content: listRule('At the limits', 'CommandLine|re', range(200).map((i) => `ab+c${i}`)), deploy: true });
    assert.equal(atLimits.statusCode, 201, atLimits.body);
    const manyWildcards = await admin.post('/api/rules', { yaml_content: listRule('Many wildcards', 'CommandLine', range(1000).map((i) => `*a*b${i}*`)), deploy: true });
    assert.equal(manyWildcards.statusCode, 201, manyWildcards.body);
  });

  test('update and import: over a limit is 422 (update leaves the rule as it was; import reports the document)', async () => {
    const rule = await createRule(admin, { yaml_content: listRule('Small', 'CommandLine|contains', ['whoami']), deploy: true });
    assertLimit(await admin.put(`/api/rules/${rule.id}`, { yaml_content: listRule('Small', 'CommandLine|re', catastrophic(201)) }), 'Validation failed', REGEX_LIMIT);
    const after = await admin.get(`/api/rules/${rule.id}`);
    assert.equal(after.data.version, 1);
    assert.equal(after.data.yaml_content, rule.yaml_content);

    const text = [listRule('Import fine', 'Image|endswith', ['\\fine.exe']), listRule('Import heavy', 'CommandLine', wildcards(1001))].join('---\n');
    const imported = await admin.post('/api/rules/import', text, { 'content-type': 'application/yaml' });
    assert.equal(imported.statusCode, 200, imported.body);
    assert.equal(imported.data.created, 1, imported.body);
    assert.equal(imported.data.failed.length, 1, imported.body);
    const failure = imported.data.failed[0] as Json;
    assert.equal(failure.index, 1);
    assert.ok(
      (failure.errors ?? []).some((e: Json) => WILDCARD_LIMIT.test(e.message)) || WILDCARD_LIMIT.test(String(failure.error).replace(/^.*?detection: /, '')),
      imported.body,
    );
  });

  test('deploy: a stored rule over a limit (kept by an older version) is 422 naming the limit, and stays undeployed', async () => {
    const rule = await createRule(admin, { yaml_content: listRule('Older', 'CommandLine|contains', ['older']) });
    await ctx.service.db.query('UPDATE rules SET yaml_content = $1 WHERE id = $2', [listRule('Older', 'CommandLine|re', catastrophic(300)), rule.id]);
    const deployed = await admin.post(`/api/rules/${rule.id}/deploy`);
    assert.equal(deployed.statusCode, 422, deployed.body);
    assert.match(deployed.data.detail, /^Validation failed: detection: the rule has 300 regular expressions \(limit 200 per rule\)$/);
    assert.equal(deployed.data.errors[0].field, 'detection');
    assert.equal((await admin.get(`/api/rules/${rule.id}`)).data.status, 'undeployed');
  });

  test("rule tests: the probe's thousands of catastrophic regexes or wildcards against a 100 KB value answer 422 at once", async () => {
    const sample_log = { CommandLine: HUNDRED_KB };
    const regexes = await admin.post('/api/rules/test', { yaml_content: listRule('Probe regexes', 'CommandLine|re', catastrophic(2000)), sample_log });
    assertLimit(regexes, 'Rule validation failed', /^the rule has 2,000 regular expressions \(limit 200 per rule\)$/);
    const globs = await admin.post('/api/rules/test', { yaml_content: listRule('Probe wildcards', 'CommandLine', wildcards(4000)), sample_log });
    assertLimit(globs, 'Rule validation failed', /^the rule has 4,000 wildcard patterns \(limit 1,000 per rule\)$/);
    // A saved rule over a limit (stored by an older version) is refused the same way.
    const rule = await createRule(admin, { yaml_content: listRule('Saved', 'CommandLine|contains', ['saved']) });
    await ctx.service.db.query('UPDATE rules SET yaml_content = $1 WHERE id = $2', [listRule('Saved', 'CommandLine|re', catastrophic(2000)), rule.id]);
    assertLimit(await admin.post(`/api/rules/${rule.id}/test`, { sample_log }), 'Rule validation failed', /^the rule has 2,000 regular expressions/);
    const historical = await admin.post(`/api/rules/${rule.id}/test/historical`, { time_range: '1h' });
    assertLimit(historical, 'Rule validation failed', /^the rule has 2,000 regular expressions \(limit 200 per rule\)$/);
  });

  test('ingest: a deployed rule at the limits matches a 100 KB value as it should', async () => {
    const pattern = await createPattern(admin, { name: 'limits-ingest' });
    const heavy = range(9).map((i) => `[a-${String.fromCharCode(122 - i)}]{999}[0-9]`);
    await createRule(admin, { yaml_content: listRule('Heavy but allowed', 'CommandLine|re', heavy), index_pattern: 'limits-ingest', deploy: true });
    await createRule(admin, { yaml_content: listRule('Plain', 'CommandLine|contains', ['0aaa']), index_pattern: 'limits-ingest', deploy: true });
    const response = await ingest(ctx.service, pattern, { CommandLine: HUNDRED_KB });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.accepted, 1, response.body);
    assert.equal(response.data.alerts_created, 1, response.body);
  });
});
