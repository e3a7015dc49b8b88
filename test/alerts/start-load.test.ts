// At start the stored queries load in the background while the service already answers; an event
// that arrives meanwhile waits for them, so it is matched against every deployed rule, never a part.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/server.js';
import { openTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { ADMIN_PASSWORD, anonymous, loginAdmin } from '../helpers/service.js';
import { createPattern, equalsRule, ingest, type CreatedPattern } from '../rules/fixtures.js';

const RULES = 400;

describe('stored queries loading at start', () => {
  let testDb: TestDatabase;
  let service: Service | undefined;
  let pattern: CreatedPattern;
  const config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir' });

  before(async () => {
    testDb = await openTestDatabase('pglite');
    const first = await createService(config, { db: testDb.db });
    const admin = await loginAdmin(first);
    pattern = await createPattern(admin, { name: 'restart' });
    const yaml = Array.from({ length: RULES }, (_, i) => equalsRule(`Rule ${i}`, 'Image', `tool-${i}.exe`)).join('---\n');
    const imported = await admin.service.app.inject({
      method: 'POST',
      url: '/api/rules/import?deploy=true&index_pattern=restart',
      payload: yaml,
      headers: { authorization: `Bearer ${admin.token}`, 'x-csrf-token': admin.csrf!, 'content-type': 'application/yaml' },
    });
    assert.equal(JSON.parse(imported.body).deployed, RULES, imported.body.slice(0, 300));
    await first.close();
  });
  after(async () => {
    await service?.close();
    await testDb?.drop();
  });

  test('right after a restart, health answers and an event matches the last rule deployed', async () => {
    service = await createService(config, { db: testDb.db });
    const [health, sent] = await Promise.all([
      anonymous(service).get('/api/health'),
      ingest(service, pattern, [{ Image: `tool-${RULES - 1}.exe` }, { Image: 'tool-0.exe' }]),
    ]);
    assert.equal(health.statusCode, 200);
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(sent.data.alerts_created, 2);
  });
});
