// Splitting an import upload into documents: each document kept as written (what cannot be split fails as
// one document); an upload of more than 10,000 documents is refused before it is parsed; a document of tens
// of thousands of keys is split without the parser comparing every pair of keys (duplicates are reported
// per rule, later).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentsFromYaml, MAX_IMPORT_DOCUMENTS } from '../../src/rules/import-sources.js';
import { HttpError } from '../../src/http/errors.js';
import { parseRule } from '../../src/sigma/index.js';

test('documents are split as written', () => {
  const docs = documentsFromYaml('---\ntitle: A\n---\ntitle: B\n...\n');
  assert.deepEqual(docs, [{ yaml: 'title: A\n' }, { yaml: 'title: B\n' }]);
});

test('more than 10,000 documents are refused before parsing', () => {
  assert.throws(
    () => documentsFromYaml('---\na: 1\n'.repeat(MAX_IMPORT_DOCUMENTS + 1)),
    (e: unknown) => e instanceof HttpError && e.statusCode === 400 && e.message === `Too many documents: at most ${MAX_IMPORT_DOCUMENTS} rules per import`,
  );
  assert.equal(documentsFromYaml('---\na: 1\n'.repeat(MAX_IMPORT_DOCUMENTS)).length, MAX_IMPORT_DOCUMENTS);
});

test('a document with 30,000 keys is split; its duplicate key is reported when the rule is read', () => {
  const keys = Array.from({ length: 30_000 }, (_, i) => `        F${i}: x`).join('\n');
  const rule = `title: Big\nlogsource:\n    product: windows\nlevel: low\ndetection:\n    sel:\n${keys}\n        F7: y\n    condition: sel\n`;
  const docs = documentsFromYaml(`---\n${rule}`);
  assert.equal(docs.length, 1);
  const parsed = parseRule(docs[0].yaml);
  assert.ok(!parsed.ok && parsed.kind === 'yaml' && /Map keys must be unique \("F7" is repeated\)/.test(parsed.message), JSON.stringify(parsed).slice(0, 300));
});

test('what cannot be split fails as one document: a flood of syntax errors, a document over 1 MiB, nesting', () => {
  assert.deepEqual(documentsFromYaml(`---\ntitle: A\n---\ntitle: B\n---\n${']'.repeat(1 << 20)}`), [
    { yaml: 'title: A\n' },
    { yaml: 'title: B\n' },
    { yaml: '', error: 'YAML syntax error (line 6, column 1): Unexpected flow-seq-end token in YAML document: "]"' },
  ]);
  assert.deepEqual(documentsFromYaml(`---\ntitle: A\n---\n${'k: v\n'.repeat(300_000)}---\ntitle: C\n`), [
    { yaml: 'title: A\n' },
    { yaml: '', error: 'document is larger than 1048576 bytes (1 MiB)' },
  ]);
  assert.deepEqual(documentsFromYaml(`title: A\n---\n${'['.repeat(1 << 24)}`), [
    { yaml: 'title: A\n' },
    { yaml: '', error: 'YAML syntax error (line 3, column 257): the document is nested more than 256 levels deep' },
  ]);
  // A few syntax errors in a document: split as usual, reported when the rule is read.
  const docs = documentsFromYaml('---\ntitle: A\n---\ntitle: [B\n---\ntitle: C\n');
  assert.equal(docs.length, 3);
  assert.ok(docs.every((d) => d.error === undefined));
});
