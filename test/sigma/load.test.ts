// Loading and validation: YAML 1.1 scalars, syntax errors with lines, size/alias/duplicate refusals,
// validation order and paths, collections (action: global), correlation/filter documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRule, parseRules } from '../../src/sigma/index.js';
import { resolvePlainScalar } from '../../src/sigma/load/yaml11-scalars.js';
import { fastYaml } from '../../src/sigma/load/fast-yaml.js';
import { loadYaml, MAX_DOCUMENTS } from '../../src/sigma/load/yaml11.js';

const base = `title: T\nlogsource:\n    product: windows\nlevel: high\ndetection:\n    sel:\n        A: x\n    condition: sel\n`;

test('PyYAML 1.1 plain scalar resolution', () => {
  assert.equal(resolvePlainScalar('00000429'), '00000429');
  assert.equal(resolvePlainScalar('0777'), 511);
  assert.equal(resolvePlainScalar('0x1F'), 31);
  assert.equal(resolvePlainScalar('1_000'), 1000);
  assert.equal(resolvePlainScalar('1:30'), 90);
  assert.equal(resolvePlainScalar('1.5'), 1.5);
  assert.equal(resolvePlainScalar('1e5'), '1e5');
  assert.equal(resolvePlainScalar('yes'), true);
  assert.equal(resolvePlainScalar('Off'), false);
  assert.equal(resolvePlainScalar('~'), null);
  assert.equal(resolvePlainScalar('2024-01-02'), '2024-01-02');
  assert.equal(resolvePlainScalar('12345678901234567890'), '12345678901234567890');
  assert.equal(resolvePlainScalar('0x8000000000000000'), '9223372036854775808');
});

test('quoted scalars stay strings', () => {
  const r = parseRule(base.replace('A: x', "A: '0x10'\n        B: 0x10"));
  assert.ok(r.ok);
  if (r.ok) assert.deepEqual((r.rule.detection.sel as Record<string, unknown>), { A: '0x10', B: 16 });
});

test('a parsed rule exposes its attributes', () => {
  const r = parseRule(`title: T\nid: 0e95725d-7320-415d-80f7-004da920fc11\nstatus: test\ndescription: d\nauthor: me\ntags:\n    - attack.t1059\n` + base.slice(8));
  assert.ok(r.ok, JSON.stringify(r));
  if (!r.ok) return;
  assert.equal(r.rule.title, 'T');
  assert.equal(r.rule.id, '0e95725d-7320-415d-80f7-004da920fc11');
  assert.equal(r.rule.level, 'high');
  assert.deepEqual(r.rule.tags, ['attack.t1059']);
  assert.deepEqual(r.rule.logsource, { product: 'windows' });
  assert.equal(r.rule.kind, 'detection');
});

test('YAML syntax error: kind yaml with a line number', () => {
  const r = parseRule('title: T\ndetection: [a\nlevel: x');
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.kind, 'yaml');
    if (r.kind === 'yaml') assert.match(r.message, /line \d+/);
  }
});

test('duplicate keys, alias bombs and documents over 1 MiB are refused', () => {
  const dup = parseRule(base + 'level: low\n');
  assert.ok(!dup.ok && dup.kind === 'yaml' && /unique/.test(dup.message));
  const bomb = ['a: &a [x,x,x,x,x,x,x,x,x]'];
  for (let i = 1; i < 9; i++) bomb.push(`${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${new Array(9).fill('*' + 'abcdefghi'[i - 1]).join(',')}]`);
  const t0 = Date.now();
  const b = parseRule(bomb.join('\n') + '\n');
  assert.ok(!b.ok && b.kind === 'yaml' && /alias/.test(b.message));
  assert.ok(Date.now() - t0 < 1000);
  const big = parseRule(base + 'description: ' + 'x'.repeat(1024 * 1024) + '\n');
  assert.ok(!big.ok && big.kind === 'validation' && /1 MiB/.test(big.errors[0].message));
});

test('scalars PyYAML cannot construct are refused with the reason, never thrown', () => {
  for (const text of ['0x_', '-0x__', '+0b_']) {
    const doc = `${base}x: ${text}\n`;
    assert.doesNotThrow(() => parseRules(doc));
    const r = parseRule(doc);
    assert.ok(!r.ok && r.kind === 'yaml', JSON.stringify(r));
    if (!r.ok && r.kind === 'yaml') assert.equal(r.message, `YAML value error (line 9, column 4): '${text}' is not a valid integer`);
  }
  assert.deepEqual(loadYaml('a: -0\nb: 0_\n'), { ok: true, documents: [{ a: 0, b: 0 }] });
  // Timestamps Python's datetime refuses, and the value and merge indicators `=` and `<<` (results from
  // PyYAML 6); both readers (a mapping, and the same in a one-line flow form the fast reader declines).
  const refused: Array<[string, RegExp]> = [
    ['2023-02-30', /'2023-02-30' is not a valid timestamp: day is out of range for month/],
    ['2023-02-29', /day is out of range for month/],
    ['2023-13-01', /month must be in 1\.\.12/],
    ['0000-01-01', /year 0 is out of range/],
    ['2023-01-01 24:00:00', /hour must be in 0\.\.23/],
    ['2023-01-01T23:60:00', /minute must be in 0\.\.59/],
    ['2023-01-01T23:59:60', /second must be in 0\.\.59/],
    ['2023-1-1 1:00:00 +24:00', /the UTC offset must be less than 24 hours/],
    ['=', /constructor for the tag 'tag:yaml.org,2002:value'/],
    ['<<', /constructor for the tag 'tag:yaml.org,2002:merge'/],
  ];
  for (const [text, reason] of refused) {
    for (const doc of [`a: ${text}\n`, `{a: ${text}}\n`, `${text}: x\n`]) {
      const r = loadYaml(doc);
      assert.ok(!r.ok && r.kind === 'yaml' && reason.test(r.message), `${doc}: ${JSON.stringify(r)}`);
    }
  }
  const kept = loadYaml("a: 2024-02-29\nb: 2023-1-1 1:00:00 +23:59\nc: 2023-01-01t21:59:43.10-05:00\nd: 2023-1-1\ne: 2023-01-32x\nf: '2023-02-30'\ng: '='\n");
  assert.deepEqual(kept, { ok: true, documents: [{ a: '2024-02-29', b: '2023-1-1 1:00:00 +23:59', c: '2023-01-01t21:59:43.10-05:00', d: '2023-1-1', e: '2023-01-32x', f: '2023-02-30', g: '=' }] });
  // Characters PyYAML's reader refuses, wherever they are (a BOM and NEL are fine).
  for (const [doc, code, where] of [['a: x\x07\n', '0007', '1, column 5'], ["a: 1\nb: '\x7f'\n", '007f', '2, column 5'], ['a: \x9f\n', '009f', '1, column 4'], ['a: \ufffe\n', 'fffe', '1, column 4'], ['a: \ud800\n', 'd800', '1, column 4'], ['a: |\n  \x00\n', '0000', '2, column 3']]) {
    assert.deepEqual(loadYaml(doc), { ok: false, kind: 'yaml', message: `YAML syntax error (line ${where}): unacceptable character #x${code}: special characters are not allowed` }, doc);
  }
  assert.deepEqual(loadYaml('\ufeffa: \ufeffb\tc 😀\n'), { ok: true, documents: [{ a: '\ufeffb\tc 😀' }] });
  const negativeZero = loadYaml('a: -0\n');
  assert.ok(negativeZero.ok && Object.is((negativeZero.documents[0] as { a: number }).a, 0));
});

test('explicit tags build what PyYAML builds; tags without a constructor are refused', () => {
  const ok = loadYaml("a: !!int '5'\nb: !!float 1\nc: !!float 1e3\nd: !!bool yEs\ne: !!null x\nf: !!str 5\ng: ! '5'\nh: !!timestamp 2023-01-01\ni: !!int 0x1F\n");
  assert.deepEqual(ok, { ok: true, documents: [{ a: 5, b: 1, c: 1000, d: true, e: null, f: '5', g: 5, h: '2023-01-01', i: 31 }] });
  for (const [text, reason] of [
    ['a: !!int abc\n', "'abc' is not a valid !!int"],
    ['a: !!bool maybe\n', "'maybe' is not a valid !!bool"],
    ['a: !!bool constructor\n', "'constructor' is not a valid !!bool"],
    ['a: !!binary aGk=\n', 'the YAML tag !!binary is not supported on a scalar'],
    ['a: !custom x\n', 'the YAML tag !custom is not supported on a scalar'],
    ['a: !!set {x, y}\n', 'the YAML tag !!set is not supported'],
    ['a: !!timestamp 2023-02-30\n', "'2023-02-30' is not a valid timestamp: day is out of range for month"],
  ]) {
    const r = loadYaml(text);
    assert.ok(!r.ok && r.kind === 'yaml' && r.message.endsWith(reason), `${text}: ${JSON.stringify(r)}`);
  }
});

test("PyYAML's line breaks: CR LF, a lone CR and NEL are line feeds; a leading byte order mark is dropped", () => {
  assert.deepEqual(loadYaml('a: 1\rb: 2\r'), { ok: true, documents: [{ a: 1, b: 2 }] });
  assert.deepEqual(loadYaml('a: x\u0085b: y\r\nc: f\r'), { ok: true, documents: [{ a: 'x', b: 'y', c: 'f' }] });
  // A byte order mark starts the text whatever its first node is; elsewhere it is a character.
  assert.deepEqual(loadYaml('\ufeff- a\n- b\n'), { ok: true, documents: [['a', 'b']] });
  assert.deepEqual(loadYaml('a: 1\n---\n\ufeffb: 2\n'), { ok: true, documents: [{ a: 1 }, { '\ufeffb': 2 }] });
  const crlf = parseRule(base.replace(/\n/g, '\r\n'));
  assert.ok(crlf.ok && (crlf.rule.detection.sel as Record<string, unknown>).A === 'x');
});

test('a block scalar that ends the text without a line break has no final break (both parsers)', () => {
  assert.deepEqual(loadYaml('---\na: |\n  x'), { ok: true, documents: [{ a: 'x' }] });
  assert.deepEqual(loadYaml('---\na: >\n  x\n  y'), { ok: true, documents: [{ a: 'x y' }] });
  assert.deepEqual(loadYaml('---\na: |\n  x\n'), { ok: true, documents: [{ a: 'x\n' }] });
  assert.deepEqual(loadYaml('---\na: |\n  x\n---\nb: |\n  y'), { ok: true, documents: [{ a: 'x\n' }, { b: 'y' }] });
});

test('a comment ends a plain scalar: a continuation line after it is an error', () => {
  assert.equal(fastYaml('a: b # c\n  d\n'), null);
  const r = loadYaml('a: b # c\n  d\n');
  assert.ok(!r.ok && r.kind === 'yaml', JSON.stringify(r));
  assert.deepEqual(loadYaml('a: b # c\nd: e\n'), { ok: true, documents: [{ a: 'b', d: 'e' }] });
});


test('a comment right after a closing quote or bracket is a comment, as PyYAML reads it', () => {
  assert.deepEqual(loadYaml("a: 'x'#note\nb: \"y\"#note\n"), { ok: true, documents: [{ a: 'x', b: 'y' }] });
  assert.deepEqual(loadYaml('a: [1, 2]#note\nb: {c: d}#note\n'), { ok: true, documents: [{ a: [1, 2], b: { c: 'd' } }] });
  assert.deepEqual(loadYaml("- 'x'#note\n- y\n"), { ok: true, documents: [['x', 'y']] });
  // Where a flow item may start (after an opening bracket or a comma), too.
  assert.deepEqual(loadYaml('a: [#note\n  x]\nb: {k: v,#note\n  m: n}\n'), { ok: true, documents: [{ a: ['x'], b: { k: 'v', m: 'n' } }] });
  // Elsewhere a `#` needs a space before it to start a comment: PyYAML refuses these too.
  for (const text of ['a: |#note\n  x\n', 'a: &x#note 1\n']) assert.equal(loadYaml(text).ok, false, text);
  assert.deepEqual(loadYaml('a: b#c\n'), { ok: true, documents: [{ a: 'b#c' }] });
});

test('U+2028 and U+2029 are line breaks to PyYAML: kept only inside a quoted string, refused elsewhere', () => {
  // Inside a quoted string with no space or tab beside it, both readers keep the character.
  assert.deepEqual(loadYaml("a: 'x\u2028y'\nb: \"p\u2029q\"\n"), { ok: true, documents: [{ a: 'x\u2028y', b: 'p\u2029q' }] });
  // Anywhere else PyYAML breaks the line there (`a: 1<LS>b: 2` is two keys to it; a comment ends there):
  // refused rather than read otherwise.
  const refused: Array<[string, string]> = [
    ['a: 1\u2028b: 2\n', 'line 1, column 5'],
    ['a: x # note\u2028b: 3\n', 'line 1, column 12'],
    ['a: |\n  x\u2028y\n', 'line 2, column 4'],
    ["a: 'x \u2028y'\n", 'line 1, column 7'],
    ['# only a comment\u2029x\n', 'line 1, column 17'],
  ];
  for (const [text, where] of refused) {
    const r = loadYaml(text);
    assert.ok(!r.ok && r.message.startsWith(`YAML syntax error (${where}): U+202`) && r.message.includes('is a line break to the reference YAML reader'), `${JSON.stringify(text)}: ${JSON.stringify(r)}`);
  }
  const rule = parseRule(base.replace('level: high', 'level: high\ndescription: first\u2028second'));
  assert.ok(!rule.ok && rule.kind === 'yaml' && rule.message.includes('U+2028 (line separator)'), JSON.stringify(rule));
});

test('an anchor defined twice in a document or with a name PyYAML cannot read, and a list or mapping as a key, are refused as PyYAML refuses them', () => {
  const twice = loadYaml('a: &x 1\nb:\n  c: &x 2\nd: *x\n');
  assert.ok(!twice.ok && twice.kind === 'yaml', JSON.stringify(twice));
  assert.equal(twice.message, "YAML syntax error (line 3, column 6): found duplicate anchor 'x' (first defined at line 1, column 4)");
  // Anchors belong to their document.
  assert.deepEqual(loadYaml('a: &x 1\n---\nb: &x 2\n'), { ok: true, documents: [{ a: 1 }, { b: 2 }] });
  for (const text of ['? [a, b]\n: 1\n', 'k: {[a]: 1}\n', 'k:\n  ? {a: 1}\n  : 2\n']) {
    const r = loadYaml(text);
    assert.ok(!r.ok && /found unhashable key/.test(r.message), `${text}: ${JSON.stringify(r)}`);
  }
  const rule = parseRule(base.replace('detection:', 'x: &a 1\ny: &a 2\ndetection:'));
  assert.ok(!rule.ok && rule.kind === 'yaml' && rule.message.includes("found duplicate anchor 'a'"), JSON.stringify(rule));
  // PyYAML's anchor names are ASCII letters, digits, '-' and '_'.
  const name = loadYaml('a: &x.y 1\nb: *x.y\n');
  assert.ok(!name.ok && name.message === "YAML syntax error (line 1, column 4): the anchor name 'x.y' may hold only ASCII letters, digits, '-' and '_'", JSON.stringify(name));
  assert.deepEqual(loadYaml('a: &Az_09- 1\nb: *Az_09-\n'), { ok: true, documents: [{ a: 1, b: 1 }] });
});
test('large maps and streams load in linear time; aliases, documents and nesting are bounded', () => {
  // 30,000 keys through the general parser (the `---` keeps the fast reader out): duplicate keys are
  // found with a set, not by comparing every pair.
  const keys = Array.from({ length: 30_000 }, (_, i) => `k${i}: ${i}`);
  const many = loadYaml(`---\n${keys.join('\n')}\n`);
  assert.ok(many.ok && Object.keys(many.documents[0] as object).length === 30_000);
  const dup = loadYaml(`---\n${keys.join('\n')}\nk7: again\n`);
  assert.ok(!dup.ok && dup.message === 'YAML syntax error (line 30002, column 1): Map keys must be unique ("k7" is repeated)', JSON.stringify(dup));
  // 50 aliases of a 40,000-item list would build two million nodes.
  const amplified = loadYaml(`a: &a [${new Array(40_000).fill('x').join(',')}]\n${Array.from({ length: 50 }, (_, i) => `b${i}: *a`).join('\n')}\n`);
  assert.ok(!amplified.ok && /aliases expand to too many nodes/.test(amplified.message), JSON.stringify(amplified).slice(0, 200));
  const stream = parseRules(`${'---\na: 1\n'.repeat(MAX_DOCUMENTS + 1)}`);
  assert.ok(stream.length === 1 && !stream[0].ok && stream[0].kind === 'validation');
  if (!stream[0].ok && stream[0].kind === 'validation') assert.equal(stream[0].errors[0].message, `the text holds more than ${MAX_DOCUMENTS} YAML documents`);
  const deep = loadYaml(`a: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
  assert.deepEqual(deep, { ok: false, kind: 'yaml', message: 'YAML syntax error (line 1, column 259): the document is nested more than 256 levels deep' });
});

test('validation order and paths: schema, then required attributes, then detection', () => {
  const schema = parseRule(base.replace('level: high', 'level: severe'));
  assert.ok(!schema.ok && schema.kind === 'validation');
  if (!schema.ok && schema.kind === 'validation') assert.deepEqual(schema.errors.map((e) => e.field), ['level']);
  const missing = parseRule('title: T\ndetection:\n    sel:\n        A|foo: x\n    condition: sel\n');
  if (!missing.ok && missing.kind === 'validation') assert.deepEqual(missing.errors.map((e) => e.field), ['logsource', 'level']);
  else assert.fail('expected validation errors');
  const det = parseRule(base.replace('A: x', 'Image|endwith: x'));
  if (!det.ok && det.kind === 'validation') assert.deepEqual(det.errors, [{ field: 'detection.sel.Image|endwith', message: "unknown modifier 'endwith'" }]);
  else assert.fail('expected validation errors');
  const cond = parseRule(base.replace('condition: sel', 'condition: sel and other'));
  if (!cond.ok && cond.kind === 'validation') assert.equal(cond.errors[0].field, 'detection.condition');
  else assert.fail('expected validation errors');
});

test('schema: related, name, taxonomy, license, fields, scope and dates are checked as the reference checks them', () => {
  const errorsOf = (extra: string) => {
    const r = parseRule(`${extra}\n${base}`);
    return r.ok ? [] : r.kind === 'validation' ? r.errors : [{ field: '(yaml)', message: r.message }];
  };
  const good = [
    'related:\n  - id: 0e8c2f3a-5b8e-4f0e-9c1d-2a3b4c5d6e7f\n    type: derived\n  - id: 1e8c2f3a-5b8e-4f0e-9c1d-2a3b4c5d6e7f\n    type: Obsolete',
    'name: my_rule\ntaxonomy: sigma\nlicense: DRL-1.1\nfields:\n  - CommandLine\nscope:\n  - server',
    'related: null\nfields: null',
  ];
  for (const extra of good) assert.deepEqual(errorsOf(extra), [], extra);
  assert.deepEqual(errorsOf('related:\n  - 0e8c2f3a-5b8e-4f0e-9c1d-2a3b4c5d6e7f'), [{ field: 'related[0]', message: 'must be a map with an id and a type' }]);
  assert.deepEqual(errorsOf('related:\n  - id: 0e8c2f3a\n    type: cousin'), [
    { field: 'related[0].id', message: 'id must be a UUID' },
    { field: 'related[0].type', message: 'type must be one of correlation, derived, merged, obsolete, renamed, similar' },
  ]);
  assert.deepEqual(errorsOf('related:\n  id: 0e8c2f3a-5b8e-4f0e-9c1d-2a3b4c5d6e7f'), [{ field: 'related', message: 'must be a list' }]);
  assert.deepEqual(errorsOf('license:\n  - MIT'), [{ field: 'license', message: 'must be a string' }]);
  assert.deepEqual(errorsOf('fields: CommandLine'), [{ field: 'fields', message: 'must be a list' }]);
  assert.deepEqual(errorsOf('scope: server'), [{ field: 'scope', message: 'must be a list' }]);
  for (const date of ["'2024-02-29'", '2024/2/9', "'2024/12/31'", '2023-01-01 10:00:00', '2023-1-5T10:00:00Z']) {
    assert.deepEqual(errorsOf(`date: ${date}`), [], date);
  }
  for (const date of ["'2023-02-29'", "'2024-13-01'", "'2024-00-10'", "'2024-1-5'", '2024/2/30', "'20240101'", "'2023-01-01 25:00:00'"]) {
    assert.deepEqual(errorsOf(`modified: ${date}`), [{ field: 'modified', message: 'must be a date YYYY-MM-DD' }], date);
  }
  assert.deepEqual(errorsOf(`name: ${'n'.repeat(257)}`), [{ field: 'name', message: 'must be at most 256 characters' }]);
  assert.deepEqual(errorsOf("name: ''\ntaxonomy: ''"), [
    { field: 'taxonomy', message: 'must not be empty' },
    { field: 'name', message: 'must not be empty' },
  ]);
});

test('action: global collections are merged into each rule', () => {
  const text = `action: global\ntitle: G\nlevel: high\nlogsource:\n    product: windows\ndetection:\n    condition: sel\n---\ndetection:\n    sel:\n        A: 1\n---\ndetection:\n    sel:\n        B: 2\n`;
  const results = parseRules(text);
  assert.equal(results.length, 2);
  assert.ok(results.every((r) => r.ok && r.rule.title === 'G'));
  const single = parseRule(text);
  assert.ok(!single.ok && single.kind === 'validation' && /^the text holds 2 Sigma documents where one rule is expected$/.test(single.errors[0].message));
});

test('correlation and filter documents parse', () => {
  const c = parseRule(`title: C\ncorrelation:\n    type: event_count\n    rules: [a]\n    group-by: [User]\n    timespan: 5m\n    condition:\n        gte: 10\n`);
  assert.ok(c.ok && c.rule.kind === 'correlation' && c.rule.correlation?.timespanSeconds === 300);
  const bad = parseRule(`title: C\ncorrelation:\n    type: nope\n    rules: [a]\n    timespan: 5x\n`);
  assert.ok(!bad.ok && bad.kind === 'validation' && bad.errors.some((e) => e.field === 'correlation.timespan'));
  const f = parseRule(`title: F\nlogsource:\n    product: windows\nfilter:\n    rules: any\n    sel:\n        User: admin\n    condition: not sel\n`);
  assert.ok(f.ok && f.rule.kind === 'filter' && f.rule.filter?.rules === 'any');
});

test('bulk import: parseRules accepts a large stream of small documents, refuses one oversized document', () => {
  const one = base.replace('title: T', 'title: T\n# ' + 'x'.repeat(200 * 1024));
  const stream = Array.from({ length: 8 }, () => one).join('---\n');
  const results = parseRules(stream);
  assert.equal(results.length, 8);
  assert.ok(results.every((r) => r.ok));
  const big = parseRules(base + '---\n' + base.replace('title: T', 'title: T\n# ' + 'x'.repeat(1100 * 1024)));
  assert.ok(big.length === 1 && !big[0].ok && big[0].kind === 'validation' && /1 MiB/.test(big[0].errors[0].message));
});

test('a __proto__ key is an ordinary field, never a prototype', () => {
  const r = parseRule(base.replace('A: x', "__proto__: x\n        B: y").replace('level: high', 'level: high\n__proto__:\n    level: low'));
  assert.ok(r.ok, JSON.stringify(r));
  if (!r.ok) return;
  const sel = r.rule.detection.sel as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(sel), Object.prototype);
  assert.deepEqual(Object.keys(sel), ['__proto__', 'B']);
  assert.equal(Object.getPrototypeOf(r.rule.raw), Object.prototype);
  assert.equal(r.rule.level, 'high');
});
