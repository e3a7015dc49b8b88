// Syslog channels against a real receiver: Debian's rsyslog listening on UDP and TCP and writing each
// message it receives to a file. An alert raised by ingest arrives as an RFC 5424 line with the alert's
// fields as structured data (over UDP) and as a CEF line (over TCP, octet-counted framing); the test
// button sends a line at once.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../cli/vigil-process.js';
import { within } from '../helpers/instances.js';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { startShipper, type Shipper } from '../shippers/harness.js';

const RSYSLOGD = '/usr/sbin/rsyslogd';
const missing = existsSync(RSYSLOGD) ? undefined : `${RSYSLOGD} is not installed (apt-get install rsyslog, or scripts/shippers-up.sh)`;
if (missing && process.env.CI === 'true') throw new Error(`syslog tests cannot run in CI: ${missing}`);

describe('syslog notification channels', { skip: missing }, () => {
  let dir: string;
  let rsyslog: Shipper;
  let udpPort: number;
  let tcpPort: number;
  const lines = () => (existsSync(join(dir, 'received.log')) ? readFileSync(join(dir, 'received.log'), 'utf8').split('\n').filter(Boolean) : []);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-syslog-'));
    udpPort = await freePort();
    tcpPort = await freePort();
    writeFileSync(
      join(dir, 'rsyslog.conf'),
      `global(workDirectory="${dir}")
module(load="imudp")
module(load="imtcp")
template(name="raw" type="string" string="%rawmsg%\\n")
ruleset(name="keep") { action(type="omfile" file="${join(dir, 'received.log')}" template="raw") }
input(type="imudp" address="127.0.0.1" port="${udpPort}" ruleset="keep")
input(type="imtcp" address="127.0.0.1" port="${tcpPort}" ruleset="keep")
`,
    );
    rsyslog = startShipper(RSYSLOGD, ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslogd.pid')]);
  });
  after(() => {
    rsyslog?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describeEachDatabase(
    'to rsyslog',
    (ctx) => {
      let admin: Client;
      let pattern: CreatedPattern;

      before(async () => {
        admin = await loginAdmin(ctx.service);
        let analyst: Client;
        ({ analyst, pattern } = await setUpTeam(ctx.service, 'sam', 'sue', { name: 'win', is_default: true }));
        await createRule(analyst, { yaml_content: sigma({}), deploy: true });
      });

      test('the test button sends a line at once', async () => {
        const channel = await admin.post('/api/notification_channels', { name: `udp ${ctx.service.kind}`, type: 'syslog', config: { host: '127.0.0.1', port: udpPort, protocol: 'udp', format: 'rfc5424' } });
        assert.equal(channel.statusCode, 201, channel.body);
        // rsyslog may still be opening its ports: the test is sent until a line arrives.
        const arrived = await within(15_000, async () => {
          await admin.post(`/api/notification_channels/${channel.data.id}/test`);
          return lines().some((l) => l.includes(`Vigil test message for channel udp ${ctx.service.kind}`));
        });
        assert.ok(arrived !== null, rsyslog.output());
      });

      test('an alert arrives as RFC 5424 over UDP and as CEF over TCP', async () => {
        const tcp = await admin.post('/api/notification_channels', { name: `tcp ${ctx.service.kind}`, type: 'syslog', config: { host: '127.0.0.1', port: tcpPort, protocol: 'tcp', format: 'cef' } });
        assert.equal(tcp.statusCode, 201, tcp.body);
        const user = `user-${ctx.service.kind}`;
        const sent = await ingest(ctx.service, pattern, [{ '@timestamp': '2026-11-03T08:00:00Z', Image: 'C:\\Windows\\System32\\whoami.exe', User: user, Computer: 'ws-9' }]);
        assert.equal(sent.data.alerts_created, 1);
        const both = await within(15_000, async () => lines().filter((l) => l.includes(user)).length >= 2);
        assert.ok(both !== null, `${lines().join('\n')}\n${rsyslog.output()}`);
        const rfc = lines().find((l) => l.includes(user) && /^<\d+>1 /.test(l)) ?? lines().join('\n');
        assert.match(rfc, /^<\d+>1 \S+ \S+ vigil - alert \[vigil@32473 delivery_id="[0-9a-f-]{36}" alert_id="[0-9a-f-]{36}" rule="Whoami Execution" severity="high"/);
        assert.match(rfc, /host="ws-9"/);
        const cef = lines().find((l) => l.includes(user) && l.includes('CEF:0')) ?? lines().join('\n');
        assert.match(cef, /CEF:0\|Vigil\|Vigil\|1\|alert\|\[HIGH\] Whoami Execution\|8\|/);
        assert.match(cef, new RegExp(`dhost=ws-9 duser=${user}`));
      });
    },
    { NOTIFY_ALLOW_PRIVATE: 'true' },
  );
});
