// syslog-ng, a real one (Debian's syslog-ng with its http module, unpacked by scripts/shippers-up.sh),
// follows a log file and ships it with its elasticsearch-http() destination to /api/es/_bulk with the
// ingest token as the Basic password: every line is stored once and the marked lines raise alerts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MARKER, SHIPPERS_DIR, arrivals, logLines, missing, stage, startShipper, type Shipper, type Stage } from './harness.js';

const ROOT = join(SHIPPERS_DIR, 'syslog-ng', 'root');
const BINARY = join(ROOT, 'usr/sbin/syslog-ng');
const MODULES = join(ROOT, 'usr/lib/syslog-ng/3.38');
const SCL = join(ROOT, 'usr/share/syslog-ng/include/scl/elasticsearch/elastic-http.conf');
const reason = missing('syslog-ng with elasticsearch-http()', [BINARY, join(MODULES, 'libhttp.so'), SCL]);

describe('syslog-ng ships a file to the Elasticsearch-compatible receiver', { skip: reason }, () => {
  const lines = logLines(250, 5, 'syslog-ng');
  let run: Stage;
  let shipper: Shipper | undefined;

  before(async () => {
    run = await stage('syslogng');
    const file = join(run.dir, 'app.log');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const conf = join(run.dir, 'syslog-ng.conf');
    writeFileSync(
      conf,
      `@version: 3.38
@include "${SCL}"
options { stats_freq(0); };
source s_app { file("${file}" follow-freq(1) flags(no-parse)); };
destination d_vigil {
  elasticsearch-http(
    url("${run.esUrl}/_bulk")
    index("syslog-ng-test")
    type("")
    user("syslog-ng")
    password("${run.pattern.ingest_token}")
    batch_lines(50)
    workers(2)
    template("$(format-json --scope none message=\${MESSAGE} host=\${HOST} @timestamp=\${ISODATE})")
  );
};
log { source(s_app); destination(d_vigil); };
`,
    );
    shipper = startShipper(
      BINARY,
      ['-F', `--module-path=${MODULES}`, '-f', conf, '-p', join(run.dir, 'syslog-ng.pid'), '-R', join(run.dir, 'persist'), '-c', join(run.dir, 'ctl')],
      { LD_LIBRARY_PATH: join(ROOT, 'usr/lib/syslog-ng') },
    );
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
    assert.equal(event.event._index, 'syslog-ng-test');
    assert.equal(typeof event.event['@timestamp'], 'string');
  });
});
