// The official Python Elasticsearch client (Debian's python3-elasticsearch, 7.17), a real client with
// the product check of 7.14+: info() reads the root document, helpers.bulk ships a log file with Basic
// credentials, and a delete action comes back as a per-item error the client reports.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MARKER, logLines, missing, stage, type Stage } from './harness.js';
import { countRows } from '../rules/fixtures.js';

const PYTHON = '/usr/bin/python3';
const CLIENT = '/usr/lib/python3/dist-packages/elasticsearch/__init__.py';
const reason = missing("Debian's python3-elasticsearch", [PYTHON, CLIENT]);

const SCRIPT = `
import json, sys
from elasticsearch import Elasticsearch, helpers
from elasticsearch.helpers import BulkIndexError
url, token, path = sys.argv[1:4]
es = Elasticsearch([url], http_auth=("python", token))
info = es.info()
with open(path) as f:
    docs = [{"_op_type": "create", "_index": "python-test", "_source": {"message": line.rstrip("\\n")}} for line in f]
ok, errors = helpers.bulk(es, docs, chunk_size=150)
try:
    helpers.bulk(es, [{"_op_type": "delete", "_index": "python-test", "_id": "1"}])
    refused = None
except BulkIndexError as e:
    refused = e.errors[0]["delete"]["status"]
print(json.dumps({"version": info["version"]["number"], "ok": ok, "errors": errors, "refused": refused}))
`;

describe('the official Python Elasticsearch client ships to the Elasticsearch-compatible receiver', { skip: reason }, () => {
  const lines = logLines(450, 9, 'python');
  let run: Stage;

  before(async () => {
    run = await stage('pyclient');
  });
  after(async () => {
    await run?.close();
  });

  test('info() passes the product check, helpers.bulk stores every line once with its alerts, delete is refused per item', async () => {
    assert.ok(existsSync(PYTHON));
    const file = join(run.dir, 'app.log');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const script = join(run.dir, 'ship.py');
    writeFileSync(script, SCRIPT);
    // The client runs in its own process while this one serves it.
    const child = spawn(PYTHON, [script, run.esUrl, run.pattern.ingest_token, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    clearTimeout(timer);
    assert.equal(code, 0, out);
    const result = JSON.parse(out.trim().split('\n').pop()!);
    assert.deepEqual(result, { version: '8.19.0', ok: lines.length, errors: [], refused: 400 });
    const marked = lines.filter((l) => l.includes(MARKER)).length;
    assert.equal(await countRows(run.service, 'events WHERE index_pattern_id = $1', [run.pattern.id]), lines.length);
    assert.equal(await countRows(run.service, 'alerts WHERE index_pattern_id = $1', [run.pattern.id]), marked);
  });
});
