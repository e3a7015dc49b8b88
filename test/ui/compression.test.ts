// The web UI's files go out compressed by the request's Accept-Encoding, from the copies the build
// wrote (brotli, gzip), through a real `vigil serve` over real HTTP: the decoded bytes are the built
// file's, Content-Length counts what is sent, Vary names Accept-Encoding, and the security headers stay.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { UI_ROOT } from '../../src/web/ui-routes.js';
import { startServer, type RunningServer } from './browser.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One GET with these headers, the body exactly as it came over the wire (fetch would decode it). */
function get(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** The built UI's own files (not the compressed copies), as URL paths. */
function builtFiles(dir = UI_ROOT): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return builtFiles(path);
    return /\.(br|gz)$/.test(name) ? [] : [`/${relative(UI_ROOT, path)}`];
  });
}

const DECODE: Record<string, (data: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };

function assertAnswer(answer: RawAnswer, expected: Buffer, coding: string | undefined, label: string) {
  assert.equal(answer.status, 200, label);
  assert.equal(answer.headers['content-encoding'], coding, label);
  assert.match(String(answer.headers.vary), /(^|,\s*)accept-encoding(\s*,|$)/i, `${label}: Vary`);
  assert.equal(Number(answer.headers['content-length']), answer.body.length, `${label}: Content-Length counts the bytes sent`);
  const decoded = coding ? DECODE[coding](answer.body) : answer.body;
  assert.ok(decoded.equals(expected), `${label}: decodes to the built file`);
  if (coding) assert.ok(answer.body.length < expected.length, `${label}: smaller than the file`);
  assert.equal(answer.headers['content-security-policy'], "default-src 'self'", label);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff', label);
  assert.equal(answer.headers['x-frame-options'], 'DENY', label);
  assert.equal(answer.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains', label);
}

describe('web UI compression', () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  test('the bundle is sent as brotli, as gzip or as it is, by Accept-Encoding', async () => {
    const files = builtFiles();
    const bundle = files.find((path) => /^\/assets\/index-.*\.js$/.test(path));
    assert.ok(bundle, `a JavaScript bundle among ${files.join(', ')}`);
    const expected = readFileSync(join(UI_ROOT, bundle));
    const cases: [Record<string, string>, string | undefined][] = [
      [{ 'accept-encoding': 'br' }, 'br'],
      [{ 'accept-encoding': 'gzip' }, 'gzip'],
      [{ 'accept-encoding': 'gzip, deflate, br, zstd' }, 'br'],
      [{ 'accept-encoding': 'br;q=0, gzip' }, 'gzip'],
      [{ 'accept-encoding': 'identity' }, undefined],
      [{}, undefined],
    ];
    for (const [headers, coding] of cases) {
      const answer = await get(server.url + bundle, headers);
      assertAnswer(answer, expected, coding, `${bundle} with ${JSON.stringify(headers)}`);
      assert.match(String(answer.headers['content-type']), /javascript/);
      assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
    }
  });

  test('every built file and the page at the UI routes are sent compressed when asked, with the same bytes', async () => {
    const index = readFileSync(join(UI_ROOT, 'index.html'));
    const targets: [string, Buffer][] = [
      ...builtFiles().map((path): [string, Buffer] => [path, readFileSync(join(UI_ROOT, path))]),
      ['/', index],
      ['/alerts', index],
      ['/rules/new?x=1', index],
    ];
    for (const [path, expected] of targets) {
      for (const coding of ['br', 'gzip', undefined]) {
        const answer = await get(server.url + path, coding ? { 'accept-encoding': coding } : {});
        assertAnswer(answer, expected, coding, `${path} (${coding ?? 'identity'})`);
      }
    }
  });

  test('the compressed copies have no addresses of their own', async () => {
    for (const path of builtFiles()) {
      for (const ext of ['.br', '.gz']) assert.equal((await get(server.url + path + ext, {})).status, 404, path + ext);
    }
  });
});
