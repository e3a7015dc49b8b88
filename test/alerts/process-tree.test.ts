// GET /api/alerts/{id}/process_tree: the process ancestry of an alert from the process starts of its
// host. Sysmon events linked by ProcessGuid (a parent known only from its child's fields at the top,
// GUIDs compared without case, another host's processes and starts outside the window left out);
// evtx_dump Security 4688 events linked by process id (a later start reusing the parent's id is not its
// parent); ECS events from Winlogbeat; Sysmon events from NXLog; a process with more children than the tree holds (truncated);
// an alert without a host; an event naming no process; 401 and 404.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, createPattern, createRule, ingest, NIL_UUID, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';

const rule = (field: string, value: string, also = '') => `title: Whoami ${field}
status: test
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    ${field}|endswith: '${value}'${also}
  condition: selection
level: high
`;

const WHOAMI = '\\whoami.exe';
const sysmon = (at: string, host: string, guid: string, pid: number, parent: { guid: string; pid: number; image?: string }, image: string, extra: object = {}) => ({
  '@timestamp': at,
  Computer: host,
  EventID: 1,
  ProcessGuid: guid,
  ProcessId: pid,
  ParentProcessGuid: parent.guid,
  ParentProcessId: parent.pid,
  ParentImage: parent.image ?? 'C:\\Windows\\parent.exe',
  Image: image,
  CommandLine: image.split('\\').pop(),
  User: 'CORP\\alice',
  ...extra,
});

const evtx4688 = (at: string, pid: number, parentPid: number, image: string) => ({
  Event: {
    System: { EventID: 4688, Channel: 'Security', Computer: 'ws-evtx', TimeCreated: { '#attributes': { SystemTime: at } } },
    EventData: { SubjectUserName: 'bob', NewProcessId: `0x${pid.toString(16)}`, ProcessId: `0x${parentPid.toString(16)}`, NewProcessName: image, CommandLine: image.split('\\').pop() },
  },
});

interface Node {
  key: string;
  parent_key: string | null;
  depth: number;
  process_guid?: string;
  process_id: number | null;
  parent_process_id: number | null;
  image: string | null;
  command_line: string | null;
  user: string | null;
  event_time: string | null;
  event_ids: string[];
  is_alert_process: boolean;
}
interface Tree {
  root: string | null;
  alert_process: string | null;
  nodes: Node[];
  truncated: boolean;
  scanned_events: number;
  unavailable_reason?: string;
}

describeEachDatabase('process tree of an alert', (ctx) => {
  let viewer: Client;
  let sysmonPattern: CreatedPattern;
  const alertOf = async (pattern: string, image: string): Promise<string> => {
    const [row] = await ctx.service.db.query<{ id: string }>(`SELECT id FROM alerts WHERE index_pattern = $1 AND event::text LIKE $2`, [pattern, `%${image}%`]);
    assert.ok(row, `an alert of ${pattern} for ${image}`);
    return row.id;
  };
  const treeOf = async (id: string): Promise<Tree> => {
    const response = await viewer.get(`/api/alerts/${id}/process_tree`);
    assert.equal(response.statusCode, 200, response.body);
    return response.data as unknown as Tree;
  };

  before(async () => {
    let admin: Client, analyst: Client;
    ({ admin, analyst, viewer, pattern: sysmonPattern } = await setUpTeam(ctx.service, 'pia', 'pete', { name: 'sysmon' }));
    await createRule(analyst, { yaml_content: rule('Image', WHOAMI, '\n    EventID: 1'), index_pattern: 'sysmon', deploy: true });
    const events = [
      sysmon('2026-11-10T08:00:00Z', 'ws-1', '{a}', 100, { guid: '{z}', pid: 50, image: 'C:\\Windows\\System32\\userinit.exe' }, 'C:\\Windows\\explorer.exe'),
      sysmon('2026-11-10T11:59:00Z', 'ws-1', '{b}', 200, { guid: '{a}', pid: 100 }, 'C:\\Windows\\System32\\cmd.exe'),
      sysmon('2026-11-10T12:00:00Z', 'ws-1', '{C}', 300, { guid: '{b}', pid: 200 }, 'C:\\Windows\\System32\\whoami.exe'),
      sysmon('2026-11-10T12:00:01Z', 'ws-1', '{d}', 400, { guid: '{c}', pid: 300 }, 'C:\\Windows\\System32\\conhost.exe'),
      sysmon('2026-11-10T12:05:00Z', 'ws-1', '{e}', 500, { guid: '{a}', pid: 100 }, 'C:\\Windows\\notepad.exe'),
      // The alert's process making a connection: not a start, no node of its own.
      { '@timestamp': '2026-11-10T12:00:02Z', Computer: 'ws-1', EventID: 3, ProcessGuid: '{c}', ProcessId: 300, Image: 'C:\\Windows\\System32\\whoami.exe', DestinationIp: '198.51.100.1' },
      // Another machine's process claiming the alert's process as its parent: not in the tree.
      sysmon('2026-11-10T12:01:00Z', 'ws-2', '{x}', 900, { guid: '{c}', pid: 300 }, 'C:\\Windows\\System32\\evil.exe'),
      // Outside the window: not read.
      sysmon('2026-11-12T12:01:00Z', 'ws-1', '{late}', 901, { guid: '{c}', pid: 300 }, 'C:\\Windows\\System32\\late.exe'),
    ];
    assert.equal((await ingest(ctx.service, sysmonPattern, events)).data.alerts_created, 1);

    const evtx = await createPattern(admin, { name: 'evtx', preset: 'windows-thor' });
    await createRule(analyst, { yaml_content: rule('Image', WHOAMI), index_pattern: 'evtx', deploy: true });
    const answer = await ingest(ctx.service, evtx, [
      evtx4688('2026-11-10T09:00:00.000Z', 0x300, 0x100, 'C:\\Windows\\System32\\old.exe'),
      evtx4688('2026-11-10T11:00:00.000Z', 0x300, 0x200, 'C:\\Windows\\System32\\cmd.exe'),
      evtx4688('2026-11-10T12:00:00.000Z', 0x400, 0x300, 'C:\\Windows\\System32\\whoami.exe'),
      evtx4688('2026-11-10T12:00:01.000Z', 0x500, 0x400, 'C:\\Windows\\System32\\conhost.exe'),
      // Reuses the parent's id after the alert's process started: not its parent.
      evtx4688('2026-11-10T12:30:00.000Z', 0x300, 0x200, 'C:\\Windows\\System32\\reused.exe'),
    ]);
    assert.equal(answer.data.alerts_created, 1, answer.body);

    // The same events through a pattern without a preset: the rule names the nested field, the host is
    // read from Event.System.Computer.
    const rawEvtx = await createPattern(admin, { name: 'rawevtx', entity_fields: { host: ['Event.System.Computer'] } });
    await createRule(analyst, { yaml_content: rule('Event.EventData.NewProcessName', WHOAMI), index_pattern: 'rawevtx', deploy: true });
    const rawAnswer = await ingest(ctx.service, rawEvtx, [
      evtx4688('2026-11-10T11:00:00.000Z', 0x300, 0x200, 'C:\\Windows\\System32\\cmd.exe'),
      evtx4688('2026-11-10T12:00:00.000Z', 0x400, 0x300, 'C:\\Windows\\System32\\whoami.exe'),
    ]);
    assert.equal(rawAnswer.data.alerts_created, 1, rawAnswer.body);

    const ecs = await createPattern(admin, { name: 'ecs', preset: 'ecs-windows' });
    await createRule(analyst, { yaml_content: rule('Image', WHOAMI), index_pattern: 'ecs', deploy: true });
    const ecsEvent = (at: string, id: string, pid: number, parent: { id: string; pid: number }, exe: string) => ({
      '@timestamp': at,
      event: { code: '1' },
      host: { name: 'ws-ecs' },
      user: { name: 'carol' },
      winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' },
      process: { entity_id: id, pid, executable: exe, command_line: exe, parent: { entity_id: parent.id, pid: parent.pid, executable: 'x' } },
    });
    assert.equal(
      (
        await ingest(ctx.service, ecs, [
          ecsEvent('2026-11-10T11:00:00Z', '{p}', 10, { id: '{q}', pid: 5 }, 'C:\\Windows\\System32\\cmd.exe'),
          ecsEvent('2026-11-10T12:00:00Z', '{w}', 20, { id: '{p}', pid: 10 }, 'C:\\Windows\\System32\\whoami.exe'),
        ])
      ).data.alerts_created,
      1,
    );

    const nxlog = await createPattern(admin, { name: 'nxlog', preset: 'nxlog-windows' });
    await createRule(analyst, { yaml_content: rule('Image', WHOAMI), index_pattern: 'nxlog', deploy: true });
    const nx = (at: string, guid: string, pid: number, parent: string, parentPid: number, image: string) => ({
      EventTime: at,
      Hostname: 'ws-nx',
      SourceName: 'Microsoft-Windows-Sysmon',
      Channel: 'Microsoft-Windows-Sysmon/Operational',
      EventID: 1,
      ProcessGuid: guid,
      ProcessId: pid,
      ParentProcessGuid: parent,
      ParentProcessId: parentPid,
      Image: image,
    });
    assert.equal(
      (await ingest(ctx.service, nxlog, [nx('2026-11-10 11:00:00', '{nx-p}', 11, '{nx-q}', 1, 'C:\\Windows\\System32\\cmd.exe'), nx('2026-11-10 12:00:00', '{nx-w}', 12, '{nx-p}', 11, 'C:\\Windows\\System32\\whoami.exe')]))
        .data.alerts_created,
      1,
    );

    const busy = await createPattern(admin, { name: 'busy' });
    await createRule(analyst, { yaml_content: rule('Image', WHOAMI), index_pattern: 'busy', deploy: true });
    const children = Array.from({ length: 250 }, (_, i) =>
      sysmon(`2026-11-10T12:${String(1 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`, 'ws-busy', `{k${i}}`, 1000 + i, { guid: '{busy}', pid: 999 }, `C:\\Windows\\child${i}.exe`),
    );
    const burst = [sysmon('2026-11-10T12:00:00Z', 'ws-busy', '{busy}', 999, { guid: '{root}', pid: 1 }, 'C:\\Windows\\System32\\whoami.exe'), ...children];
    assert.equal((await ingest(ctx.service, busy, burst)).data.alerts_created, 1);

    // No host: the alert's own event only.
    await ingest(ctx.service, sysmonPattern, [{ '@timestamp': '2026-11-10T13:00:00Z', EventID: 1, ProcessGuid: '{n}', ProcessId: 70, ParentProcessGuid: '{b}', ParentProcessId: 200, ParentImage: 'C:\\Windows\\System32\\cmd.exe', Image: 'C:\\Tools\\whoami.exe' }]);

    const plain = await createPattern(admin, { name: 'plain' });
    await createRule(analyst, { yaml_content: rule('Tool', 'dumper'), index_pattern: 'plain', deploy: true });
    assert.equal((await ingest(ctx.service, plain, [{ '@timestamp': '2026-11-10T12:00:00Z', Tool: 'the dumper', Computer: 'ws-9' }])).data.alerts_created, 1);
  });

  test('Sysmon: parents above, children below, linked by ProcessGuid; the parent of the oldest known from its child', async () => {
    const tree = await treeOf(await alertOf('sysmon', '{C}'));
    assert.equal(tree.unavailable_reason, undefined);
    assert.equal(tree.truncated, false);
    assert.deepEqual(
      tree.nodes.map((n) => [n.key, n.parent_key, n.depth, n.is_alert_process]),
      [
        ['guid:{z}', null, 0, false],
        ['guid:{a}', 'guid:{z}', 1, false],
        ['guid:{b}', 'guid:{a}', 2, false],
        ['guid:{c}', 'guid:{b}', 3, true],
        ['guid:{d}', 'guid:{c}', 4, false],
      ],
    );
    assert.equal(tree.root, 'guid:{z}');
    assert.equal(tree.alert_process, 'guid:{c}');
    const [top, explorer, , self] = tree.nodes;
    assert.deepEqual([top.image, top.process_id, top.event_ids, top.event_time], ['C:\\Windows\\System32\\userinit.exe', 50, [], null]);
    assert.deepEqual([explorer.image, explorer.process_id, explorer.parent_process_id, explorer.user, explorer.event_time], ['C:\\Windows\\explorer.exe', 100, 50, 'CORP\\alice', '2026-11-10T08:00:00.000Z']);
    assert.equal(self.process_guid, '{c}');
    assert.equal(self.command_line, 'whoami.exe');
    assert.equal(self.event_ids.length, 1, 'its start, the event of the alert');
    assert.ok(tree.scanned_events >= 8);
  });

  test('Security 4688 (evtx_dump): linked by process id, the latest start of the parent id before the child', async () => {
    const tree = await treeOf(await alertOf('evtx', 'whoami.exe'));
    assert.deepEqual(
      tree.nodes.map((n) => [n.image, n.process_id, n.parent_process_id, n.depth, n.is_alert_process]),
      [
        [null, 0x200, null, 0, false],
        ['C:\\Windows\\System32\\cmd.exe', 0x300, 0x200, 1, false],
        ['C:\\Windows\\System32\\whoami.exe', 0x400, 0x300, 2, true],
        ['C:\\Windows\\System32\\conhost.exe', 0x500, 0x400, 3, false],
      ],
    );
    assert.equal(tree.nodes[1].user, 'bob');
    assert.equal(tree.nodes[1].process_guid, undefined);
    assert.equal(tree.truncated, false);
  });

  test('evtx_dump events through a pattern without a preset: read by their flat Windows names', async () => {
    const tree = await treeOf(await alertOf('rawevtx', 'whoami.exe'));
    assert.equal(tree.unavailable_reason, undefined);
    assert.deepEqual(
      tree.nodes.map((n) => [n.process_id, n.depth, n.is_alert_process]),
      [
        [0x200, 0, false],
        [0x300, 1, false],
        [0x400, 2, true],
      ],
    );
  });

  test('ECS (Winlogbeat): process.entity_id and process.parent', async () => {
    const tree = await treeOf(await alertOf('ecs', 'whoami.exe'));
    assert.deepEqual(
      tree.nodes.map((n) => [n.key, n.process_id, n.user, n.is_alert_process]),
      [
        ['guid:{q}', 5, null, false],
        ['guid:{p}', 10, 'carol', false],
        ['guid:{w}', 20, 'carol', true],
      ],
    );
  });

  test('NXLog: Sysmon fields as NXLog sends them, the host from Hostname', async () => {
    const tree = await treeOf(await alertOf('nxlog', 'whoami.exe'));
    assert.equal(tree.unavailable_reason, undefined);
    assert.deepEqual(
      tree.nodes.map((n) => [n.key, n.process_id, n.is_alert_process]),
      [
        ['guid:{nx-q}', 1, false],
        ['guid:{nx-p}', 11, false],
        ['guid:{nx-w}', 12, true],
      ],
    );
  });

  test('more children than the tree holds: cut at the bound and said so', async () => {
    const tree = await treeOf(await alertOf('busy', 'whoami.exe'));
    assert.equal(tree.truncated, true);
    assert.equal(tree.nodes.length, 200);
    assert.equal(tree.nodes.filter((n) => n.is_alert_process).length, 1);
    assert.equal(tree.nodes[2].image, 'C:\\Windows\\child0.exe', 'children oldest first');
  });

  test("an alert without a host: what its own event says (its process and the parent it names), with the reason", async () => {
    const tree = await treeOf(await alertOf('sysmon', '{n}'));
    assert.match(tree.unavailable_reason ?? '', /no host/);
    assert.deepEqual(
      tree.nodes.map((n) => [n.key, n.parent_key, n.image, n.event_ids.length, n.is_alert_process]),
      [
        ['guid:{b}', null, 'C:\\Windows\\System32\\cmd.exe', 0, false],
        ['guid:{n}', 'guid:{b}', 'C:\\Tools\\whoami.exe', 1, true],
      ],
    );
  });

  test('an event naming no process: an empty tree with the reason', async () => {
    const tree = await treeOf(await alertOf('plain', 'dumper'));
    assert.deepEqual([tree.root, tree.alert_process, tree.nodes, tree.truncated], [null, null, [], false]);
    assert.match(tree.unavailable_reason ?? '', /names no process/);
  });

  test('401 without a session; 404 for an unknown or malformed id', async () => {
    const id = await alertOf('sysmon', 'whoami.exe');
    assertError(await anonymous(ctx.service).get(`/api/alerts/${id}/process_tree`), 401, 'Could not validate credentials');
    assertError(await viewer.get(`/api/alerts/${NIL_UUID}/process_tree`), 404, 'Alert not found');
    assertError(await viewer.get('/api/alerts/not-a-uuid/process_tree'), 404, 'Alert not found');
  });
});
