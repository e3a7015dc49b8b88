// The web UI is served by the API server: its files at /, index.html for its own pages (a reload of
// /alerts/<id>), never for /api paths or missing files, with the security headers of every answer.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/server.js';
import { openTestPglite, type TestDatabase } from '../helpers/databases.js';

const INDEX = '<!doctype html><html lang="en"><head><script type="module" src="/assets/app-1234.js"></script></head><body><div id="root"></div></body></html>';

describe('web UI serving', () => {
  let dir: string;
  let testDb: TestDatabase;
  let service: Service;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-ui-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log("ui");');
    testDb = await openTestPglite();
    service = await createService(loadConfig({ ADMIN_PASSWORD: 'admin-password-for-tests', DATA_DIR: '/nonexistent-test-dir' }), { db: testDb.db, uiRoot: dir });
  });

  after(async () => {
    await service.close();
    await testDb.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, method: 'GET' | 'HEAD' | 'POST' = 'GET') => service.app.inject({ method, url });

  function assertHeaders(res: Awaited<ReturnType<typeof get>>, label: string) {
    assert.equal(res.headers['content-security-policy'], "default-src 'self'", label);
    assert.equal(res.headers['x-frame-options'], 'DENY', label);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
    assert.equal(res.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains', label);
  }

  test('/ answers the page without credentials, with the security headers', async () => {
    const res = await get('/');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.body, INDEX);
    assertHeaders(res, '/');
  });

  test('a page of the UI (any GET outside /api without a file extension) answers index.html', async () => {
    for (const path of ['/alerts', '/alerts/0b7d3f9e-4b8f-4c55-9a39-3b1f7f0f2d11', '/rules/new?x=1', '/settings/api-keys']) {
      const res = await get(path);
      assert.equal(res.statusCode, 200, path);
      assert.equal(res.body, INDEX, path);
      assertHeaders(res, path);
    }
    assert.equal((await get('/alerts', 'HEAD')).statusCode, 200);
  });

  test('bundle files are served with their type and a long cache; the page itself is not stored', async () => {
    const js = await get('/assets/app-1234.js');
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /javascript/);
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assertHeaders(js, 'asset');
    assert.equal((await get('/')).headers['cache-control'], 'no-store');
    assert.equal((await get('/alerts')).headers['cache-control'], 'no-store');
    // A revalidation answers 304 with the same caching as the file's 200 (RFC 9111 §4.3.4).
    const again = await service.app.inject({ method: 'GET', url: '/assets/app-1234.js', headers: { 'if-none-match': String(js.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.headers['cache-control'], 'public, max-age=31536000, immutable');
  });

  test('/api paths, missing files and other methods never get the page', async () => {
    const api = await get('/api/nowhere');
    assert.equal(api.statusCode, 404);
    assert.deepEqual(JSON.parse(api.body), { detail: 'Not Found', status_code: 404 });
    const apiRoot = await get('/api');
    assert.equal(apiRoot.statusCode, 404);
    assert.match(String(apiRoot.headers['content-type']), /json/);
    const missing = await get('/assets/app-0000.js');
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /json/);
    const post = await get('/alerts', 'POST');
    assert.equal(post.statusCode, 404);
    assertHeaders(post, 'POST');
    // The API itself still asks for credentials.
    assert.equal((await get('/api/alerts')).statusCode, 401);
  });
});

describe('without a built UI', () => {
  test('/ is a JSON 404 like any unknown path', async () => {
    const testDb = await openTestPglite();
    const service = await createService(loadConfig({ ADMIN_PASSWORD: 'admin-password-for-tests', DATA_DIR: '/nonexistent-test-dir' }), {
      db: testDb.db,
      uiRoot: join(tmpdir(), 'vigil-no-ui-here'),
    });
    try {
      const res = await service.app.inject({ method: 'GET', url: '/' });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(JSON.parse(res.body), { detail: 'Not Found', status_code: 404 });
    } finally {
      await service.close();
      await testDb.drop();
    }
  });
});
