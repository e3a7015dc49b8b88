// The specification's correlation examples (shared/corpus/spec-examples/schema/correlation) stored as
// written through the rules API, each with detection rules answering to its references on a pattern of
// its own, fed with events built to reach its condition exactly, and others that stay one short.
// Reads the shared corpus.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { corpus } from '../sigma/corpus-helpers.js';
import { setUpTeam } from '../rules/fixtures.js';
import { alertsOf, at, detection, event, scenario, send } from './scenario.js';

const example = (name: string) => readFileSync(join(corpus, 'spec-examples/schema/correlation', `${name}.yml`), 'utf8');

const FAILED_LOGIN_ID = '5638f7c0-ac70-491d-8465-2a65075e0d86';
const failedLogin = detection('spec_failed_login', { EventID: 4625 }, { id: FAILED_LOGIN_ID, title: 'Failed login' });
const recon = [detection('recon_cmd_a', { CommandLine: 'whoami' }), detection('recon_cmd_b', { CommandLine: 'ipconfig /all' }), detection('recon_cmd_c', { CommandLine: 'net group' })];

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describeEachDatabase('the specification correlation examples through the service', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'sam', 'sid', { name: 'spec-default', is_default: true }));
  });

  test('event_count.yml: the 100th failed login of a computer within 1h fires; 99 do not', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [failedLogin], example('event_count'));
    const response = await send(ctx.service, pattern, [
      ...range(100).map((i) => event(i * 30, { EventID: 4625, ComputerName: 'pc-1' })),
      ...range(99).map((i) => event(i * 30, { EventID: 4625, ComputerName: 'pc-2' })),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.equal(alert.rule_title, 'Many failed logins');
    assert.deepEqual(alert.correlation.group, { ComputerName: 'pc-1' });
    assert.equal(alert.correlation.value, 100);
    assert.equal(alert.correlation.window_end, at(99 * 30));
    assert.equal(alert.correlation.event_ids.length, 100);
  });

  test('event_count_ecs.yml: grouped by the nested dns.question.name', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [failedLogin], example('event_count_ecs'));
    const response = await send(ctx.service, pattern, [
      ...range(100).map((i) => event(i * 30, { EventID: 4625, dns: { question: { name: 'evil.example' } } })),
      ...range(99).map((i) => event(i * 30, { EventID: 4625, dns: { question: { name: 'fine.example' } } })),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { 'dns.question.name': 'evil.example' });
  });

  test('value_count.yml: 100 distinct users on one computer and workstation within a day fire; 99 do not', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [failedLogin], example('value_count'));
    const response = await send(ctx.service, pattern, [
      ...range(120).map((i) => event(i * 60, { EventID: 4625, ComputerName: 'dc-1', WorkstationName: 'ws-1', User: `user-${i % 100}` })),
      ...range(120).map((i) => event(i * 60, { EventID: 4625, ComputerName: 'dc-1', WorkstationName: 'ws-2', User: `user-${i % 99}` })),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { ComputerName: 'dc-1', WorkstationName: 'ws-1' });
    assert.equal(alert.correlation.value, 100);
    assert.equal(alert.correlation.window_end, at(99 * 60));
  });

  test('temporal.yml: the three recon commands by one user on one computer within 5m, in any order', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, recon, example('temporal'));
    const run = (seconds: number, ComputerName: string, User: string, CommandLine: string) => event(seconds, { ComputerName, User, CommandLine });
    const response = await send(ctx.service, pattern, [
      run(0, 'pc-1', 'alice', 'net group'),
      run(60, 'pc-1', 'alice', 'ipconfig /all'),
      run(120, 'pc-1', 'alice', 'whoami'),
      run(0, 'pc-1', 'bob', 'net group'),
      run(60, 'pc-2', 'bob', 'ipconfig /all'),
      run(120, 'pc-1', 'bob', 'whoami'),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { ComputerName: 'pc-1', User: 'alice' });
    assert.equal(alert.correlation.value, 3);
  });

  test('temporal_ordered.yml: the three recon commands in order fire; in another order they do not', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, recon, example('temporal_ordered'));
    const run = (seconds: number, User: string, CommandLine: string) => event(seconds, { ComputerName: 'pc-1', User, CommandLine });
    const response = await send(ctx.service, pattern, [
      run(0, 'alice', 'whoami'),
      run(60, 'alice', 'ipconfig /all'),
      run(120, 'alice', 'net group'),
      run(0, 'bob', 'whoami'),
      run(60, 'bob', 'net group'),
      run(120, 'bob', 'ipconfig /all'),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { ComputerName: 'pc-1', User: 'alice' });
  });

  test('value_sum.yml: more than 1,000,000 bytes sent by one source and user within 1h fire; exactly 1,000,000 does not', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('website_access', { Action: 'web' })], example('value_sum'));
    const web = (seconds: number, User: string, bytes_sent: number) => event(seconds, { Action: 'web', SourceIP: '10.0.0.7', User, bytes_sent });
    const response = await send(ctx.service, pattern, [web(0, 'alice', 600_000), web(600, 'alice', 400_001), web(0, 'bob', 600_000), web(600, 'bob', 400_000)]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { SourceIP: '10.0.0.7', User: 'alice' });
    assert.equal(alert.correlation.value, 1_000_001);
  });

  test('value_avg.yml: an average BytesOut above 500 within a day fires', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('rule_a_id', { Action: 'flow' })], example('value_avg'));
    const flow = (seconds: number, User: string, BytesOut: number) => event(seconds, { Action: 'flow', SourceIP: '10.0.0.8', User, BytesOut });
    const response = await send(ctx.service, pattern, [flow(0, 'alice', 500), flow(3600, 'alice', 502), flow(0, 'bob', 500), flow(3600, 'bob', 500)]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { SourceIP: '10.0.0.8', User: 'alice' });
    assert.equal(alert.correlation.value, 501);
  });

  test('value_percentile.yml: a process name that is 1% of a computer\'s processes of the day fires; 2% does not', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('process_creation', { EventID: 1 })], example('value_percentile'));
    const process = (seconds: number, ComputerName: string, Image: string) => event(seconds, { EventID: 1, ComputerName, Image });
    const response = await send(ctx.service, pattern, [
      ...range(99).map((i) => process(i * 60, 'pc-1', 'C:\\Windows\\explorer.exe')),
      process(99 * 60, 'pc-1', 'C:\\Users\\Public\\rare.exe'),
      ...range(49).map((i) => process(i * 60, 'pc-2', 'C:\\Windows\\explorer.exe')),
      process(49 * 60, 'pc-2', 'C:\\Users\\Public\\rare.exe'),
    ]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { ComputerName: 'pc-1' });
    assert.equal(alert.correlation.value, 1);
    assert.equal(alert.correlation.window_end, at(99 * 60));
  });
});
