// The fast YAML reader agrees with the full parser: on every YAML file of the shared corpus (rules of every
// folder, deprecated, unsupported, tests) and on hand-written edge cases, fastYaml either declines (null)
// or returns exactly the full parser's document (deep equality including key order, -0 and NaN); it
// declines rarely on the corpus (otherwise this test would prove little); seeded random mutations of corpus
// rules (YAML-significant characters inserted, characters deleted, lines duplicated or re-indented) agree
// too.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fastYaml } from '../../src/sigma/load/fast-yaml.js';
import { loadYamlFull } from '../../src/sigma/load/yaml11.js';
import { corpus } from './corpus-helpers.js';

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? yamlFilesUnder(p) : /\.ya?ml$/.test(n) ? [p] : [];
    });
}

function agrees(text: string): 'fast' | 'declined' {
  const fast = fastYaml(text);
  if (fast === null) return 'declined';
  const full = loadYamlFull(text);
  assert.ok(full.ok, `fast path accepted a text the full parser refuses: ${JSON.stringify(full)}`);
  assert.equal(full.documents.length, 1);
  const want = full.documents[0];
  assert.ok(isDeepStrictEqual(fast, want), `values differ:\n${JSON.stringify(fast)}\n${JSON.stringify(want)}`);
  assert.equal(JSON.stringify(fast), JSON.stringify(want), 'key order differs');
  return 'fast';
}

test('fast YAML equals the full parser on every corpus file', () => {
  const files = yamlFilesUnder(corpus);
  let fast = 0;
  for (const f of files) {
    try {
      if (agrees(readFileSync(f, 'utf8')) === 'fast') fast++;
    } catch (e) {
      throw new Error(`${f}: ${(e as Error).message}`);
    }
  }
  assert.ok(files.length > 3000);
  assert.ok(fast > files.length * 0.95, `only ${fast} of ${files.length} files took the fast path`);
});

const CASES = [
  'a: 1\nb: 00000429\nc: 0x1F\nd: 1_000\ne: 1:30\nf: .inf\ng: -.5\nh: yes\ni: Off\nj: ~\nk:\nl: null\nm: 2024-01-01\nn: -0\no: .NaN\n',
  "a: 'it''s'\nb: \"x\\ty\\\\z\\\"\\u00e9\\x41\"\nc: 'a: b' # c\nd: \"#x\"\n",
  'a: |\n  line1\n\n  line2\n\nb: |-\n  x\n   y\nc: >\n  folded\n  text\n\n  para\nd: >-\n  z\ne: |\nf: 1\n',
  'a:\n  - x\n  - y: 1\n    z: 2\n  -\n    w: 3\n  - - nested\nb:\n- at parent indent\n- 2\n',
  'a: plain\n  continued\n\n  after blank\nb: x # comment\n# full comment\n  # indented comment\nc: http://x.y/z?q=1#frag\n',
  'a: 1\na: 2\n',
  'a: b: c\n',
  'a: "x" y\n',
  '__proto__: 1\nconstructor: 2\n1: one\ntrue: t\nnull: n\n',
  'a: &x 1\nb: *x\n',
  'a: [1, 2]\n',
  '--- \na: 1\n',
  'a:\n  b: 1\n   c: 2\n',
  'a:\n  b: 1\n c: 2\n',
  'a: x\n  - y\n',
  'a: |2\n   x\n',
  'a: |\n    x\n  # not content\nb: 1\n',
  'a: "unterminated\n  rest"\n',
  '- a\n- b\n',
  'key with spaces: v\n"quoted": v\n',
  "sel:\n  '|all':\n    - x\n  'a b' : 1\n  '': 2\n  '1': 3\n  'null': 4\n  'x: y': 5\n",
  "'a''b': 1\n",
  "'a' 'b': 1\n",
  "'__proto__': 1\n'|all': 2\n'|all': 3\n",
  'a: -\nb: - x\n',
  'a: 1\n\n\n',
  '# only a comment\n',
  '',
  // Unicode spaces are content to YAML (its white space is the space and the tab).
  'a: x\u00a0\nb: \u00a0x\nc: \u2000\nd\u3000: y \u1680\ne:\n  - z\u202f\n',
  // A block scalar on the last line of a text without a final line break has no break to keep.
  'a: |\n  x',
  'a: >\n  x\n  y',
  'a: |\n  x\n  ',
  // U+2028 and U+2029 are line breaks to YAML 1.1.
  'a: x\u2028\n',
  'a: x\u2029y\n',
];

test('fast YAML edge cases: equal to the full parser or declined', () => {
  for (const text of CASES) {
    try {
      agrees(text);
    } catch (e) {
      throw new Error(`${JSON.stringify(text)}: ${(e as Error).message}`);
    }
  }
  assert.equal(agrees(CASES[0]), 'fast');
  assert.equal(agrees(CASES[2]), 'fast');
  assert.equal(agrees(CASES[5]), 'declined'); // duplicate keys: the full parser reports them
  const quotedKeys = CASES.find((c) => c.startsWith("sel:\n  '|all'"));
  assert.equal(agrees(quotedKeys as string), 'declined'); // `'x: y':` is left to the full parser
  assert.equal(agrees("sel:\n  '|all':\n    - x\n  '': 2\n  'null': 4\n"), 'fast');
  const spaces = CASES.find((c) => c.startsWith('a: x\u00a0')) as string;
  assert.equal(agrees(spaces), 'fast');
  assert.deepEqual(fastYaml(spaces), { a: 'x\u00a0', b: '\u00a0x', c: '\u2000', 'd\u3000': 'y \u1680', e: ['z\u202f'] });
  assert.equal(fastYaml('a: x\u2028\n'), null);
  assert.deepEqual(fastYaml('a: |\n  x'), { a: 'x' });
  assert.deepEqual(fastYaml('a: >\n  x\n  y'), { a: 'x y' });
  assert.deepEqual(fastYaml('a: |\n  x\n  '), { a: 'x\n' });
});

test('fast YAML equals the full parser on seeded random mutations of corpus rules', () => {
  const texts = yamlFilesUnder(join(corpus, 'sigma-rules/rules')).map((f) => readFileSync(f, 'utf8'));
  let seed = 12345;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pieces = [':', '-', ' ', '  ', '#', "'", '"', '|', '>', '\n', '\\', '[', ']', '{', '}', ',', '&', '*', '!', '?', '%', '@', '`', '~', 'yes', 'null', '0x1', '1.5', '- ', ': ', ' #', '|-', '>-', '\n  ', '\n- ', 'é'];
  let fast = 0;
  for (let i = 0; i < 3000; i++) {
    let t = texts[Math.floor(rnd() * texts.length)];
    const mutations = 1 + Math.floor(rnd() * 3);
    for (let m = 0; m < mutations; m++) {
      const pos = Math.floor(rnd() * t.length);
      const op = rnd();
      if (op < 0.4) t = t.slice(0, pos) + pieces[Math.floor(rnd() * pieces.length)] + t.slice(pos);
      else if (op < 0.7) t = t.slice(0, pos) + t.slice(pos + 1 + Math.floor(rnd() * 3));
      else {
        const lines = t.split('\n');
        const k = Math.floor(rnd() * lines.length);
        if (rnd() < 0.5) lines.splice(k, 0, lines[k]);
        else lines[k] = ' '.repeat(Math.floor(rnd() * 6)) + lines[k].trimStart();
        t = lines.join('\n');
      }
    }
    try {
      if (agrees(t) === 'fast') fast++;
    } catch (e) {
      throw new Error(`${JSON.stringify(t)}: ${(e as Error).message}`);
    }
  }
  assert.ok(fast > 500, `only ${fast} mutated texts took the fast path`);
});
