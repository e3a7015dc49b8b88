// The official Go Elasticsearch client (go-elasticsearch, which the OpenTelemetry Collector's
// elasticsearch exporter builds on), in a small shipper built by scripts/shippers-up.sh: it passes the
// client's product check, ships a log file through the BulkIndexer to /api/es/{index}/_bulk with Basic
// credentials, and every line is stored once with its alerts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MARKER, SHIPPERS_DIR, arrivals, logLines, missing, stage, startShipper, type Shipper, type Stage } from './harness.js';

const BINARY = join(SHIPPERS_DIR, 'go-es-client', 'vigil-es-ship');
const reason = missing('the Go Elasticsearch client shipper', [BINARY]);

describe('the official Go Elasticsearch client ships a file to the Elasticsearch-compatible receiver', { skip: reason }, () => {
  const lines = logLines(400, 8, 'go-client');
  let run: Stage;
  let shipper: Shipper | undefined;

  before(async () => {
    run = await stage('goclient');
    const file = join(run.dir, 'app.log');
    writeFileSync(file, `${lines.join('\n')}\n`);
    shipper = startShipper(BINARY, [run.esUrl, 'go-client', run.pattern.ingest_token, 'go-client-test', file]);
  });
  after(async () => {
    shipper?.stop();
    await run?.close();
  });

  test('the product check passes, every line is stored once and each marked line raises one alert', async () => {
    const marked = lines.filter((l) => l.includes(MARKER)).length;
    const seen = await arrivals(run, lines.length, marked, shipper!);
    assert.deepEqual(seen, { events: lines.length, alerts: marked }, shipper!.output());
    const code = shipper!.child.exitCode ?? (await new Promise<number | null>((done) => shipper!.child.once('exit', (c) => done(c))));
    assert.equal(code, 0, shipper!.output());
    assert.match(shipper!.output(), new RegExp(`added=${lines.length} flushed=${lines.length} failed=0`));
  });
});
