// The command line dispatches known subcommands and rejects unknown ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../src/cli/main.js';

test('unknown command exits 2', async () => {
  assert.equal(await main(['no-such-command']), 2);
});
