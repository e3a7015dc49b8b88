// Two service instances on one PostgreSQL database: a feed uploaded on A enriches alerts ingested on B
// within a couple of seconds, and its deletion on A stops enrichment on B as quickly. PostgreSQL only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { createService, type Service } from '../../src/server.js';
import { createPostgresDatabase, postgresUnavailable } from '../helpers/databases.js';
import { ADMIN_PASSWORD, loginAdmin, type Client } from '../helpers/service.js';
import { createPattern, createRule, equalsRule, ingest, type CreatedPattern } from '../rules/fixtures.js';
import { alertsFor, uploadFeed } from './helpers.js';

/** Polls `check` every 50 ms until it holds or `ms` pass; answers how long it took (or null). */
async function within(ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('threat-intel feeds across instances [postgres]', async () => {
  const reason = await postgresUnavailable();
  if (reason) {
    describe(`skipped: ${reason}`, { skip: reason }, () => {});
    return;
  }

  let database: { url: string; drop(): Promise<void> };
  const connections: Database[] = [];
  let a: Service;
  let b: Service;
  let adminA: Client;
  let pattern: CreatedPattern;
  let n = 0;

  before(async () => {
    database = await createPostgresDatabase();
    const first = await openPostgres(database.url);
    connections.push(first);
    await migrate(first);
    const config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir' });
    a = await createService(config, { db: first });
    const second = await openPostgres(database.url);
    connections.push(second);
    b = await createService(config, { db: second });
    adminA = await loginAdmin(a);
    pattern = await createPattern(adminA, { name: 'shared-intel' });
    await createRule(adminA, { yaml_content: equalsRule('Shared connection', 'action', 'connect'), index_pattern: 'shared-intel', deploy: true });
  });

  after(async () => {
    await a?.close();
    await b?.close();
    for (const db of connections) await db.close();
    await database?.drop();
  });

  /** Ingests a matching event on B carrying `ip` and answers the risk score of its alert. */
  async function riskOnB(ip: string): Promise<number | null> {
    const marker = `multi-${n++}`;
    const response = await ingest(b, pattern, [{ action: 'connect', case: marker, destination: { ip } }]);
    if (response.statusCode !== 200 || response.data.alerts_created !== 1) return -1;
    const [alert] = await alertsFor(b, marker);
    return alert?.risk_score ?? null;
  }

  test('a feed uploaded on A enriches alerts on B; its deletion on A stops that on B', async () => {
    // B raises alerts for the rule deployed on A before any feed exists.
    assert.notEqual(await within(2000, async () => (await riskOnB('198.18.0.1')) === null), null, 'B never raised the unenriched alert');
    const feed = await uploadFeed(adminA, { name: 'Shared C2', format: 'plain', type: 'cidr', content: '198.18.0.0/15\n', risk_score: 92 });
    const took = await within(2000, async () => (await riskOnB('198.18.0.1')) === 92);
    assert.notEqual(took, null, 'alerts on B were not enriched within two seconds of the upload on A');
    console.log(`[postgres] feed uploaded on A enriches on B after ${took} ms`);
    assert.equal((await adminA.delete(`/api/threat_intel/feeds/${feed.id}`)).statusCode, 204);
    const stopped = await within(2000, async () => (await riskOnB('198.18.0.1')) === null);
    assert.notEqual(stopped, null, 'B still enriched from the feed two seconds after its deletion on A');
  });

  test('a feed uploaded on B is listed on A at once and enriches on A within two seconds', async () => {
    const adminB = await loginAdmin(b);
    const feed = await uploadFeed(adminB, { name: 'From B', format: 'plain', type: 'ip', content: '198.18.9.9\n' });
    const listed = await adminA.get('/api/threat_intel/feeds');
    assert.ok(listed.data.items.some((f: { id: string }) => f.id === feed.id));
    const took = await within(2000, async () => a.context.enricher.enrich({ destination: { ip: '198.18.9.9' } }, {}) !== undefined);
    assert.notEqual(took, null);
  });
});
