// SigmaHQ regression cases: every case matches at least min_match_count (or 1) of its events with
// sigma-native, and with windows-thor (log source conditions) on the same events; and with winlogbeat-raw
// on the same events as Winlogbeat 8 ships them (system fields under winlog.*, the event's own under
// winlog.event_data, ids as text).
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

/** The System part of a flattened Windows event (windows-event.ts); the rest is the event's own data. */
const SYSTEM_FIELDS = new Set([
  'Provider_Name', 'Provider_Guid', 'EventID', 'Qualifiers', 'Version', 'Level', 'Task', 'Opcode', 'Keywords', 'TimeCreated_SystemTime',
  'EventRecordID', 'Correlation', 'Correlation_ActivityID', 'Correlation_RelatedActivityID', 'Execution_ProcessID', 'Execution_ThreadID',
  'Channel', 'Computer', 'Security_UserID',
]);

/** A flattened Windows event as Winlogbeat 8 ships it without ingest pipelines. */
function asWinlogbeat(event: Record<string, unknown>): object {
  const eventData = Object.fromEntries(Object.entries(event).filter(([k]) => !SYSTEM_FIELDS.has(k)));
  return {
    '@timestamp': event.TimeCreated_SystemTime,
    event: { code: String(event.EventID), provider: event.Provider_Name },
    host: { name: event.Computer },
    winlog: {
      event_id: String(event.EventID),
      channel: event.Channel,
      provider_name: event.Provider_Name,
      computer_name: event.Computer,
      record_id: event.EventRecordID,
      event_data: eventData,
    },
  };
}

test('regression cases match with winlogbeat-raw on the events as Winlogbeat ships them', () => {
  const failures: string[] = [];
  for (const c of cases) {
    const parsed = parseRule(readFileSync(join(rulesRoot, c.rule_path), 'utf8'));
    assert.ok(parsed.ok, c.rule_path);
    const compiled = compileRule(parsed.rule, getPreset('winlogbeat-raw'));
    if (!compiled.ok) {
      failures.push(`${c.rule_path}: compile ${JSON.stringify(compiled.errors)}`);
      continue;
    }
    const shipped = c.events.map((e) => asWinlogbeat(e as Record<string, unknown>));
    const n = shipped.filter((e) => compiled.matcher.match(e)).length;
    if (n < (c.min_match_count ?? 1)) failures.push(`${c.rule_path}: ${n} of ${c.events.length} matched`);
  }
  assert.deepEqual(failures, []);
});
