// Text the database cannot store (a lone UTF-16 surrogate such as "\ud800", a NUL character) is
// refused with a 4xx naming the field on every route family that stores JSON input: index patterns,
// rule exceptions, rules (JSON fields and escapes inside the rule YAML), rule testing, alerts, feeds.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, countRows, createRule, equalsRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';

const LONE = '\ud800';
const LONE_LOW = 'x\udfffy';

/** The answer is a 4xx naming `field` (exactly, or by a prefix such as `body.field_mappings.0`). */
function assertNamesField(response: { statusCode: number; body: string; data: { errors?: { field: string; message: string }[] } }, status: number, field: string): void {
  assert.equal(response.statusCode, status, response.body);
  const errors = response.data.errors ?? [];
  assert.ok(
    errors.some((e) => e.field === field && /surrogate|NUL/i.test(e.message)),
    `expected an error naming ${field}: ${response.body}`,
  );
}

describeEachDatabase('unstorable text in JSON bodies', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let pattern: CreatedPattern;
  let ruleId: string;

  before(async () => {
    ({ admin, analyst, pattern } = await setUpTeam(ctx.service, 'tara', 'tess', { name: 'text-checks', is_default: true }));
    ruleId = (await createRule(analyst, { yaml_content: equalsRule('Text rule', 'Image', 'text.exe'), deploy: true })).id;
  });

  test('index patterns: a lone surrogate in a create or update field answers 400 naming it; nothing is stored', async () => {
    assertNamesField(await admin.post('/api/index_patterns', { name: 'surrogate-desc', description: `bad ${LONE}` }), 400, 'body.description');
    assertNamesField(
      await admin.post('/api/index_patterns', { name: 'surrogate-map', field_mappings: [{ sigma_field: 'Image', target_field: `proc${LONE_LOW}` }] }),
      400,
      'body.field_mappings.0.target_field',
    );
    assert.equal(await countRows(ctx.service, 'index_patterns WHERE name LIKE $1', ['surrogate-%']), 0);
    assertNamesField(await admin.patch(`/api/index_patterns/${pattern.id}`, { timestamp_field: `ts${LONE}` }), 400, 'body.timestamp_field');
    assertNamesField(await admin.patch(`/api/index_patterns/${pattern.id}`, { description: 'nul\u0000here' }), 400, 'body.description');
    const after = await admin.get(`/api/index_patterns/${pattern.id}`);
    assert.equal(after.data.timestamp_field, '@timestamp');
  });

  test('rule exceptions: a lone surrogate in the value, a list value, the field or the reason answers 400 naming it', async () => {
    const url = `/api/rules/${ruleId}/exceptions`;
    assertNamesField(await analyst.post(url, { field: 'User', operator: 'equals', value: `svc${LONE}` }), 400, 'body.value');
    assertNamesField(await analyst.post(url, { field: 'User', operator: 'equals', value: ['ok', LONE_LOW] }), 400, 'body.value.1');
    assertNamesField(await analyst.post(url, { field: `U${LONE}`, operator: 'equals', value: 'x' }), 400, 'body.field');
    assertNamesField(await analyst.post(url, { field: 'User', operator: 'equals', value: 'x', reason: LONE }), 400, 'body.reason');
    assert.equal(await countRows(ctx.service, 'rule_exceptions WHERE rule_id = $1', [ruleId]), 0);
    const created = await analyst.post(url, { field: 'User', operator: 'equals', value: 'fine' });
    assert.equal(created.statusCode, 201, created.body);
    assertNamesField(await analyst.patch(`${url}/${created.data.id}`, { value: `y${LONE}` }), 400, 'body.value');
    const listed = (await analyst.get(url)).data.items as { id: string; value: string }[];
    assert.equal(listed.find((e) => e.id === created.data.id)?.value, 'fine');
  });

  test('rules: a lone surrogate in yaml_content, title or change_reason answers 400 naming it', async () => {
    assertNamesField(await analyst.post('/api/rules', { yaml_content: equalsRule(`Raw ${LONE}`, 'Image', 'a.exe') }), 400, 'body.yaml_content');
    assertNamesField(await analyst.post('/api/rules', { yaml_content: equalsRule('Raw title', 'Image', 'a.exe'), title: `T${LONE}` }), 400, 'body.title');
    assertNamesField(await analyst.put(`/api/rules/${ruleId}`, { yaml_content: equalsRule('Text rule', 'Image', 'b.exe'), change_reason: LONE }), 400, 'body.change_reason');
  });

  test('rule YAML: a "\\ud800" or "\\0" escape in the rule answers 422 naming where it is, on create, update and test', async () => {
    const escapedTitle = sigma({ title: '"Escaped \\ud800 title"' });
    const created = await analyst.post('/api/rules', { yaml_content: escapedTitle });
    assertError(created, 422, 'Validation failed');
    assertNamesField(created, 422, 'title');
    const inDetection = sigma({ title: 'Escaped detection', detection: "  selection:\n    Image: \"a\\udc00b.exe\"\n  condition: selection" });
    assertNamesField(await analyst.post('/api/rules', { yaml_content: inDetection }), 422, 'detection.selection.Image');
    const nulListItem = `${sigma({ title: 'Escaped list item' })}falsepositives:\n  - "admin \\0 tools"\n`;
    assertNamesField(await analyst.post('/api/rules', { yaml_content: nulListItem }), 422, 'falsepositives[0]');
    const inKey = sigma({ title: 'Escaped key', detection: '  selection:\n    "Ima\\ud800ge": x\n  condition: selection' });
    assertNamesField(await analyst.post('/api/rules', { yaml_content: inKey }), 422, 'detection.selection');
    assert.equal(await countRows(ctx.service, 'rules WHERE title LIKE $1', ['Escaped%']), 0);
    assertNamesField(await analyst.put(`/api/rules/${ruleId}`, { yaml_content: escapedTitle }), 422, 'title');
    assertNamesField(await analyst.post('/api/rules/test', { yaml_content: escapedTitle, sample_log: { Image: 'x' } }), 422, 'title');
    const unchanged = await analyst.get(`/api/rules/${ruleId}`);
    assert.equal(unchanged.data.title, 'Text rule');
  });

  test('rule testing and alerts: a lone surrogate in a sample log, a status comment or a comment answers 400 naming it', async () => {
    assertNamesField(await analyst.post(`/api/rules/${ruleId}/test`, { sample_log: { Image: `text${LONE}.exe` } }), 400, 'body.sample_log.Image');
    const ingested = await ingest(ctx.service, pattern, { Image: 'text.exe' });
    assert.equal(ingested.statusCode, 200, ingested.body);
    const alerts = await analyst.get(`/api/alerts?rule_id=${ruleId}`);
    const alertId = alerts.data.items[0].id as string;
    assertNamesField(await analyst.post(`/api/alerts/${alertId}/comments`, { text: `note ${LONE}` }), 400, 'body.text');
    assertNamesField(await analyst.patch(`/api/alerts/${alertId}`, { status: 'acknowledged', comment: LONE_LOW }), 400, 'body.comment');
    assert.equal(await countRows(ctx.service, 'alert_comments WHERE alert_id = $1', [alertId]), 0);
    assert.equal((await analyst.get(`/api/alerts/${alertId}`)).data.status, 'new');
  });

  test('threat-intel feeds and users: a lone surrogate in a JSON field answers 400 naming it', async () => {
    assertNamesField(await admin.post('/api/threat_intel/feeds', { name: `feed${LONE}`, format: 'plain', type: 'ip', content: '203.0.113.7\n' }), 400, 'body.name');
    assertNamesField(await admin.post('/api/threat_intel/feeds', { name: 'feed', format: 'plain', type: 'ip', content: `203.0.113.7 ${LONE}\n` }), 400, 'body.content');
    assertNamesField(await admin.post('/api/users', { username: 'sam', password: `long-password-${LONE}`, role: 'viewer' }), 400, 'body.password');
  });
});
