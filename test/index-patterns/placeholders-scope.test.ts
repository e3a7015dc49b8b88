// Index patterns that say what rules may run on them: placeholder values for `%name%` (expand) and the
// log sources their events come from. Stored and answered on create/PATCH/GET; rules stored freely but
// refused at deploy (single, bulk, import) with messages naming what is missing or out of scope; values
// make placeholder rules match on ingest; changing them redeploys deployed rules or is refused when a
// deployed rule would lose a value it needs or fall outside the scope.
// Reads the shared corpus.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileStoredQuery, type StoredQueryDocument } from '../../src/backends/embedded/stored-query-compiler.js';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, backendOf, createPattern, createRule, ingest, setUpTeam, sigma } from '../rules/fixtures.js';
import { rulesRoot, yamlFiles } from '../sigma/corpus-helpers.js';

const PLACEHOLDER_ROOT = join(rulesRoot, 'rules-placeholder');

/** A Security 4672 rule from rules-placeholder: special privileges assigned to a non-admin account. */
const ADMIN_LOGON = readFileSync(join(PLACEHOLDER_ROOT, 'windows/builtin/security/win_security_admin_logon.yml'), 'utf8');

const specialLogon = (user: string) => ({ EventID: 4672, Channel: 'Security', SubjectUserSid: 'S-1-5-21-1004336348-1177238915-682003330-1107', SubjectUserName: user });

const twoPlaceholders = sigma({
  title: 'Admin tools off admin hosts',
  detection: `  selection:\n    User|expand: '%Administrators%'\n  filter:\n    Computer|expand: '%DomainControllers%'\n  condition: selection and not filter`,
});

const zeekRule = `title: Zeek DNS TXT
logsource:
  product: zeek
  service: dns
detection:
  selection:
    qtype_name: TXT
  condition: selection
level: low
`;

const genericProcessRule = sigma({ title: 'Generic whoami', detection: `  selection:\n    Image|endswith: '\\whoami.exe'\n  condition: selection` }).replace('  product: windows\n', '');

describeEachDatabase('index pattern placeholders and log-source scope', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'pia', 'pete', { name: 'scope-team' }));
  });

  test('create, GET and PATCH carry placeholders and logsource_scope; defaults are {} and null', async () => {
    const plain = await createPattern(admin, { name: 'plain-ps' });
    assert.deepEqual(plain.placeholders, {});
    assert.equal(plain.logsource_scope, null);
    const p = await createPattern(admin, {
      name: 'scoped-ps',
      placeholders: { Administrators: ['Administrator', 'Admin*'], DomainControllers: ['dc-01'] },
      logsource_scope: [{ product: 'windows', service: 'sysmon' }, { category: 'process_creation' }],
    });
    assert.deepEqual(p.placeholders, { Administrators: ['Administrator', 'Admin*'], DomainControllers: ['dc-01'] });
    assert.deepEqual(p.logsource_scope, [{ product: 'windows', service: 'sysmon' }, { category: 'process_creation' }]);
    const read = await admin.get(`/api/index_patterns/${p.id}`);
    assert.deepEqual(read.data.placeholders, p.placeholders);
    assert.deepEqual(read.data.logsource_scope, p.logsource_scope);
    const patched = await admin.patch(`/api/index_patterns/${p.id}`, { logsource_scope: [], placeholders: {} });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.data.logsource_scope, null, '[] is any');
    assert.deepEqual(patched.data.placeholders, {});
    const listed = await admin.get('/api/index_patterns?search=plain-ps');
    assert.deepEqual(listed.data.items[0].placeholders, {});
  });

  test('bad placeholders and scopes are 400 with the reason', async () => {
    const bad = async (body: Record<string, unknown>, field: RegExp) => {
      const response = await admin.post('/api/index_patterns', { name: 'bad-ps', ...body });
      assert.equal(response.statusCode, 400, response.body);
      assert.match(JSON.stringify(response.data), field);
    };
    await bad({ placeholders: { 'a%b': ['x'] } }, /placeholders/);
    await bad({ placeholders: { ' ': ['x'] } }, /placeholders/);
    await bad({ placeholders: { a: [] } }, /placeholders/);
    await bad({ placeholders: { a: [''] } }, /placeholders/);
    await bad({ placeholders: { a: 'x' } }, /placeholders/);
    await bad({ placeholders: { a: Array.from({ length: 1001 }, (_, i) => `v${i}`) } }, /placeholders/);
    await bad({ placeholders: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`n${i}`, ['v']])) }, /placeholders/);
    await bad({ logsource_scope: [{}] }, /logsource_scope/);
    await bad({ logsource_scope: [{ product: 'Windows' }] }, /logsource_scope/);
    await bad({ logsource_scope: [{ vendor: 'x' }] }, /logsource_scope/);
    await bad({ logsource_scope: { product: 'windows' } }, /logsource_scope/);
    assert.equal((await admin.get('/api/index_patterns?search=bad-ps')).data.items.length, 0);
  });

  test('a rule whose placeholders have no values is stored, refused at deploy naming all it needs, and test answers 422', async () => {
    await createPattern(admin, { name: 'no-values', placeholders: { Other: ['x'] } });
    const rule = await createRule(analyst, { yaml_content: twoPlaceholders, index_pattern: 'no-values' });
    assertError(
      await analyst.post(`/api/rules/${rule.id}/deploy`),
      400,
      "Validation failed: placeholder(s) %Administrators%, %DomainControllers% have no values in index pattern 'no-values'",
    );
    assertError(
      await analyst.post('/api/rules', { yaml_content: twoPlaceholders, index_pattern: 'no-values', deploy: true }),
      400,
      "Validation failed: placeholder(s) %Administrators%, %DomainControllers% have no values in index pattern 'no-values'",
    );
    const tested = await analyst.post(`/api/rules/${rule.id}/test`, { sample_log: { User: 'Administrator' } });
    assert.equal(tested.statusCode, 422, tested.body);
    assert.match(JSON.stringify(tested.data.errors), /placeholder\(s\) %Administrators%, %DomainControllers% have no values in index pattern 'no-values'/);
  });

  test('placeholder values make a SigmaHQ placeholder rule deploy and match on ingest; wildcards in values are wildcards', async () => {
    const p = await createPattern(admin, { name: 'admins', preset: 'windows-thor', placeholders: { Admins_Workstations: ['ws-admin-*', 'helpdesk'] } });
    const rule = await createRule(analyst, { yaml_content: ADMIN_LOGON, index_pattern: 'admins', deploy: true });
    assert.equal(rule.status, 'deployed');
    const response = await ingest(ctx.service, p, [specialLogon('mallory'), specialLogon('WS-ADMIN-07'), specialLogon('helpdesk')]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.alerts_created, 1, response.body);
    const tested = await analyst.post(`/api/rules/${rule.id}/test`, { sample_log: specialLogon('ws-admin-x') });
    assert.equal(tested.data.matches, false);
    // The stored query carries the values: another instance compiles the same detection from it alone.
    const [stored] = await ctx.service.db.query<{ query: StoredQueryDocument }>('SELECT query FROM stored_queries WHERE rule_id = $1 AND NOT deleted', [rule.id]);
    assert.deepEqual(stored.query.pipeline.vars, { Admins_Workstations: ['ws-admin-*', 'helpdesk'] });
    const elsewhere = compileStoredQuery(stored.query);
    assert.ok(elsewhere.ok);
    assert.deepEqual(['mallory', 'WS-ADMIN-07'].map((u) => elsewhere.rule.match(specialLogon(u))), [true, false]);
  });

  test('changing placeholder values redeploys deployed rules; removing a needed value is refused naming the rule', async () => {
    const p = await createPattern(admin, { name: 'admins-change', preset: 'windows-thor', placeholders: { Admins_Workstations: ['helpdesk'] } });
    const rule = await createRule(analyst, { yaml_content: ADMIN_LOGON, index_pattern: 'admins-change', deploy: true });
    const alerting = async (user: string) => (await backendOf(ctx.service).percolate(p.percolator_index, [specialLogon(user)]))[0].includes(rule.id);
    assert.equal(await alerting('carol'), true);
    const changed = await admin.patch(`/api/index_patterns/${p.id}`, { placeholders: { Admins_Workstations: ['helpdesk', 'carol'] } });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(await alerting('carol'), false, 'the new value is live');
    const refused = await admin.patch(`/api/index_patterns/${p.id}`, { placeholders: { Something_Else: ['x'] } });
    assertError(refused, 400, `Validation failed: placeholder(s) %Admins_Workstations% have no values in index pattern 'admins-change' (deployed rule '${rule.title}', ${rule.id})`);
    assert.deepEqual((await admin.get(`/api/index_patterns/${p.id}`)).data.placeholders, { Admins_Workstations: ['helpdesk', 'carol'] }, 'nothing changed');
    assert.equal(await alerting('carol'), false);
    // Once the rule is undeployed the values may go.
    assert.equal((await analyst.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
    assert.equal((await admin.patch(`/api/index_patterns/${p.id}`, { placeholders: {} })).statusCode, 200);
  });

  test('a rule outside the log sources of its pattern is stored but refused at deploy with both log sources named', async () => {
    await createPattern(admin, { name: 'windows-only', logsource_scope: [{ product: 'windows' }] });
    const zeek = await createRule(analyst, { yaml_content: zeekRule, index_pattern: 'windows-only' });
    assertError(
      await analyst.post(`/api/rules/${zeek.id}/deploy`),
      400,
      "Validation failed: rule logsource (product: zeek, service: dns) is outside the log sources of index pattern 'windows-only' (product: windows)",
    );
    const windows = await createRule(analyst, { yaml_content: sigma({ title: 'Windows whoami' }), index_pattern: 'windows-only', deploy: true });
    assert.equal(windows.status, 'deployed');
    const generic = await createRule(analyst, { yaml_content: genericProcessRule, index_pattern: 'windows-only', deploy: true });
    assert.equal(generic.status, 'deployed', 'a generic process_creation rule: Windows produces process creations');
    const proxy = sigma({ title: 'Generic proxy', detection: `  selection:\n    c-uri|contains: '/evil'\n  condition: selection` }).replace('category: process_creation', 'category: proxy').replace('  product: windows\n', '');
    assertError(
      await analyst.post('/api/rules', { yaml_content: proxy, index_pattern: 'windows-only', deploy: true }),
      400,
      "Validation failed: rule logsource (category: proxy) is outside the log sources of index pattern 'windows-only' (product: windows)",
    );
  });

  test('narrowing the scope below a deployed rule is refused naming it; the scope is kept', async () => {
    const p = await createPattern(admin, { name: 'narrowing', logsource_scope: [{ product: 'windows' }] });
    const rule = await createRule(analyst, { yaml_content: sigma({ title: 'Process rule' }), index_pattern: 'narrowing', deploy: true });
    assertError(
      await admin.patch(`/api/index_patterns/${p.id}`, { logsource_scope: [{ product: 'windows', service: 'system' }, { category: 'ps_script' }] }),
      400,
      "Validation failed: rule logsource (product: windows, category: process_creation) is outside the log sources of index pattern 'narrowing' " +
        `(product: windows, service: system; category: ps_script) (deployed rule 'Process rule', ${rule.id})`,
    );
    assert.deepEqual((await admin.get(`/api/index_patterns/${p.id}`)).data.logsource_scope, [{ product: 'windows' }]);
    const widened = await admin.patch(`/api/index_patterns/${p.id}`, { logsource_scope: [{ product: 'windows', service: 'sysmon' }] });
    assert.equal(widened.statusCode, 200, 'Sysmon carries process creations');
  });

  test('bulk deploy and import report each refused rule with its reason', async () => {
    await createPattern(admin, { name: 'bulk-scope', logsource_scope: [{ product: 'windows' }], placeholders: { Administrators: ['root'] } });
    const zeek = await createRule(analyst, { yaml_content: zeekRule, index_pattern: 'bulk-scope' });
    const twoMissing = await createRule(analyst, { yaml_content: twoPlaceholders, index_pattern: 'bulk-scope' });
    const fine = await createRule(analyst, { yaml_content: sigma({ title: 'Bulk fine' }), index_pattern: 'bulk-scope' });
    const bulk = await analyst.post('/api/rules/bulk/deploy', { ids: [zeek.id, twoMissing.id, fine.id] });
    assert.equal(bulk.statusCode, 200, bulk.body);
    assert.equal(bulk.data.deployed, 1);
    assert.deepEqual(bulk.data.failed, [
      { id: zeek.id, error: "Validation failed: rule logsource (product: zeek, service: dns) is outside the log sources of index pattern 'bulk-scope' (product: windows)" },
      { id: twoMissing.id, error: "Validation failed: placeholder(s) %DomainControllers% have no values in index pattern 'bulk-scope'" },
    ]);

    const text = [sigma({ title: 'Import fine' }), zeekRule, twoPlaceholders].join('---\n');
    const deployed = await analyst.post('/api/rules/import?index_pattern=bulk-scope&deploy=true', text, { 'content-type': 'application/yaml' });
    assert.equal(deployed.statusCode, 200, deployed.body);
    assert.equal(deployed.data.created, 1);
    assert.equal(deployed.data.deployed, 1);
    assert.deepEqual(
      deployed.data.failed.map((f: { index: number; error: string }) => [f.index, f.error]),
      [
        [1, "Validation failed: rule logsource (product: zeek, service: dns) is outside the log sources of index pattern 'bulk-scope' (product: windows)"],
        [2, "Validation failed: placeholder(s) %DomainControllers% have no values in index pattern 'bulk-scope'"],
      ],
    );
    // Without deploy every rule is stored: placeholders and scope are deploy prerequisites.
    const stored = await analyst.post('/api/rules/import?index_pattern=bulk-scope', text, { 'content-type': 'application/yaml' });
    assert.equal(stored.data.created, 3, stored.body);
  });

  test('all 25 SigmaHQ placeholder rules import and deploy once their placeholders have values', async () => {
    const texts: string[] = [];
    const names = new Set<string>();
    for (const dir of ['rules', 'rules-emerging-threats', 'rules-threat-hunting', 'rules-placeholder']) {
      for (const file of yamlFiles(join(rulesRoot, dir))) {
        const text = readFileSync(file, 'utf8');
        if (!text.includes('|expand')) continue;
        texts.push(text);
        for (const m of text.matchAll(/%([^%\s'"]+)%/g)) names.add(m[1]);
      }
    }
    assert.equal(texts.length, 25);
    await createPattern(admin, { name: 'all-placeholders', placeholders: Object.fromEntries([...names].map((n) => [n, [`${n.toLowerCase()}-1`, 'x*']])) });
    const response = await analyst.post('/api/rules/import?index_pattern=all-placeholders&deploy=true', texts.join('---\n'), { 'content-type': 'application/yaml' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data.failed, []);
    assert.equal(response.data.deployed, 25);
  });
});
