// The rule editor's YAML reading, without a browser: the highlighting classes (keys, Sigma modifiers,
// strings, numbers, booleans, comments, punctuation, anchors) and that the lines give back the text
// exactly; syntax problems with their line and column (and the one the server's reader accepts); and
// validation field paths placed at their lines (dotted keys, list items, missing keys at their parent).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineOfField, parseLocally, placeInMessage } from '../../ui/src/pages/rule-editor/yaml-problems.js';
import { highlightLines, type Piece } from '../../ui/src/pages/rule-editor/yaml-tokens.js';

const RULE = `%YAML 1.1
---
title: "Quoted title" # trailing
tags: [attack.t1059, {a: b}]
detection:
  selection:
    process.name|endswith|all:
      - 'x.exe'
      - 12
    Enabled: yes
    Empty: ~
  note: &anchor |
    several
    lines
  again: *anchor
  condition: selection
`;

const classed = (lines: Piece[][]) => lines.flat().filter((p) => p.cls).map((p) => `${p.cls}:${p.text}`);

test('pieces carry the classes of what they are', () => {
  const pieces = classed(highlightLines(RULE));
  for (const expected of [
    'meta:%YAML 1.1',
    'meta:---',
    'key:title',
    'punct::',
    'string:"Quoted title"',
    'comment:# trailing',
    'punct:[',
    'string:attack.t1059',
    'punct:,',
    'key:a',
    'string:b',
    'key:process.name',
    'modifier:|endswith|all',
    'punct:-',
    "string:'x.exe'",
    'number:12',
    'atom:yes',
    'atom:~',
    'meta:&anchor',
    'punct:|',
    'string:    several',
    'meta:*anchor',
    'string:selection',
  ]) {
    assert.ok(pieces.includes(expected), `${expected} in ${JSON.stringify(pieces)}`);
  }
});

test('the lines give back the text exactly, broken YAML included', () => {
  for (const text of [RULE, '', '\n', 'a: [1, 2\nb: "open\n  c: d\n', 'title: x\r\n', '- a\n-\n  - b: |\n      x\n\n']) {
    const lines = highlightLines(text);
    assert.equal(lines.map((l) => l.map((p) => p.text).join('')).join('\n'), text);
  }
});

test('syntax problems carry their line and column', () => {
  const bad = 'title: x\ndetection:\n  selection:\n    Image: x\n   condition: selection\n';
  assert.deepEqual(parseLocally(bad).problems, [{ line: 5, column: 1, message: 'All mapping items must start at the same column', source: 'syntax' }]);
  const [open] = parseLocally('title: broken\ndetection: [').problems;
  assert.equal(open.line, 2);
  assert.equal(open.column, 12 + 1);
  assert.equal(parseLocally('a: 1\na: 2\n').problems[0].line, 2);
  // A comment right after a quote is read by the server (as PyYAML reads it): no problem here either.
  assert.deepEqual(parseLocally("title: 'x'#note\n").problems, []);
  assert.deepEqual(parseLocally(RULE).problems, []);
});

test('validation field paths are placed at their lines', () => {
  const parsed = parseLocally(RULE);
  assert.equal(lineOfField(parsed, 'title'), 3);
  assert.equal(lineOfField(parsed, 'tags[1]'), 4);
  assert.equal(lineOfField(parsed, 'detection.selection.process.name|endswith|all'), 7);
  assert.equal(lineOfField(parsed, 'detection.selection.process.name|endswith|all[1]'), 9);
  assert.equal(lineOfField(parsed, 'detection.condition'), 16);
  // Missing: the deepest part that is there.
  assert.equal(lineOfField(parsed, 'detection.timeframe'), 5);
  assert.equal(lineOfField(parsed, 'detection.selection.Missing'), 6);
  assert.equal(lineOfField(parsed, 'level'), null);
  assert.equal(lineOfField(parsed, 'yaml_content'), null);
  // A collection: the document where the path goes deepest has the line.
  const collection = parseLocally(`action: global
title: Shared
logsource:
  product: windows
---
detection:
  selection:
    EventID: 1
  condition: selection
level: urgent
`);
  assert.equal(lineOfField(collection, 'level'), 10);
  assert.equal(lineOfField(collection, 'detection.condition'), 9);
  assert.equal(lineOfField(collection, 'logsource.category'), 3);
  assert.equal(lineOfField(collection, 'title'), 2);
  assert.deepEqual(placeInMessage('Invalid YAML syntax: YAML syntax error (line 7, column 3): bad'), { line: 7, column: 3 });
  assert.equal(placeInMessage('Rule validation failed'), null);
});
