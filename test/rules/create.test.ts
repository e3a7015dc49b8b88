// POST /api/rules: the record it answers, title override, atomic deploy:true, and the validation order
// of the spec (400 YAML, 422 schema/required/mapping with errors) including unsafe regexes and size limits.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, type Client } from '../helpers/service.js';
import { WHOAMI_EVENT, assertError, backendOf, createPattern, createRule, sigma, whileBackendOffline, type CreatedPattern, setUpTeam } from './fixtures.js';

const RULE_FIELDS = [
  'author', 'created_at', 'created_by', 'deployed_at', 'deployed_version', 'description', 'id', 'index_pattern', 'level',
  'logsource', 'percolator_id', 'rule_type', 'severity', 'sigma_id', 'sigma_name', 'status', 'tags', 'title', 'updated_at', 'version', 'yaml_content',
].sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describeEachDatabase('rule creation', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let pattern: CreatedPattern;

  const ruleTotal = async () => (await admin.get('/api/rules?page_size=1')).data.total as number;

  before(async () => {
    ({ admin, analyst, viewer, pattern } = await setUpTeam(ctx.service, 'carla', 'victor', { name: 'winlogs', is_default: true }));
  });

  test('201 answers the full rule record: spec §2 fields and the decisions §5 extras', async () => {
    const yaml = sigma({ id: '5b1a7f0e-4a2c-4c1e-9b55-0a0a0a0a0a01', tags: ['attack.discovery', 'attack.t1033'] });
    const response = await analyst.post('/api/rules', { yaml_content: yaml });
    assert.equal(response.statusCode, 201, response.body);
    const rule = response.data;
    assert.deepEqual(Object.keys(rule).sort(), RULE_FIELDS);
    assert.match(rule.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(rule.title, 'Whoami Execution');
    assert.equal(rule.yaml_content, yaml);
    assert.equal(rule.status, 'undeployed');
    assert.equal(rule.severity, 'high');
    assert.equal(rule.level, 'high');
    assert.deepEqual(rule.tags, ['attack.discovery', 'attack.t1033']);
    assert.match(rule.created_at, ISO);
    assert.match(rule.updated_at, ISO);
    assert.equal(rule.version, 1);
    assert.equal(rule.created_by, 'carla');
    assert.equal(rule.description, 'whoami run by a user');
    assert.equal(rule.author, 'Vigil tests');
    assert.deepEqual(rule.logsource, { category: 'process_creation', product: 'windows' });
    assert.equal(rule.sigma_id, '5b1a7f0e-4a2c-4c1e-9b55-0a0a0a0a0a01');
    assert.equal(rule.index_pattern, 'winlogs');
    assert.equal(rule.deployed_at, null);
    assert.equal(rule.percolator_id, null);
    assert.equal(rule.deployed_version, null);

    const read = await viewer.get(`/api/rules/${rule.id}`);
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.data, rule);
  });

  test('severity follows the level; tags may be empty; sigma_id is null without an id', async () => {
    for (const level of ['critical', 'high', 'medium', 'low', 'informational']) {
      const rule = await createRule(analyst, { yaml_content: sigma({ level }) });
      assert.equal(rule.severity, level);
      assert.deepEqual(rule.tags, []);
      assert.equal(rule.sigma_id, null);
    }
  });

  test('title in the body overrides the YAML title', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma(), title: 'My own title' });
    assert.equal(rule.title, 'My own title');
    assert.match(rule.yaml_content, /^title: Whoami Execution$/m);
    assert.equal((await analyst.get(`/api/rules/${rule.id}`)).data.title, 'My own title');
  });

  test('a title of the body is at most 256 characters (as in Sigma) and not blank', async () => {
    assert.equal((await createRule(analyst, { yaml_content: sigma(), title: 'x'.repeat(256) })).title.length, 256);
    const long = await analyst.post('/api/rules', { yaml_content: sigma(), title: 'x'.repeat(257) });
    assertError(long, 400, 'Invalid request');
    for (const title of ['   ', ' \t\n']) {
      const blank = await analyst.post('/api/rules', { yaml_content: sigma(), title });
      assertError(blank, 400, 'Invalid request');
      assert.deepEqual(blank.data.errors, [{ field: 'body.title', message: 'must not be blank' }]);
    }
    const rule = await createRule(analyst, { yaml_content: sigma() });
    assert.deepEqual((await analyst.put(`/api/rules/${rule.id}`, { title: ' ' })).data.errors, [{ field: 'body.title', message: 'must not be blank' }]);
  });

  test('a status field is unknown here, not a bad status value', async () => {
    const response = await analyst.post('/api/rules', { yaml_content: sigma(), status: 'deployed' });
    assertError(response, 400, 'Invalid request');
    assert.deepEqual(response.data.errors, [{ field: 'body.status', message: 'is not an allowed field' }]);
  });

  test('deploy:true creates the rule deployed with a live stored query', async () => {
    const response = await analyst.post('/api/rules', { yaml_content: sigma({ title: 'Deployed at once' }), deploy: true });
    assert.equal(response.statusCode, 201, response.body);
    const rule = response.data;
    assert.equal(rule.status, 'deployed');
    assert.match(rule.deployed_at, ISO);
    assert.equal(typeof rule.percolator_id, 'string');
    assert.equal(rule.deployed_version, 1);
    assert.ok(await backendOf(ctx.service).hasStoredQuery(pattern.percolator_index, rule.percolator_id));
    const [hits] = await backendOf(ctx.service).percolate(pattern.percolator_index, [WHOAMI_EVENT]);
    assert.ok(hits.includes(rule.percolator_id));
  });

  test('deploy:true without an index pattern: 400 and no rule is created', async () => {
    const before = await ruleTotal();
    const response = await analyst.post('/api/rules', { yaml_content: sigma({ title: 'Nowhere to go' }), deploy: true, index_pattern: null });
    assertError(response, 400, 'Validation failed: no index pattern configured');
    assert.equal(await ruleTotal(), before);
    assert.equal((await admin.get('/api/rules?search=Nowhere%20to%20go')).data.total, 0);
  });

  test('deploy:true with the backend offline: 503 and no rule is created', async () => {
    const before = await ruleTotal();
    const response = await whileBackendOffline(ctx.service, () => analyst.post('/api/rules', { yaml_content: sigma({ title: 'Backend down' }), deploy: true }));
    assertError(response, 503, 'Search backend connection failed');
    assert.equal(await ruleTotal(), before);
    assert.equal((await admin.get('/api/rules?search=Backend%20down')).data.total, 0);
    const stored = await ctx.service.db.query<{ n: number }>("SELECT count(*)::int AS n FROM stored_queries q WHERE NOT deleted AND NOT EXISTS (SELECT 1 FROM rules r WHERE r.id = q.rule_id)", []);
    assert.equal(Number(stored[0].n), 0, 'no stored query without its rule');
  });

  test('deploy:false or absent leaves the rule undeployed', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma(), deploy: false });
    assert.equal(rule.status, 'undeployed');
  });

  test('invalid YAML syntax is 400 "Invalid YAML syntax: <reason with line>"', async () => {
    const before = await ruleTotal();
    const response = await analyst.post('/api/rules', { yaml_content: 'title: [unclosed\nlevel: high\n' });
    assertError(response, 400, /^Invalid YAML syntax: .*line \d+/);
    const tabs = await analyst.post('/api/rules', { yaml_content: 'title: x\n\tlevel: high\n' });
    assertError(tabs, 400, /^Invalid YAML syntax: /);
    assert.equal(await ruleTotal(), before);
  });

  test('a document that is not a mapping is a validation error, not a crash', async () => {
    for (const yaml of ['just a string', '- a\n- b\n', '42']) {
      const response = await analyst.post('/api/rules', { yaml_content: yaml });
      assert.ok(response.statusCode === 400 || response.statusCode === 422, `${yaml}: ${response.body}`);
      if (response.statusCode === 422) assert.equal(response.data.detail, 'Validation failed');
    }
    const several = await analyst.post('/api/rules', { yaml_content: `${sigma()}\n---\n${sigma()}` });
    assertError(several, 422, 'Validation failed');
    assert.deepEqual(several.data.errors, [{ field: '', message: 'the text holds 2 Sigma documents where one rule is expected; import several rules with POST /api/rules/import' }]);
  });

  test('each missing required field is 422 Validation failed naming the field', async () => {
    const full = sigma();
    const without = (key: string) => {
      const lines = full.split('\n');
      const start = lines.findIndex((l) => l.startsWith(`${key}:`));
      let end = start + 1;
      while (end < lines.length && lines[end].startsWith(' ')) end++;
      return [...lines.slice(0, start), ...lines.slice(end)].join('\n');
    };
    const before = await ruleTotal();
    for (const key of ['title', 'level', 'logsource', 'detection']) {
      const response = await analyst.post('/api/rules', { yaml_content: without(key) });
      assertError(response, 422, 'Validation failed');
      assert.ok(Array.isArray(response.data.errors) && response.data.errors.length > 0, response.body);
      for (const e of response.data.errors) {
        assert.equal(typeof e.field, 'string');
        assert.equal(typeof e.message, 'string');
      }
      assert.ok(response.data.errors.some((e: { field: string }) => e.field === key), `${key}: ${response.body}`);
    }
    assert.equal(await ruleTotal(), before);
  });

  test('schema errors are 422: bad level, undefined selection in the condition', async () => {
    const badLevel = await analyst.post('/api/rules', { yaml_content: sigma({ level: 'severe' }) });
    assertError(badLevel, 422, 'Validation failed');
    assert.ok(badLevel.data.errors.some((e: { field: string }) => e.field === 'level'), badLevel.body);
    const undefinedSelection = await analyst.post('/api/rules', {
      yaml_content: sigma({ detection: "  selection:\n    Image: 'x'\n  condition: selection and other" }),
    });
    assertError(undefinedSelection, 422, 'Validation failed');
    assert.ok(undefinedSelection.data.errors.some((e: { field: string }) => e.field.startsWith('detection')), undefinedSelection.body);
  });

  test('the deprecated "| count()" aggregation is 422 with a pointer to correlation rules', async () => {
    const response = await analyst.post('/api/rules', {
      yaml_content: sigma({ detection: "  selection:\n    EventID: 4625\n  condition: selection | count() by IpAddress > 10" }),
    });
    assertError(response, 422, 'Validation failed');
    assert.match(JSON.stringify(response.data.errors), /correlation/i);
  });

  test('an unknown index pattern is 422', async () => {
    const before = await ruleTotal();
    const response = await analyst.post('/api/rules', { yaml_content: sigma(), index_pattern: 'no-such-pattern' });
    assertError(response, 422, 'Validation failed');
    assert.ok(response.data.errors.some((e: { field: string }) => e.field === 'index_pattern'), response.body);
    assert.equal(await ruleTotal(), before);
  });

  test('a field the pattern does not map (default_mapping none) is 422 with the detection path', async () => {
    await createPattern(admin, {
      name: 'strict',
      default_mapping: 'none',
      field_mappings: [{ sigma_field: 'User', target_field: 'user.name' }],
    });
    const response = await analyst.post('/api/rules', { yaml_content: sigma(), index_pattern: 'strict' });
    assertError(response, 422, 'Validation failed');
    const fields = response.data.errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes('detection.selection.Image|endswith'), response.body);
    assert.ok(!fields.some((f: string) => f.startsWith('detection.filter')), 'User is mapped');
    const mapped = await admin.patch(`/api/index_patterns/${(await admin.get('/api/index_patterns?search=strict')).data.items[0].id}`, {
      field_mappings: [
        { sigma_field: 'User', target_field: 'user.name' },
        { sigma_field: 'Image', target_field: 'process.executable' },
      ],
    });
    assert.equal(mapped.statusCode, 200, mapped.body);
    const created = await analyst.post('/api/rules', { yaml_content: sigma(), index_pattern: 'strict' });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.data.index_pattern, 'strict');
  });

  test('documents over 1 MiB and YAML alias bombs are 400', async () => {
    const before = await ruleTotal();
    const padding = `# ${'x'.repeat(1024 * 1024)}\n`;
    const big = await analyst.post('/api/rules', { yaml_content: sigma() + padding });
    assert.equal(big.statusCode, 400, big.body.slice(0, 500));
    // Under a million characters but over 1 MiB of UTF-8.
    const wide = await analyst.post('/api/rules', { yaml_content: `${sigma()}# ${'é'.repeat(600 * 1024)}\n` });
    assert.equal(wide.statusCode, 400, wide.body.slice(0, 500));
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
      'h: [*g,*g,*g,*g,*g,*g,*g,*g,*g]',
    ].join('\n');
    const aliases = await analyst.post('/api/rules', { yaml_content: `${sigma()}${bomb}\n` });
    assert.equal(aliases.statusCode, 400, aliases.body);
    assert.equal(await ruleTotal(), before);
  });

  test('regexes: RE2-safe ones are accepted, lookaround and backreferences are 422 with a path', async () => {
    const safe = await analyst.post('/api/rules', { yaml_content: sigma({ detection: "  selection:\n    CommandLine|re: '(a+)+$'\n  condition: selection" }) });
    assert.equal(safe.statusCode, 201, safe.body);
    const test = await analyst.post(`/api/rules/${safe.data.id}/test`, { sample_log: { CommandLine: `${'a'.repeat(50_000)}!` } });
    assert.equal(test.statusCode, 200, test.body);
    assert.equal(test.data.matches, false);
    for (const re of ['(?=evil)evil', '(?<!x)y', '(a)\\1']) {
      const response = await analyst.post('/api/rules', { yaml_content: sigma({ detection: `  selection:\n    CommandLine|re: '${re}'\n  condition: selection` }) });
      assertError(response, 422, 'Validation failed');
      assert.ok(
        response.data.errors.some((e: { field: string }) => e.field === 'detection.selection.CommandLine|re'),
        `${re}: ${response.body}`,
      );
    }
  });

  test('malformed bodies are 400; viewers 403; anonymous 401', async () => {
    assert.equal((await analyst.post('/api/rules', {})).statusCode, 400);
    assert.equal((await analyst.post('/api/rules', { yaml_content: 42 })).statusCode, 400);
    assert.equal((await analyst.post('/api/rules', { yaml_content: sigma(), deploy: 'yes' })).statusCode, 400);
    assertError(await viewer.post('/api/rules', { yaml_content: sigma() }), 403, 'Not enough permissions');
    assertError(await anonymous(ctx.service).post('/api/rules', { yaml_content: sigma() }), 401, 'Could not validate credentials');
  });
});
