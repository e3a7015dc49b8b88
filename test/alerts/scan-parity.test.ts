// The service and `vigil scan` agree: the SigmaHQ regression events sent through HTTP ingest to a
// pattern with every SigmaHQ rule deployed raise exactly the (rule, event) alerts that `vigil scan`
// reports for the same rules, preset and events. Runs on the embedded database (the matching is the
// same code on PostgreSQL; the storage suites cover it there).
// Reads the shared corpus.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { loginAdmin, startService, type Client, type TestService } from '../helpers/service.js';
import type { TestDatabase } from '../helpers/databases.js';
import { regressionCases, rulesRoot, yamlFiles } from '../sigma/corpus-helpers.js';
import { vigil } from '../cli/vigil-process.js';
import { createPattern, ingest, postBinary, type CreatedPattern } from '../rules/fixtures.js';

const RULE_DIRS = ['rules', 'rules-emerging-threats', 'rules-threat-hunting'];

/** JSON with keys sorted at every level (the database keeps an event's keys in its own order). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('alerts from ingest equal vigil scan matches (SigmaHQ rules, regression events, windows-thor)', () => {
  let service: TestService & { testDb: TestDatabase };
  let admin: Client;
  let pattern: CreatedPattern;
  let dir: string;
  const events = regressionCases().flatMap((c) => c.events);

  before(async () => {
    service = await startService('pglite');
    admin = await loginAdmin(service);
    pattern = await createPattern(admin, { name: 'parity', preset: 'windows-thor' });
    dir = mkdtempSync(join(tmpdir(), 'vigil-parity-'));
  });
  after(async () => {
    await service?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('same (Sigma rule id, event) pairs', async () => {
    const files: Record<string, Uint8Array> = {};
    for (const sub of RULE_DIRS) for (const path of yamlFiles(join(rulesRoot, sub))) files[relative(rulesRoot, path)] = readFileSync(path);
    const imported = await postBinary(admin, `/api/rules/import?index_pattern=${pattern.name}&deploy=true`, Buffer.from(zipSync(files, { level: 1 })));
    assert.equal(imported.statusCode, 200, imported.body.slice(0, 300));
    assert.ok(imported.data.deployed > 3000, `only ${imported.data.deployed} rules deployed`);

    const sent = await ingest(service, pattern, events);
    assert.equal(sent.statusCode, 200, sent.body.slice(0, 300));
    assert.equal(sent.data.rejected, 0, sent.body.slice(0, 300));

    // Alerts are per stored event: identical events are one event, so pairs are keyed by the event's text.
    const alerts = await service.db.query<{ sigma_id: string; event: Record<string, unknown> }>(
      'SELECT r.sigma_id, a.event FROM alerts a JOIN rules r ON r.id = a.rule_id',
    );
    const fromService = new Set(alerts.map((a) => `${a.sigma_id} ${canonical(a.event)}`));

    const eventsFile = join(dir, 'events.ndjson');
    writeFileSync(eventsFile, events.map((e) => JSON.stringify(e)).join('\n'));
    const scan = await vigil(['scan', ...RULE_DIRS.flatMap((sub) => ['--rules', join(rulesRoot, sub)]), '--events', eventsFile, '--pipeline', 'windows-thor']);
    assert.equal(scan.code, 0, scan.stderr.slice(-500));
    const fromScan = new Set(
      scan.stdout.trim().split('\n').filter(Boolean).map((line) => {
        const match = JSON.parse(line) as { event: number; rule_id: string };
        return `${match.rule_id} ${canonical(events[match.event])}`;
      }),
    );
    const onlyScan = [...fromScan].filter((k) => !fromService.has(k)).map((k) => k.slice(0, 120));
    const onlyService = [...fromService].filter((k) => !fromScan.has(k)).map((k) => k.slice(0, 120));
    console.log(`[pglite] ${events.length} events: ${fromService.size} alerts, ${fromScan.size} distinct scan matches`);
    assert.deepEqual({ onlyScan, onlyService }, { onlyScan: [], onlyService: [] });
    assert.ok(fromScan.size >= 100, `only ${fromScan.size} matches`);
  });
});
