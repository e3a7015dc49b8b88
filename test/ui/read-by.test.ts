// The field catalogue's "Read by" column, without a browser: which Sigma fields read an event field
// through the pattern's own mappings, the preset's table and scoped rows, and the default mapping (the
// same name, or the preset's prefix), and "none" leaving only the tables.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readBy, type PresetTables } from '../../ui/src/pages/settings/read-by.js';

const preset: PresetTables = {
  default_mapping: 'prefix:winlog.event_data.',
  field_mappings: [
    { sigma_field: 'Image', target_field: 'process.executable' },
    { sigma_field: 'User', target_field: 'user.name' },
  ],
  scoped_field_mappings: [{ logsource: { category: 'network_connection' }, field_mappings: [{ sigma_field: 'DestinationIp', target_field: 'destination.ip' }] }],
};

test('without a preset, an event field nobody maps is read by the Sigma field of the same name', () => {
  const read = readBy([{ sigma_field: 'CommandLine', target_field: 'process.command_line' }], undefined, 'identity');
  assert.deepEqual(read('process.command_line'), ['CommandLine', 'process.command_line (same name)']);
  assert.deepEqual(read('user.name'), ['user.name (same name)']);
  assert.deepEqual(read('CommandLine'), [], 'a mapped Sigma field no longer reads its own name');
});

test('"none" leaves only the mappings', () => {
  const read = readBy([{ sigma_field: 'CommandLine', target_field: 'process.command_line' }, { sigma_field: '', target_field: 'x' }], undefined, 'none');
  assert.deepEqual(read('process.command_line'), ['CommandLine']);
  assert.deepEqual(read('user.name'), []);
  assert.deepEqual(read('x'), [], 'a half-typed row reads nothing');
});

test("a preset's table, its scoped rows and its prefix; the pattern's own mapping wins", () => {
  const read = readBy([{ sigma_field: 'User', target_field: 'account' }], preset, 'identity');
  assert.deepEqual(read('process.executable'), ['Image (preset)']);
  assert.deepEqual(read('user.name'), [], "the pattern's own User mapping replaces the preset's");
  assert.deepEqual(read('account'), ['User']);
  assert.deepEqual(read('destination.ip'), ['DestinationIp (preset, category network_connection)']);
  assert.deepEqual(read('winlog.event_data.ParentImage'), ['ParentImage (preset prefix)']);
  assert.deepEqual(read('winlog.event_data.Image'), [], 'Image is mapped by the table, not by the prefix');
  assert.deepEqual(read('host.name'), [], 'a prefix default maps nothing by its own name');
  assert.deepEqual(readBy([], preset, 'none')('winlog.event_data.ParentImage'), []);
});
