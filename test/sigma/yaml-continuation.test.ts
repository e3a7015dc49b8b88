// Quoted values and flow collections continued on lines indented no deeper than their key, and other
// multi-line quoted layouts where PyYAML and the general YAML 1.2 parser part ways: read as PyYAML reads
// them, refused where PyYAML refuses them, with the place of the error in the text as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRule } from '../../src/sigma/index.js';
import { loadYaml } from '../../src/sigma/load/yaml11.js';

const one = (text: string): unknown => {
  const r = loadYaml(text);
  assert.ok(r.ok, `${JSON.stringify(text)}: ${JSON.stringify(r)}`);
  return r.documents[0];
};

test('a quoted value continued at or left of its key column is read as PyYAML reads it', () => {
  assert.deepEqual(one("title: x\ndescription: 'two\nlines'\nlevel: high\n"), { title: 'x', description: 'two lines', level: 'high' });
  assert.deepEqual(one('a:\n  b:\n    c: "x\n  y\\\n z"\n  d: 1\n'), { a: { b: { c: 'x yz' }, d: 1 } });
  assert.deepEqual(one("a:\n  - 'x\ny'\n  - z\n"), { a: ['x y', 'z'] });
  // Blank lines inside are line feeds; tabs and spaces that start a continuation line mean nothing.
  assert.deepEqual(one("a: 'x\n\n  \ny'\n"), { a: 'x\n\ny' });
  assert.deepEqual(one("a: 'x\n\ty'\n"), { a: 'x y' });
  // A line of white space holding a tab is an empty line too, wherever it starts.
  assert.deepEqual(one("a: 'x\n\t\n  y'\n"), { a: 'x\ny' });
  assert.deepEqual(one("a: 'x\n \t \n  y'\n"), { a: 'x\ny' });
  // Quotes, brackets and comment signs inside a quoted value are text.
  assert.deepEqual(one("a: 'it''s [#\nnot ]a list'\nb: \"q \\\" ]\n  #x\"\n"), { a: "it's [# not ]a list", b: 'q " ] #x' });
});

test('a flow list or mapping continued at or left of its key column is read as PyYAML reads it', () => {
  assert.deepEqual(one('a: [x,\ny]\nb: 1\n'), { a: ['x', 'y'], b: 1 });
  // An anchor or a tag before a quoted item: the quote still starts the item (its `]` is text).
  assert.deepEqual(one('a: [&x "]",\nb, !!str "}",\nc]\n'), { a: [']', 'b', '}', 'c'] });
  // After a quoted key, `:` is a value indicator even without a space; `}` inside the quoted value is text.
  assert.deepEqual(one('k: {"a":\'b}\nc\'}\n'), { k: { a: 'b} c' } });
  assert.deepEqual(one('a:\n  b: {k: v,\n m: n}\n  c: 2\n'), { a: { b: { k: 'v', m: 'n' }, c: 2 } });
  assert.deepEqual(one("a:\n  b: [x,\n'q\nr', plain\nmore, it's, [in,\nner]\n# a comment\n]\n"), { a: { b: ['x', 'q r', 'plain more', "it's", ['in', 'ner']] } });
});

test('block scalars, comments and plain values around such values are left as they are', () => {
  const text = "a: |\n  'x\n  [y\nb: 'one\ntwo' # c\n# 'no\nc: plain 'z\nd:\n- [1,\n2]\n";
  assert.deepEqual(one(text), { a: "'x\n[y\n", b: 'one two', c: "plain 'z", d: [[1, 2]] });
});

test('such values are found in every document of a stream, after a document that is a plain value too', () => {
  const r = loadYaml("a\n---\nc: 'x\ny'\n---\nd: [1,\n2]\n");
  assert.deepEqual(r, { ok: true, documents: ['a', { c: 'x y' }, { d: [1, 2] }] });
});

test('a whole Sigma rule written that way loads as PyYAML reads it', () => {
  const rule = parseRule(
    "title: Continued\ndescription: 'Detects a thing\nacross lines'\nlogsource:\n    product: windows\ndetection:\n    sel:\n        Image|endswith: ['\\a.exe',\n'\\b.exe']\n    condition: sel\nlevel: high\n",
  );
  assert.ok(rule.ok, JSON.stringify(rule));
  assert.equal(rule.rule.description, 'Detects a thing across lines');
  assert.deepEqual(rule.rule.detection.sel, { 'Image|endswith': ['\\a.exe', '\\b.exe'] });
});

test('what PyYAML refuses stays refused, with the place in the text as written', () => {
  const refused = (text: string, message: string): void => {
    const r = loadYaml(text);
    assert.ok(!r.ok && r.kind === 'yaml', `${JSON.stringify(text)}: ${JSON.stringify(r)}`);
    assert.equal(r.message, message);
  };
  // No closing quote; a document marker inside a quoted value; a key over two lines.
  refused("a: 'x\nb: 1\n", "YAML syntax error (line 3, column 1): Missing closing 'quote");
  refused("a: 'x\n---\n'\n", "YAML syntax error (line 1, column 6): Missing closing 'quote");
  assert.equal(loadYaml("a:\n  'multi\nkey': 1\n").ok, false);
  // Errors after re-indented lines, and on one, are placed in the text as written.
  refused("a: 'x\ny'\nb: [1,\n2]\nc: 'p\nq'\nd: !!foo 1\n", 'YAML value error (line 7, column 10): the YAML tag !!foo is not supported on a scalar');
  refused("a: 1\nb: 'x\ny' junk\n", 'YAML syntax error (line 3, column 4): Unexpected scalar at node end');
  refused("a: 'x\ny'\nb: [1,\n2]\nc: 'p\nq'\nd: !!foo 1\n".replace('d: !!foo 1', 'a: 2'), 'YAML syntax error (line 7, column 1): Map keys must be unique ("a" is repeated)');
});

test('a text that stays broken is refused where the parser first found it', () => {
  // The quote closes at `it'`: what follows is an error to PyYAML and the parser alike. The later lines
  // are not read as a continued value (the parser would read them otherwise).
  const r = loadYaml("  - 'c d\n     it's\n      \"\n\"k18\": pl'ain");
  assert.deepEqual(r, { ok: false, kind: 'yaml', message: 'YAML syntax error (line 2, column 9): Unexpected scalar at node end' });
});

test('a quoted value whose last quote is escaped is not closed there (PyYAML reads on)', () => {
  assert.deepEqual(one('k: "a\\"\nb"\n'), { k: 'a" b' });
  assert.deepEqual(one('k: "a\\\\"\nb: 1\n'), { k: 'a\\', b: 1 });
  // Read on, what follows the real closing quote is not a mapping any more: PyYAML refuses both.
  assert.equal(loadYaml('k: "a\\"\n"k2": v\n').ok, false);
  assert.equal(loadYaml("k: 'a''\n'k2': v\n").ok, false);
});

test('a key over two lines is refused in a flow mapping as in a block mapping, unless it is explicit or has no value', () => {
  for (const text of ['k: {a\n b: v}\n', "k: {'a\n b': v}\n", 'k: [{"a\n b":v}]\n', 'k: {a\n b:}\n']) {
    assert.deepEqual(loadYaml(text), { ok: false, kind: 'yaml', message: `YAML syntax error (line 1, column ${text.indexOf('{') + 2}): Implicit keys of flow mapping pairs need to be on a single line` }, text);
  }
  assert.deepEqual(one('k: {? a\n b : v, ? &x !!str c\n d : w}\n'), { k: { 'a b': 'v', 'c d': 'w' } });
  assert.deepEqual(one("k: {a\n b, 'c\n d', e: f\n g}\n"), { k: { 'a b': null, 'c d': null, e: 'f g' } });
});

test('empty lines after an escaped line break are line feeds, as PyYAML and YAML 1.2 read them', () => {
  assert.deepEqual(one('k: "a\\\n\n  x"\n'), { k: 'a\nx' });
  assert.deepEqual(one('k: "\\\n   \n \n  x\\\n  y \\\\\n\n  z"\n'), { k: '\n\nxy \\\nz' });
});

test('a long broken line of keys is read in linear time', () => {
  // Every key of the line was read to its end again: 225 KB took seconds.
  const r = loadYaml(`a: ${'b: '.repeat(75_000)}`);
  assert.ok(!r.ok && r.kind === 'yaml', JSON.stringify(r).slice(0, 200));
});

test('re-indenting is linear: thousands of continued values in a large text', () => {
  let text = '';
  for (let i = 0; i < 20_000; i++) text += `k${i}: 'x\ny'\n`;
  const doc = one(text) as Record<string, string>;
  assert.equal(Object.keys(doc).length, 20_000);
  assert.equal(doc.k19999, 'x y');
});
