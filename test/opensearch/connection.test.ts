// How the service reaches a cluster that is secured: https with a CA file it must trust, basic
// authentication or an API key. A small https front (self-signed certificate made with openssl, the
// credentials it checks) relays to the test node, as a secured cluster or a proxy before one would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSearchMissing, OPENSEARCH_TEST_URL, testIndices } from '../helpers/opensearch.js';
import { loginAdmin, startService } from '../helpers/service.js';

const missing = await openSearchMissing();

/** An https front that accepts one Authorization value and relays to the test node. */
async function secureFront(dir: string, authorization: string): Promise<{ server: Server; url: string; caFile: string }> {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const target = new URL(OPENSEARCH_TEST_URL);
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    if (req.headers.authorization !== authorization) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized","status":401}');
      return;
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile: cert };
}

describe('reaching a secured cluster', { skip: missing ?? false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-os-tls-'));
  const indices = testIndices();
  const basic = `Basic ${Buffer.from('vigil:s3cret-password').toString('base64')}`;
  let front: Awaited<ReturnType<typeof secureFront>>;
  before(async () => {
    front = await secureFront(dir, basic);
  });
  after(async () => {
    front?.server.close();
    rmSync(dir, { recursive: true, force: true });
    await indices.deleteAll();
  });

  async function healthWith(env: Record<string, string>): Promise<string> {
    const service = await startService('pglite', { SEARCH_BACKEND: 'opensearch', OPENSEARCH_INDEX_PREFIX: indices.prefix, OPENSEARCH_URL: front.url, ...env });
    try {
      return (await (await loginAdmin(service)).get('/api/health')).data.search_backend;
    } finally {
      await service.close();
    }
  }

  test('https with the CA file and the right credentials: available', async () => {
    assert.equal(await healthWith({ OPENSEARCH_CA_FILE: front.caFile, OPENSEARCH_USERNAME: 'vigil', OPENSEARCH_PASSWORD: 's3cret-password' }), 'ok');
  });

  test('a certificate it was not told to trust, or refused credentials: unavailable', async () => {
    assert.equal(await healthWith({ OPENSEARCH_USERNAME: 'vigil', OPENSEARCH_PASSWORD: 's3cret-password' }), 'unavailable');
    assert.equal(await healthWith({ OPENSEARCH_CA_FILE: front.caFile, OPENSEARCH_USERNAME: 'vigil', OPENSEARCH_PASSWORD: 'wrong' }), 'unavailable');
  });

  test('an API key is sent as ApiKey', async () => {
    const keyed = await secureFront(dir, 'ApiKey a2V5LWlkOmtleS1zZWNyZXQ=');
    try {
      const service = await startService('pglite', { SEARCH_BACKEND: 'opensearch', OPENSEARCH_INDEX_PREFIX: indices.prefix, OPENSEARCH_URL: keyed.url, OPENSEARCH_CA_FILE: keyed.caFile, OPENSEARCH_API_KEY: 'a2V5LWlkOmtleS1zZWNyZXQ=' });
      try {
        assert.equal((await (await loginAdmin(service)).get('/api/health')).data.search_backend, 'ok');
      } finally {
        await service.close();
      }
    } finally {
      keyed.server.close();
    }
  });
});
