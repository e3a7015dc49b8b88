// rsyslog, a real one (Debian's rsyslog with omelasticsearch, installed by scripts/shippers-up.sh),
// reads a log file with imfile and ships it in bulk mode to /api/es with the ingest token as the Basic
// password: every line is stored once in the token's index pattern and the marked lines raise alerts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MARKER, arrivals, logLines, missing, multiarchLib, stage, startShipper, type Shipper, type Stage } from './harness.js';

const RSYSLOGD = '/usr/sbin/rsyslogd';
const reason = missing('rsyslog with omelasticsearch', [RSYSLOGD, multiarchLib('rsyslog/omelasticsearch.so')]);

describe('rsyslog ships a file to the Elasticsearch-compatible receiver', { skip: reason }, () => {
  const lines = logLines(300, 7, 'rsyslog');
  let run: Stage;
  let shipper: Shipper | undefined;

  before(async () => {
    run = await stage('rsyslog');
    const file = join(run.dir, 'app.log');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const conf = join(run.dir, 'rsyslog.conf');
    writeFileSync(
      conf,
      `global(workDirectory="${run.dir}")
module(load="imfile")
module(load="omelasticsearch")
template(name="vigil-json" type="list" option.jsonf="on") {
  property(outname="@timestamp" name="timereported" dateFormat="rfc3339" format="jsonf")
  property(outname="host" name="hostname" format="jsonf")
  property(outname="program" name="programname" format="jsonf")
  property(outname="message" name="msg" format="jsonf")
}
ruleset(name="ship") {
  action(type="omelasticsearch" server="${run.esUrl}" searchIndex="rsyslog-test" template="vigil-json"
         bulkmode="on" uid="rsyslog" pwd="${run.pattern.ingest_token}" esVersion.major="8"
         errorfile="${join(run.dir, 'es-errors.json')}")
}
input(type="imfile" File="${file}" Tag="app" ruleset="ship" freshStartTail="off")
`,
    );
    shipper = startShipper(RSYSLOGD, ['-n', '-f', conf, '-i', join(run.dir, 'rsyslogd.pid')]);
  });
  after(async () => {
    shipper?.stop();
    await run?.close();
  });

  test('every line is stored once and each marked line raises one alert', async () => {
    const marked = lines.filter((l) => l.includes(MARKER)).length;
    const seen = await arrivals(run, lines.length, marked, shipper!);
    assert.deepEqual(seen, { events: lines.length, alerts: marked }, shipper!.output());
    const [event] = await run.service.db.query<{ event: Record<string, unknown> }>(
      `SELECT event FROM events WHERE index_pattern_id = $1 AND event->>'message' = $2`,
      [run.pattern.id, lines[0]],
    );
    assert.equal(event.event._index, 'rsyslog-test');
    assert.equal(event.event.program, 'app');
    const alerts = await run.service.db.query<{ rule_title: string; event: { message: string } }>('SELECT rule_title, event FROM alerts WHERE index_pattern_id = $1', [run.pattern.id]);
    assert.ok(alerts.every((a) => a.rule_title === 'Shipped Evil Command' && a.event.message.includes(MARKER)));
  });
});
