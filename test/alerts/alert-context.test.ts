// GET /api/alerts/{id}/context: the rule as its YAML describes it (description, false positives,
// references, author, ATT&CK techniques with their pages; null once the rule is deleted) and the
// related alerts (same host, user or source IP, events within an hour, nearest first, saying what they share).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, createRule, ingest, NIL_UUID, setUpTeam, type CreatedPattern, type Json } from '../rules/fixtures.js';

const RULE = `title: Credential Dump Tool
status: test
description: A known credential dumping tool ran.
author: Vigil tests
references:
  - https://example.org/dumping
falsepositives:
  - Red team exercises
  - Administrators testing
tags:
  - attack.credential_access
  - attack.t1003.001
  - attack.t1003
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    Tool: dumper
  condition: selection
level: critical
`;

const OTHER = RULE.replace('title: Credential Dump Tool', 'title: Other Tool').replace('Tool: dumper', 'Tool: other');

describeEachDatabase('alert context', (ctx) => {
  let analyst: Client;
  let viewer: Client;
  let admin: Client;
  let pattern: CreatedPattern;
  const ids: Record<string, string> = {};

  before(async () => {
    ({ admin, analyst, viewer, pattern } = await setUpTeam(ctx.service, 'cody', 'cara', { name: 'win', is_default: true }));
    await createRule(analyst, { yaml_content: RULE, deploy: true });
    await createRule(analyst, { yaml_content: OTHER, deploy: true });
    const events = {
      main: { Tool: 'dumper', Computer: 'ws-1', User: 'ann', '@timestamp': '2026-11-10T12:00:00Z' },
      sameHost: { Tool: 'other', Computer: 'ws-1', User: 'bob', '@timestamp': '2026-11-10T12:30:00Z' },
      sameUser: { Tool: 'other', Computer: 'ws-9', User: 'ann', '@timestamp': '2026-11-10T11:10:00Z' },
      later: { Tool: 'other', Computer: 'ws-1', User: 'ann', '@timestamp': '2026-11-10T14:00:00Z' },
      elsewhere: { Tool: 'other', Computer: 'ws-2', User: 'cy', '@timestamp': '2026-11-10T12:00:00Z' },
    };
    for (const [name, event] of Object.entries(events)) {
      assert.equal((await ingest(ctx.service, pattern, [event])).data.alerts_created, 1);
      const [row] = await ctx.service.db.query<{ id: string }>('SELECT id FROM alerts ORDER BY created_at DESC, id DESC LIMIT 1');
      ids[name] = row.id;
    }
  });

  test('the rule as its YAML says, with technique pages; the related alerts nearest first', async () => {
    const response = await viewer.get(`/api/alerts/${ids.main}/context`);
    assert.equal(response.statusCode, 200, response.body);
    const { rule, related } = response.data as Json;
    assert.equal(rule.title, 'Credential Dump Tool');
    assert.equal(rule.description, 'A known credential dumping tool ran.');
    assert.equal(rule.author, 'Vigil tests');
    assert.deepEqual(rule.false_positives, ['Red team exercises', 'Administrators testing']);
    assert.deepEqual(rule.references, ['https://example.org/dumping']);
    assert.deepEqual(rule.techniques, [
      { id: 'T1003.001', url: 'https://attack.mitre.org/techniques/T1003/001/' },
      { id: 'T1003', url: 'https://attack.mitre.org/techniques/T1003/' },
    ]);
    assert.deepEqual(related.map((r: Json) => [r.id, r.shared]), [[ids.sameHost, ['host']], [ids.sameUser, ['user']]]);
    assert.equal(related[0].rule_title, 'Other Tool');
  });

  test('a deleted rule leaves its alerts without rule context; an unknown alert is 404', async () => {
    const [{ rule_id }] = await ctx.service.db.query<{ rule_id: string }>('SELECT rule_id FROM alerts WHERE id = $1', [ids.elsewhere]);
    assert.equal((await admin.delete(`/api/rules/${rule_id}`)).statusCode, 204);
    const response = await analyst.get(`/api/alerts/${ids.elsewhere}/context`);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.rule, null);
    assert.deepEqual(response.data.related, []);
    assertError(await viewer.get(`/api/alerts/${NIL_UUID}/context`), 404, 'Alert not found');
    assertError(await viewer.get('/api/alerts/nope/context'), 404, 'Alert not found');
  });
});
