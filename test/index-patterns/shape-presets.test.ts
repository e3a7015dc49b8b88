// Presets for real Windows event shapes at work in the service: events ingested as NXLog JSON or as
// Microsoft Sentinel WindowsEvent rows raise alerts from SigmaHQ rules written for Windows event logs,
// and a rule test on the same sample answers the same; the alert keeps the event as it was sent.
// Reads the shared corpus.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { createPattern, createRule, ingest, setUpTeam } from '../rules/fixtures.js';
import { rulesRoot } from '../sigma/corpus-helpers.js';

const PSEXEC_SERVICE = readFileSync(join(rulesRoot, 'rules/windows/builtin/system/service_control_manager/win_system_service_install_sysinternals_psexec.yml'), 'utf8');
const DOWNGRADE = readFileSync(join(rulesRoot, 'rules/windows/powershell/powershell_classic/posh_pc_downgrade_attack.yml'), 'utf8');

const nxlogService = (serviceName: string, imagePath: string) => ({
  EventTime: '2020-09-21 14:33:10',
  Hostname: 'WORKSTATION5.theshire.local',
  EventType: 'INFO',
  EventID: 7045,
  SourceName: 'Service Control Manager',
  Channel: 'System',
  Domain: 'NT AUTHORITY',
  AccountName: 'SYSTEM',
  Message: `A service was installed in the system.\r\n\r\nService Name:  ${serviceName}\r\nService File Name:  ${imagePath}`,
  ServiceName: serviceName,
  ImagePath: imagePath,
  ServiceType: 'user mode service',
  StartType: 'demand start',
});

const nxlogEngine = (engineVersion: string) => ({
  EventTime: '2020-09-21 14:40:02',
  Hostname: 'WORKSTATION6.theshire.local',
  EventID: 400,
  SourceName: 'PowerShell',
  Channel: 'Windows PowerShell',
  Message: `Engine state is changed from None to Available. \r\n\r\nDetails: \r\n\tNewEngineState=Available\r\n\tHostName=ConsoleHost\r\n\tHostVersion=5.1.17763.1\r\n\tHostApplication=powershell.exe -Version 2\r\n\tEngineVersion=${engineVersion}\r\n`,
});

const sentinelService = (serviceName: string, imagePath: string) => ({
  TimeGenerated: '2024-03-02T10:15:00.123Z',
  Computer: 'dc01.contoso.com',
  EventID: 7045,
  Channel: 'System',
  Provider: 'Service Control Manager',
  EventData: JSON.stringify({ ServiceName: serviceName, ImagePath: imagePath, ServiceType: 'user mode service', StartType: 'demand start', AccountName: 'LocalSystem' }),
  Type: 'WindowsEvent',
});

describeEachDatabase('presets for NXLog and Sentinel events', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'nia', 'ned', { name: 'shape-team' }));
  });

  test('NXLog JSON: service installs and classic PowerShell engine starts raise alerts', async () => {
    const p = await createPattern(admin, { name: 'nxlog', preset: 'nxlog-windows', logsource_scope: [{ product: 'windows' }] });
    const psexec = await createRule(analyst, { yaml_content: PSEXEC_SERVICE, index_pattern: 'nxlog', deploy: true });
    const downgrade = await createRule(analyst, { yaml_content: DOWNGRADE, index_pattern: 'nxlog', deploy: true });
    const events = [nxlogService('PSEXESVC', '%SystemRoot%\\PSEXESVC.exe'), nxlogService('Appinfo', 'C:\\Windows\\system32\\svchost.exe -k netsvcs'), nxlogEngine('2.0'), nxlogEngine('5.1.17763.1')];
    const response = await ingest(ctx.service, p, events);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.alerts_created, 2, response.body);
    const alerts = await ctx.service.db.query<{ rule_id: string; event: Record<string, unknown>; host: string | null }>('SELECT rule_id, event, host FROM alerts WHERE index_pattern = $1 ORDER BY rule_title', ['nxlog']);
    assert.deepEqual(alerts.map((a) => a.rule_id).sort(), [psexec.id, downgrade.id].sort());
    assert.deepEqual(alerts.find((a) => a.rule_id === psexec.id)?.event, events[0], 'the alert keeps the event as sent');
    const [times] = await ctx.service.db.query<{ event_time: Date }>('SELECT event_time FROM alerts WHERE rule_id = $1', [psexec.id]);
    assert.equal(times.event_time.toISOString(), '2020-09-21T14:33:10.000Z', "the event's own EventTime (no offset: UTC)");
    const tested = await analyst.post(`/api/rules/${downgrade.id}/test`, { sample_log: nxlogEngine('2.0') });
    assert.equal(tested.data.matches, true, tested.body);
  });

  test('Sentinel WindowsEvent rows: rules match on the decoded EventData', async () => {
    const p = await createPattern(admin, { name: 'sentinel', preset: 'sentinel-windows-event' });
    const rule = await createRule(analyst, { yaml_content: PSEXEC_SERVICE, index_pattern: 'sentinel', deploy: true });
    const response = await ingest(ctx.service, p, [sentinelService('PSEXESVC', '%SystemRoot%\\PSEXESVC.exe'), sentinelService('Appinfo', 'C:\\Windows\\system32\\svchost.exe -k netsvcs')]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await ctx.service.db.query<{ rule_id: string; matched_conditions: unknown; event_time: Date }>('SELECT rule_id, matched_conditions, event_time FROM alerts WHERE index_pattern = $1', ['sentinel']);
    assert.equal(alert.rule_id, rule.id);
    assert.equal(alert.event_time.toISOString(), '2024-03-02T10:15:00.123Z', "the row's TimeGenerated");
    const conditions = alert.matched_conditions as Array<Record<string, Record<string, unknown>>>;
    assert.deepEqual(conditions[0], { selection_eid: { Provider_Name: 'Service Control Manager', EventID: 7045 } });
    assert.equal(conditions[1].selection_service.ServiceName, 'PSEXESVC', 'a decoded EventData value');
  });
});
