// Request bodies whose bytes are not UTF-8 are refused with 400 `The body is not valid UTF-8`, never
// read with U+FFFD in place of the bad bytes and stored so: JSON bodies on every route, and the YAML
// text of a rule import.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, countRows, equalsRule, setUpTeam, type Json } from '../rules/fixtures.js';

/** `text` with the bytes 0xC3 0x28 (a two-byte sequence cut short) where `@` stands. */
const withBadBytes = (text: string) => {
  const [head, tail] = text.split('@');
  return Buffer.concat([Buffer.from(head), Buffer.from([0xc3, 0x28]), Buffer.from(tail)]);
};

describeEachDatabase('request bodies that are not UTF-8', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'uma', 'ulla', { name: 'utf8-bodies', is_default: true }));
  });

  async function inject(client: Client, method: 'POST' | 'PATCH', url: string, body: Buffer, type: string) {
    const response = await client.service.app.inject({ method, url, payload: body, headers: { authorization: `Bearer ${client.token}`, 'x-csrf-token': client.csrf!, 'content-type': type } });
    return Object.assign(response, { data: JSON.parse(response.body) as Json });
  }

  test('JSON bodies: 400 on index patterns, rules and users; nothing stored', async () => {
    assertError(await inject(admin, 'POST', '/api/index_patterns', withBadBytes('{"name":"utf8-bad","description":"caf@"}'), 'application/json'), 400, 'The body is not valid UTF-8');
    assert.equal(await countRows(ctx.service, 'index_patterns WHERE name = $1', ['utf8-bad']), 0);
    const yaml = JSON.stringify({ yaml_content: equalsRule('Utf8 bad @', 'Image', 'x.exe') });
    assertError(await inject(analyst, 'POST', '/api/rules', withBadBytes(yaml), 'application/json; charset=utf-8'), 400, 'The body is not valid UTF-8');
    assert.equal(await countRows(ctx.service, 'rules WHERE title LIKE $1', ['Utf8 bad%']), 0);
    assertError(await inject(admin, 'POST', '/api/users', withBadBytes('{"username":"utf8","password":"long-password-@-x","role":"viewer"}'), 'application/json'), 400, 'The body is not valid UTF-8');
    // Valid multi-byte text still goes through.
    const fine = await inject(admin, 'POST', '/api/index_patterns', Buffer.from('{"name":"utf8-fine","description":"café ✓ 😀"}'), 'application/json');
    assert.equal(fine.statusCode, 201, fine.body);
    assert.equal(fine.data.description, 'café ✓ 😀');
  });

  test('rule import: YAML text that is not UTF-8 is a 400; nothing is created', async () => {
    const text = `---\n${equalsRule('Utf8 import good', 'Image', 'a.exe')}---\n${equalsRule('Utf8 import @', 'Image', 'b.exe')}`;
    assertError(await inject(analyst, 'POST', '/api/rules/import', withBadBytes(text), 'application/yaml'), 400, 'The body is not valid UTF-8');
    assert.equal(await countRows(ctx.service, 'rules WHERE title LIKE $1', ['Utf8 import%']), 0);
  });
});
