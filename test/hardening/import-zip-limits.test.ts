// Rule import from a zip checks the sizes really inflated, not the ones the archive declares: an entry
// that inflates past 1 MiB or an archive past 64 MiB is refused with 413 as soon as it passes, and
// nothing is created; an entry that declares more than 1 MiB is reported as failed, the others are
// imported. On a real listener, health answers while a zip bomb is refused and while many rules are
// imported (written in small batches with pauses between them).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync, strToU8 } from 'fflate';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { countRows, createPattern, equalsRule, postBinary, userAs } from '../rules/fixtures.js';
import { loginAdmin } from '../helpers/service.js';
import { listening, probeHealthDuring, send } from './ingest-busy-probe.js';

/** Rewrites every entry's declared (uncompressed) size, in its local header and its central directory
 * record, as a hostile archive would. */
function declareSizes(zip: Uint8Array, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let i = 0; i + 30 < out.length; i++) {
    const signature = out.readUInt32LE(i);
    if (signature === 0x04034b50) out.writeUInt32LE(size, i + 22);
    else if (signature === 0x02014b50) out.writeUInt32LE(size, i + 24);
  }
  return out;
}

/** A YAML file of `bytes` bytes: a comment line padded with spaces (compresses to almost nothing). */
const padded = (bytes: number) => `# ${' '.repeat(bytes - 3)}\n`;

let seventy: Uint8Array | undefined;
/** A zip of 70 files just under 1 MiB each (about 80 KB), built once. */
function seventyMiB(): Uint8Array {
  if (!seventy) {
    const files: Record<string, Uint8Array> = {};
    const file = strToU8(padded(1024 * 1024 - 100));
    for (let i = 0; i < 70; i++) files[`r${String(i).padStart(3, '0')}.yml`] = file;
    seventy = zipSync(files, { level: 9 });
  }
  return seventy;
}

describeEachDatabase('rule import from hostile zips', (ctx) => {
  let analyst: Client;
  let base: string;
  const rules = () => countRows(ctx.service, 'rules', []);

  before(async () => {
    const admin = await loginAdmin(ctx.service);
    analyst = await userAs(admin, 'analyst', 'zip-analyst');
    await createPattern(admin, { name: 'zip-imports', is_default: true });
    base = await listening(ctx.service);
  });

  const importZip = (zip: Buffer, query = '') => postBinary(analyst, `/api/rules/import${query}`, zip);
  const importOverHttp = (zip: Buffer, query = '') => () =>
    send(`${base}/api/rules/import${query}`, {
      method: 'POST',
      body: zip,
      headers: { authorization: `Bearer ${analyst.token}`, 'x-csrf-token': analyst.csrf!, 'content-type': 'application/zip' },
    });

  test('an entry declaring a small size but inflating past 1 MiB is 413 naming the limit; nothing is created', async () => {
    const before = await rules();
    const zip = declareSizes(zipSync({ 'a.yml': strToU8(equalsRule('Fine', 'Image', 'fine.exe')), 'b.yml': strToU8(padded(3 * 1024 * 1024)) }, { level: 9 }), 100);
    assert.ok(zip.length < 200 * 1024, `${zip.length} bytes`);
    const answer = await importZip(zip);
    assert.equal(answer.statusCode, 413, answer.body);
    assert.equal(answer.data.detail, "The zip entry 'b.yml' expands to more than 1 MiB, the most one rule file may hold");
    assert.equal(answer.data.status_code, 413);
    assert.equal(await rules(), before);
  });

  test('entries under 1 MiB each but past 64 MiB together are 413 naming the limit, declared sizes or not', async () => {
    const before = await rules();
    const honest = seventyMiB();
    for (const zip of [Buffer.from(honest), declareSizes(honest, 10)]) {
      const answer = await importZip(zip);
      assert.equal(answer.statusCode, 413, answer.body);
      assert.equal(answer.data.detail, 'The zip expands to more than 64 MiB, the most one import may hold');
    }
    assert.equal(await rules(), before);
  });

  test('an entry that declares more than 1 MiB is reported as failed; the other rules are imported', async () => {
    const zip = Buffer.from(zipSync({ 'big.yml': strToU8(padded(2 * 1024 * 1024)), 'ok.yml': strToU8(equalsRule('Beside the big one', 'Image', 'beside.exe')) }));
    const answer = await importZip(zip);
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.data.created, 1);
    assert.deepEqual(answer.data.failed, [{ index: 0, path: 'big.yml', error: 'the file is larger than 1 MiB' }]);
  });

  test('not a zip, or a truncated one, is 400', async () => {
    assert.equal((await importZip(Buffer.from('this is not a zip'))).statusCode, 400);
    const zip = Buffer.from(zipSync({ 'a.yml': strToU8(equalsRule('Cut', 'Image', 'cut.exe')) }));
    const cut = await importZip(zip.subarray(0, 40));
    assert.equal(cut.statusCode, 400, cut.body);
    assert.match(cut.data.detail, /^Invalid zip archive/);
  });

  test('health answers while zip bombs are refused and while many rules are imported and deployed', async () => {
    const bomb = declareSizes(zipSync({ 'bomb.yml': strToU8(padded(3 * 1024 * 1024)) }, { level: 9 }), 100);
    for (const zip of [bomb, declareSizes(seventyMiB(), 10)]) {
      const refused = await probeHealthDuring(base, importOverHttp(zip));
      assert.equal(refused.result.status, 413, refused.result.text);
    }

    const files: Record<string, Uint8Array> = {};
    const total = 1500;
    for (let i = 0; i < total; i++) files[`rules/r${i}.yml`] = strToU8(equalsRule(`Many ${i}`, 'Image', `many-${i}.exe`));
    const before = await rules();
    const imported = await probeHealthDuring(base, importOverHttp(Buffer.from(zipSync(files)), '?deploy=true'));
    assert.equal(imported.result.status, 200, imported.result.text.slice(0, 300));
    assert.equal(imported.result.data.created, total);
    assert.ok(imported.answeredInFlight >= 1, `health answered ${imported.answeredInFlight} times while the import ran (${imported.polls} polls)`);
    assert.equal(await rules(), before + total);
  });
});
