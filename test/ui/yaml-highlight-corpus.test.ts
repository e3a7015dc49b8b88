// The rule editor's YAML reading over every SigmaHQ rule file: the highlighted lines give back each text
// exactly, and no rule the server's reader loads is flagged with a syntax problem by the editor's own
// parse (which would show an error on a good rule). The slowest file's reading time is printed.
// Reads the shared corpus.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { test } from 'node:test';
import { parseRule } from '../../src/sigma/index.js';
import { parseLocally } from '../../ui/src/pages/rule-editor/yaml-problems.js';
import { highlightLines } from '../../ui/src/pages/rule-editor/yaml-tokens.js';
import { rulesRoot, yamlFiles } from '../sigma/corpus-helpers.js';

test('every corpus rule file is highlighted losslessly, and no loadable rule gets a syntax problem', () => {
  const files = yamlFiles(rulesRoot);
  assert.ok(files.length > 3500, `${files.length} files`);
  const flagged: string[] = [];
  let slowest = { ms: 0, name: '', lines: 0 };
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    const started = performance.now();
    const lines = highlightLines(text);
    const local = parseLocally(text);
    const ms = performance.now() - started;
    const name = relative(rulesRoot, path);
    if (ms > slowest.ms) slowest = { ms, name, lines: lines.length };
    assert.equal(lines.map((l) => l.map((p) => p.text).join('')).join('\n'), text, name);
    const server = parseRule(text);
    if ((server.ok || server.kind !== 'yaml') && local.problems.length > 0) flagged.push(`${name}: ${local.problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}`);
  }
  console.log(`${files.length} files; slowest to highlight and parse: ${slowest.name} (${slowest.lines} lines) in ${slowest.ms.toFixed(1)} ms`);
  assert.deepEqual(flagged, []);
});
