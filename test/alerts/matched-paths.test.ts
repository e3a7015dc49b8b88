// Where matched fields sit in a stored event (src/alerts/matched-paths.ts), without a server: dotted
// names through nested objects, keys holding dots and array members; the preset's shaping undone
// (evtx_dump, NXLog, Sentinel); the value looked for when the name is found nowhere, under a key of the
// field's name first, and never a number or short word elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchedFields, pathsOf } from '../../src/alerts/matched-paths.js';
import { getPreset } from '../../src/sigma/index.js';

const paths = (conditions: unknown[], event: Record<string, unknown>, preset?: string) =>
  Object.fromEntries(matchedFields(conditions, event, preset ? getPreset(preset) : undefined).map((f) => [f.field, f.paths]));

test('dotted names: nested objects, keys holding dots, array members', () => {
  const event = { process: { executable: 'a.exe', parent: { pid: 4 } }, 'winlog.event_data': { Image: 'b.exe' }, tags: [{ name: 'x' }, { name: 'y' }] };
  assert.deepEqual(pathsOf(event, 'process.executable'), ['process.executable']);
  assert.deepEqual(pathsOf(event, 'winlog.event_data.Image'), ['winlog.event_data.Image']);
  assert.deepEqual(pathsOf(event, 'tags.name'), ['tags.0.name', 'tags.1.name']);
  assert.deepEqual(pathsOf(event, 'process.parent.name'), []);
});

test("each preset's shaping undone", () => {
  const evtx = { Event: { System: { EventID: { '#text': 4688, '#attributes': { Qualifiers: 0 } }, Provider: { '#attributes': { Name: 'P' } } }, EventData: { 'New Process Name': 'w.exe' }, UserData: { Log: { '#attributes': { xmlns: 'u', Id: 3 }, Sub: 's' } } } };
  const conditions = [{ selection: { EventID: 4688, EventID_Qualifiers: 0, Provider_Name: 'P', NewProcessName: 'w.exe', Log_Id: 3, Sub: 's' } }];
  assert.deepEqual(paths(conditions, evtx, 'windows-thor'), {
    EventID: ['Event.System.EventID.#text'],
    EventID_Qualifiers: ['Event.System.EventID.#attributes.Qualifiers'],
    Provider_Name: ['Event.System.Provider.#attributes.Name'],
    NewProcessName: ['Event.EventData.New Process Name'],
    Log_Id: ['Event.UserData.Log.#attributes.Id'],
    Sub: ['Event.UserData.Log.Sub'],
  });
  const nxlog = { SourceName: 'PowerShell', Hostname: 'h', Channel: 'Windows PowerShell', Message: 'Started.\r\n\tHostApplication=powershell.exe -enc\r\n' };
  assert.deepEqual(paths([{ sel: { Provider_Name: 'PowerShell', Computer: 'h', HostApplication: 'powershell.exe -enc', Data: nxlog.Message } }], nxlog, 'nxlog-windows'), {
    Provider_Name: ['SourceName'],
    Computer: ['Hostname'],
    HostApplication: ['Message'],
    Data: ['Message'],
  });
  const sentinel = { Provider: 'Service Control Manager', EventData: { 'Service Name': 'evil' } };
  assert.deepEqual(paths([{ sel: { Provider_Name: 'Service Control Manager', ServiceName: 'evil' } }], sentinel, 'sentinel-windows-event'), {
    Provider_Name: ['Provider'],
    ServiceName: ['EventData.Service Name'],
  });
});

test('found by value: under a key of its name first; numbers and short words only there', () => {
  const event = { a: { Image: 'C:\\x.exe', Other: 'C:\\x.exe' }, b: { Code: 1, Flag: 1 }, c: { Note: 'ok' } };
  assert.deepEqual(paths([{ s: { 'custom.Image': 'c:\\x.exe' } }], event), { 'custom.Image': ['a.Image'] });
  assert.deepEqual(paths([{ s: { Path: 'C:\\x.exe' } }], event), { Path: ['a.Image', 'a.Other'] });
  assert.deepEqual(paths([{ s: { Number: 1 } }], event), { Number: [] });
  assert.deepEqual(paths([{ s: { Word: 'ok' } }], event), { Word: [] });
  // A modifier in the name is dropped.
  assert.deepEqual(paths([{ s: { 'a.Image|endswith': 'x.exe' } }], event), { 'a.Image': ['a.Image'] });
});
