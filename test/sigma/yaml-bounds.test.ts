// Bounds on the general YAML parser's work (bounded-parse.ts): nesting depth, floods of syntax errors, and
// that neither bound touches texts within them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineCounter } from 'yaml';
import { parseRule } from '../../src/sigma/index.js';
import { MAX_NESTING, parseBounded } from '../../src/sigma/load/bounded-parse.js';
import { fastYaml } from '../../src/sigma/load/fast-yaml.js';
import { loadYaml } from '../../src/sigma/load/yaml11.js';

const nested = `the document is nested more than ${MAX_NESTING} levels deep`;

/** `depth` block maps, one inside the other, the innermost holding `k: x`. */
function blockMaps(depth: number): string {
  return `${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} x\n`;
}

test('nesting: 256 collections are read, one more is refused at the collection one too deep', () => {
  // Flow lists inside a block map: the map and 255 lists are 256 collections.
  const flow = (lists: number): string => `a: ${'['.repeat(lists)}x${']'.repeat(lists)}\n`;
  assert.ok(loadYaml(flow(MAX_NESTING - 1)).ok);
  // Documents before the one too deep are kept; the place is in the whole text.
  const second = parseBounded(`a: 1\n---\n${flow(MAX_NESTING)}`, new LineCounter());
  assert.deepEqual(second.docs.map((d) => d.toJSON() as unknown), [{ a: '1' }]);
  assert.deepEqual(second.cutOff, { offset: 9 + 3 + MAX_NESTING - 1, message: nested });
  assert.deepEqual(loadYaml(flow(MAX_NESTING)), { ok: false, kind: 'yaml', message: `YAML syntax error (line 1, column ${3 + MAX_NESTING}): ${nested}` });
  // Block maps, through the fast reader and through the general parser (a `---` keeps the fast reader out):
  // the same limit either way.
  const within = blockMaps(MAX_NESTING);
  assert.notEqual(fastYaml(within), null);
  assert.ok(loadYaml(`---\n${within}`).ok);
  const deeper = blockMaps(MAX_NESTING + 1);
  assert.equal(fastYaml(deeper), null);
  // (a block map is known to be one at its key's `:`)
  assert.deepEqual(loadYaml(deeper), { ok: false, kind: 'yaml', message: `YAML syntax error (line ${MAX_NESTING + 1}, column ${MAX_NESTING + 2}): ${nested}` });
  // A mile of `[` (which built a syntax tree of a gigabyte) and of `- `: refused at the same depth.
  assert.deepEqual(loadYaml('['.repeat(1 << 20)), { ok: false, kind: 'yaml', message: `YAML syntax error (line 1, column ${MAX_NESTING + 1}): ${nested}` });
  assert.deepEqual(loadYaml('- '.repeat(1 << 19)), { ok: false, kind: 'yaml', message: `YAML syntax error (line 1, column ${2 * MAX_NESTING + 1}): ${nested}` });
  const rule = parseRule(`title: t\nlogsource: {product: windows}\nlevel: low\ndetection:\n  sel:\n    A: ${'['.repeat(300)}x${']'.repeat(300)}\n  condition: sel\n`);
  // Three block maps hold the lists: the 254th `[` (after `    A: `) is one too deep.
  assert.deepEqual(rule, { ok: false, kind: 'yaml', message: `YAML syntax error (line 6, column ${7 + MAX_NESTING - 3 + 1}): ${nested}` });
});

test('a flood of syntax errors stops the parser at the hundredth; the first is reported', () => {
  // Errors of the parser's own tokens.
  const brackets = parseBounded(']'.repeat(1000), new LineCounter());
  assert.deepEqual(brackets, { docs: [], cutOff: { offset: 0, message: 'Unexpected flow-seq-end token in YAML document: "]"' } });
  // Errors found while composing a document.
  const tags = parseBounded(`${'! '.repeat(1000)}x\n`, new LineCounter());
  assert.deepEqual(tags, { docs: [], cutOff: { offset: 2, message: 'A node can have at most one tag' } });
  // 99 errors: every document is read, with all its errors.
  const fewer = parseBounded(`${'! '.repeat(100)}x\n`, new LineCounter());
  assert.equal(fewer.cutOff, undefined);
  assert.equal(fewer.docs.length, 1);
  assert.equal(fewer.docs[0].errors.length, 99);
  // The documents completed before the flood are kept.
  const after = parseBounded(`a: 1\n---\n${']'.repeat(500)}`, new LineCounter());
  assert.deepEqual(after.docs.map((d) => d.toJSON() as unknown), [{ a: '1' }]);
  assert.deepEqual(after.cutOff, { offset: 9, message: 'Unexpected flow-seq-end token in YAML document: "]"' });
  // Through the loader: a 1 MiB text of `]` is refused with its first error.
  assert.deepEqual(loadYaml(']'.repeat(1 << 20)), { ok: false, kind: 'yaml', message: 'YAML syntax error (line 1, column 1): Unexpected flow-seq-end token in YAML document: "]"' });
  assert.deepEqual(loadYaml(`a: 1\n---\n${'}'.repeat(5000)}`), { ok: false, kind: 'yaml', message: 'YAML syntax error (line 3, column 1): Unexpected flow-map-end token in YAML document: "}"' });
});

test('a document longer than the caller allows stops the parser at its start', () => {
  const long = parseBounded(`a: 1\n---\n${'k: v\n'.repeat(100)}---\nb: 2\n`, new LineCounter(), { maxDocumentChars: 200 });
  assert.deepEqual(long.docs.map((d) => d.toJSON() as unknown), [{ a: '1' }]);
  assert.deepEqual(long.cutOff, { offset: 5, message: 'document is longer than 200 characters', size: true });
  assert.equal(parseBounded(`${'k: v\n'.repeat(40)}`, new LineCounter(), { maxDocumentChars: 200 }).cutOff, undefined);
  // The loader refuses a stream's document over 1 MiB as it reads it, before the documents after it.
  const big = loadYaml(`a: 1\n---\n${'k: v\n'.repeat(300_000)}---\n${'['.repeat(1000)}`, 16 * 1024 * 1024);
  assert.deepEqual(big, { ok: false, kind: 'size', message: 'document is larger than 1048576 bytes (1 MiB)' });
});

test('what PyYAML reads without complaint does not count towards the flood', () => {
  // A comment right after a comma is an error to the parser only: 300 of them stay a valid list.
  const text = `a: [\n${"  'x',#note\n".repeat(300)}]\n`;
  const r = loadYaml(text);
  assert.ok(r.ok && (r.documents[0] as { a: string[] }).a.length === 300, JSON.stringify(r).slice(0, 200));
  // Continuation lines that need re-indenting (hundreds of parser errors on the first reading) still load.
  const continued = `a: [\n${'x,\n'.repeat(300)}y]\nb: 'one\ntwo'\n`;
  const c = loadYaml(continued);
  assert.ok(c.ok && (c.documents[0] as { a: string[] }).a.length === 301 && (c.documents[0] as { b: string }).b === 'one two', JSON.stringify(c).slice(0, 200));
});

test('the stack trace limit is restored after parsing', () => {
  const before = Error.stackTraceLimit;
  Error.stackTraceLimit = 17;
  loadYaml(`---\n${']'.repeat(200)}`);
  loadYaml('---\na: [b\n');
  const after = Error.stackTraceLimit;
  Error.stackTraceLimit = before;
  assert.equal(after, 17);
});
