// Each correlation type through the service (rules API, ingest, alerts): the threshold itself fires and
// one below does not, the window is [t − timespan, t] with both ends inclusive, events of one request are
// taken in event-time order, a missing group-by field is a group of its own (null), aliases read another
// field per rule, group-by fields go through the pattern's field mappings, and a correlation over a
// correlation fires on the inner one's firing.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { setUpTeam } from '../rules/fixtures.js';
import { alertsOf, at, correlation, detection, event, firedGroups, scenario, send } from './scenario.js';

describeEachDatabase('correlation types through the service', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'tina', 'tom', { name: 'types-default', is_default: true }));
  });

  test('event_count: the third event of a group within 1m fires (60 s apart is inside), 61 s apart or two events do not', async () => {
    const { pattern, detectionIds, correlationId } = await scenario(
      admin,
      analyst,
      [detection('ec_failed', { EventID: 4625 })],
      correlation({ title: 'Three failures', type: 'event_count', rules: ['ec_failed'], groupBy: ['User'], timespan: '1m', condition: { gte: 3 } }),
    );
    const failed = (seconds: number, User: string) => event(seconds, { EventID: 4625, User });
    const response = await send(ctx.service, pattern, [
      failed(0, 'inside'),
      failed(30, 'inside'),
      failed(60, 'inside'),
      failed(0, 'outside'),
      failed(30, 'outside'),
      failed(61, 'outside'),
      failed(10, 'below'),
      failed(20, 'below'),
      event(25, { EventID: 4624, User: 'below' }),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { User: 'inside' });
    assert.equal(alert.correlation.type, 'event_count');
    assert.equal(alert.correlation.rule_id, correlationId);
    assert.equal(alert.correlation.value, 3);
    assert.equal(alert.correlation.event_count, 3);
    assert.equal(alert.correlation.window_start, at(0));
    assert.equal(alert.correlation.window_end, at(60));
    assert.equal(new Set(alert.correlation.event_ids).size, 3);
    assert.equal(alert.user, 'inside', 'the entities are those of the newest contributing match');
    assert.equal((await alertsOf(ctx.service, detectionIds[0])).length, 0, 'without generate the base rule raises no alert');
  });

  test('value_count: three distinct users on one host fire; repeats of one user do not count', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('vc_logon', { EventID: 4624 })],
      correlation({ title: 'Many users on a host', type: 'value_count', rules: ['vc_logon'], groupBy: ['Computer'], timespan: '10m', condition: { field: 'User', gte: 3 } }),
    );
    const logon = (seconds: number, Computer: string, User: string) => event(seconds, { EventID: 4624, Computer, User });
    const response = await send(ctx.service, pattern, [
      logon(0, 'h1', 'alice'),
      logon(1, 'h1', 'alice'),
      logon(2, 'h1', 'bob'),
      logon(3, 'h1', 'bob'),
      logon(4, 'h1', 'carol'),
      logon(0, 'h2', 'alice'),
      logon(1, 'h2', 'bob'),
      logon(2, 'h2', 'bob'),
      logon(3, 'h2', 'alice'),
      event(4, { EventID: 4624, Computer: 'h2' }),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { Computer: 'h1' });
    assert.equal(alert.correlation.value, 3);
    assert.equal(alert.correlation.event_count, 5);
    assert.equal(alert.correlation.window_end, at(4));
  });

  test('value_count over a list of fields counts distinct combinations', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('vcl_conn', { Action: 'connect' })],
      correlation({ title: 'Many user-host pairs', type: 'value_count', rules: ['vcl_conn'], groupBy: ['Target'], timespan: '10m', condition: { field: ['User', 'Computer'], gte: 3 } }),
    );
    const conn = (seconds: number, Target: string, User: string, Computer: string) => event(seconds, { Action: 'connect', Target, User, Computer });
    const response = await send(ctx.service, pattern, [
      conn(0, 'db', 'alice', 'pc1'),
      conn(1, 'db', 'alice', 'pc2'),
      conn(2, 'db', 'alice', 'pc1'),
      conn(3, 'db', 'bob', 'pc1'),
      conn(0, 'web', 'alice', 'pc1'),
      conn(1, 'web', 'alice', 'pc1'),
      conn(2, 'web', 'bob', 'pc2'),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { Target: 'db' });
    assert.equal(alert.correlation.value, 3);
    assert.equal(alert.correlation.window_end, at(3));
  });

  test('temporal: all three rules seen in one group within 5m fire in any order; two of them, or the third 5m01s after the first, do not', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('t_a', { CommandLine: 'whoami' }), detection('t_b', { CommandLine: 'ipconfig' }), detection('t_c', { CommandLine: 'net user' })],
      correlation({ title: 'Recon any order', type: 'temporal', rules: ['t_a', 't_b', 't_c'], groupBy: ['Computer'], timespan: '5m' }),
    );
    const run = (seconds: number, Computer: string, CommandLine: string) => event(seconds, { Computer, CommandLine });
    const response = await send(ctx.service, pattern, [
      run(0, 'all', 'net user'),
      run(100, 'all', 'whoami'),
      run(300, 'all', 'ipconfig'),
      run(0, 'two', 'whoami'),
      run(10, 'two', 'whoami'),
      run(20, 'two', 'ipconfig'),
      run(0, 'late', 'whoami'),
      run(200, 'late', 'ipconfig'),
      run(301, 'late', 'net user'),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { Computer: 'all' });
    assert.equal(alert.correlation.value, 3);
    assert.equal(alert.correlation.window_start, at(0));
    assert.equal(alert.correlation.window_end, at(300));
  });

  test('temporal_ordered: the rules in their order fire (stray matches between them do not matter); the reverse order does not', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('o_a', { CommandLine: 'whoami' }), detection('o_b', { CommandLine: 'ipconfig' }), detection('o_c', { CommandLine: 'net user' })],
      correlation({ title: 'Recon in order', type: 'temporal_ordered', rules: ['o_a', 'o_b', 'o_c'], groupBy: ['Computer'], timespan: '5m' }),
    );
    const run = (seconds: number, Computer: string, CommandLine: string) => event(seconds, { Computer, CommandLine });
    const response = await send(ctx.service, pattern, [
      run(0, 'ordered', 'whoami'),
      run(10, 'ordered', 'ipconfig'),
      run(20, 'ordered', 'net user'),
      run(0, 'reversed', 'net user'),
      run(10, 'reversed', 'ipconfig'),
      run(20, 'reversed', 'whoami'),
      run(0, 'stray', 'ipconfig'),
      run(10, 'stray', 'whoami'),
      run(20, 'stray', 'ipconfig'),
      run(30, 'stray', 'net user'),
    ]);
    assert.equal(response.data.alerts_created, 2, response.body);
    const alerts = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alerts.map((a) => a.correlation.group.Computer).sort(), ['ordered', 'stray']);
    const stray = alerts.find((a) => a.correlation.group.Computer === 'stray')!;
    assert.equal(stray.correlation.window_end, at(30));
    assert.equal(stray.correlation.type, 'temporal_ordered');
  });

  test('value_sum: bytes over a threshold within the window fire; exactly the threshold (gt) does not', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('vs_upload', { Action: 'upload' })],
      correlation({ title: 'Exfiltration', type: 'value_sum', rules: ['vs_upload'], groupBy: ['SourceIp'], timespan: '1h', condition: { field: 'BytesOut', gt: 1000 } }),
    );
    const upload = (seconds: number, SourceIp: string, BytesOut: number | string) => event(seconds, { Action: 'upload', SourceIp, BytesOut });
    const response = await send(ctx.service, pattern, [
      upload(0, '10.0.0.1', 400),
      upload(60, '10.0.0.1', '400'),
      upload(120, '10.0.0.1', 300),
      upload(0, '10.0.0.2', 500),
      upload(60, '10.0.0.2', 500),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { SourceIp: '10.0.0.1' });
    assert.equal(alert.correlation.value, 1100);
    assert.equal(alert.source_ip, '10.0.0.1');
  });

  test('value_avg: an average above the threshold fires; an average equal to it (gt) does not', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('va_flow', { Action: 'flow' })],
      correlation({ title: 'Big flows', type: 'value_avg', rules: ['va_flow'], groupBy: ['SourceIP'], timespan: '1h', condition: { field: 'BytesOut', gt: 500 } }),
    );
    const flow = (seconds: number, SourceIP: string, BytesOut: number) => event(seconds, { Action: 'flow', SourceIP, BytesOut });
    const response = await send(ctx.service, pattern, [flow(0, '10.0.0.1', 400), flow(60, '10.0.0.1', 700), flow(0, '10.0.0.2', 400), flow(60, '10.0.0.2', 600)]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { SourceIP: '10.0.0.1' });
    assert.equal(alert.correlation.value, 550);
  });

  test('events of one request are correlated in event-time order, whatever their order in the request', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('ooo_failed', { EventID: 4625 })],
      correlation({ title: 'Out of order', type: 'event_count', rules: ['ooo_failed'], groupBy: ['User'], timespan: '1m', condition: { gte: 3 } }),
    );
    const failed = (seconds: number) => event(seconds, { EventID: 4625, User: 'alice' });
    const response = await send(ctx.service, pattern, [failed(60), failed(0), failed(30)]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.equal(alert.correlation.window_start, at(0));
    assert.equal(alert.correlation.window_end, at(60));
    assert.equal(alert.correlation.value, 3);
  });

  test('events lacking the group-by field form the null group', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('null_failed', { EventID: 4625 })],
      correlation({ title: 'Null group', type: 'event_count', rules: ['null_failed'], groupBy: ['User'], timespan: '1m', condition: { gte: 2 } }),
    );
    const response = await send(ctx.service, pattern, [event(0, { EventID: 4625 }), event(1, { EventID: 4625, User: 'alice' }), event(2, { EventID: 4625 })]);
    assert.equal(response.data.alerts_created, 1, response.body);
    assert.deepEqual(await firedGroups(ctx.service, correlationId), [{ User: null }]);
  });

  test('aliases: a group-by alias reads destination.ip in one rule and source.ip in the other', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('al_inbound', { Direction: 'inbound' }), detection('al_outbound', { Direction: 'outbound' })],
      correlation({
        title: 'Inbound then outbound',
        type: 'temporal_ordered',
        rules: ['al_inbound', 'al_outbound'],
        aliases: { internal_ip: { al_inbound: 'destination.ip', al_outbound: 'source.ip' } },
        groupBy: ['internal_ip'],
        timespan: '10m',
      }),
    );
    const response = await send(ctx.service, pattern, [
      event(0, { Direction: 'inbound', source: { ip: '203.0.113.9' }, destination: { ip: '10.1.1.1' } }),
      event(10, { Direction: 'inbound', source: { ip: '203.0.113.9' }, destination: { ip: '10.1.1.2' } }),
      event(20, { Direction: 'outbound', source: { ip: '10.1.1.1' }, destination: { ip: '198.51.100.7' } }),
      event(30, { Direction: 'outbound', source: { ip: '10.1.1.3' }, destination: { ip: '198.51.100.7' } }),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { internal_ip: '10.1.1.1' });
    assert.equal(alert.correlation.window_start, at(0));
    assert.equal(alert.correlation.window_end, at(20));
  });

  // Group-by and value fields are Sigma field names, mapped like a detection's fields.
  test("group-by and value fields are Sigma field names mapped through the pattern's field mappings", async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('map_logon', { EventID: 4624 })],
      correlation({ title: 'Mapped fields', type: 'value_count', rules: ['map_logon'], groupBy: ['Computer'], timespan: '10m', condition: { field: 'User', gte: 2 } }),
      {
        field_mappings: [
          { sigma_field: 'EventID', target_field: 'winlog.event_id' },
          { sigma_field: 'Computer', target_field: 'host.name' },
          { sigma_field: 'User', target_field: 'user.name' },
        ],
      },
    );
    const logon = (seconds: number, host: string, user: string) => event(seconds, { winlog: { event_id: 4624 }, host: { name: host }, user: { name: user } });
    const response = await send(ctx.service, pattern, [logon(0, 'ws-1', 'alice'), logon(1, 'ws-2', 'alice'), logon(2, 'ws-1', 'bob')]);
    assert.equal(response.data.alerts_created, 1, response.body);
    assert.deepEqual(await firedGroups(ctx.service, correlationId), [{ Computer: 'ws-1' }]);
  });

  test('a chain: a success after a burst of failures (temporal_ordered over an event_count) fires once, reporting the base events', async () => {
    const { pattern, detectionIds, correlationId } = await scenario(
      admin,
      analyst,
      [
        detection('chain_failed', { EventID: 4625 }),
        detection('chain_success', { EventID: 4624 }),
        correlation({ title: 'Burst of failures', name: 'chain_burst', type: 'event_count', rules: ['chain_failed'], groupBy: ['User'], timespan: '10m', condition: { gte: 3 } }),
      ],
      correlation({ title: 'Success after a burst', type: 'temporal_ordered', rules: ['chain_burst', 'chain_success'], groupBy: ['User'], timespan: '10m' }),
    );
    const innerId = detectionIds[2];
    // Deploying the outer correlation deploys the detection rules the chain needs.
    for (const id of detectionIds.slice(0, 2)) assert.equal((await analyst.get(`/api/rules/${id}`)).data.status, 'deployed');
    const failed = (seconds: number, User: string) => event(seconds, { EventID: 4625, User });
    const success = (seconds: number, User: string) => event(seconds, { EventID: 4624, User });
    const response = await send(ctx.service, pattern, [
      failed(0, 'alice'),
      failed(10, 'alice'),
      failed(20, 'alice'),
      success(30, 'alice'),
      success(0, 'bob'),
      failed(10, 'bob'),
      failed(20, 'bob'),
      failed(30, 'bob'),
      failed(0, 'carol'),
      failed(10, 'carol'),
      success(20, 'carol'),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { User: 'alice' });
    assert.equal(alert.correlation.window_end, at(30));
    assert.equal(alert.correlation.event_ids.length, 4, 'the inner firing contributes its three base events, the success one');
    assert.equal((await alertsOf(ctx.service, innerId)).length, 0, 'the inner correlation alerts only when the outer one says generate: true');
    for (const id of detectionIds.slice(0, 2)) assert.equal((await alertsOf(ctx.service, id)).length, 0);
  });
});
