#!/usr/bin/env node
// Entry point of the `vigil` command: runs the compiled CLI (built by `npm install` / `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('vigil: the project is not built yet; run `npm install` (or `npm run build`) first\n');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
