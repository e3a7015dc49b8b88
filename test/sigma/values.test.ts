// Value semantics (sigma-notes §2.4, §3): wildcards, escaping, case, null, empty, numbers, booleans.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from './helpers.js';
import { parseSigmaString, ANY, ONE } from '../../src/sigma/detection/sigma-string.js';

test('escaping: \\* \\? \\\\ are literal, other backslashes are kept, trailing backslash kept', () => {
  assert.deepEqual(parseSigmaString('escaped\\*\\?\\\\*?').parts, ['escaped*?\\', ANY, ONE]);
  assert.deepEqual(parseSigmaString('\\W').parts, ['\\W']);
  assert.deepEqual(parseSigmaString('\\Windows\\').parts, ['\\Windows\\']);
  assert.deepEqual(parseSigmaString('\\\\cmd.exe').parts, ['\\cmd.exe']);
  assert.deepEqual(parseSigmaString('\\\\\\*\\IPC$').parts, ['\\*\\IPC$']);
  assert.deepEqual(parseSigmaString('\\\\\\\\\\*\\\\IPC$').parts, ['\\\\*\\IPC$']);
  assert.deepEqual(parseSigmaString('\\\\*').parts, ['\\', ANY]);
  assert.deepEqual(parseSigmaString('\\\\WindowsPowerShell\\\\Modules\\\\*\\.ps').parts, ['\\WindowsPowerShell\\Modules\\', ANY, '\\.ps']);
});

test("plain value is an anchored, case-insensitive equality; '\\cmd.exe' and '\\\\cmd.exe' agree", () => {
  const m = compile(`sel:\n    Image: 'C:\\Windows\\System32\\whoami.exe'\ncondition: sel`);
  assert.equal(m.match({ Image: 'c:\\windows\\system32\\WHOAMI.exe' }), true);
  assert.equal(m.match({ Image: 'c:\\windows\\system32\\whoami.exe2' }), false);
  const a = compile(`sel:\n    Image|endswith: '\\cmd.exe'\ncondition: sel`);
  const b = compile(`sel:\n    Image|endswith: '\\\\cmd.exe'\ncondition: sel`);
  for (const ev of [{ Image: 'C:\\x\\CMD.EXE' }, { Image: 'C:\\x\\notcmd.exe' }]) assert.equal(a.match(ev), b.match(ev));
});

test('* and ? wildcards vs escaped \\* and \\?', () => {
  const w = compile(`sel:\n    F: 'a*b?c'\ncondition: sel`);
  assert.equal(w.match({ F: 'aXXXbYc' }), true);
  assert.equal(w.match({ F: 'abYc' }), true);
  assert.equal(w.match({ F: 'abc' }), false);
  assert.equal(w.match({ F: 'a\nb\nc' }), true, '* and ? also match newlines');
  const lit = compile(`sel:\n    F: 'a\\*b\\?c'\ncondition: sel`);
  assert.equal(lit.match({ F: 'a*b?c' }), true);
  assert.equal(lit.match({ F: 'aXb?c' }), false);
  const kw = compile(`keywords:\n    - 'select \\*'\ncondition: keywords`);
  assert.equal(kw.match({ q: 'SELECT * from x' }), true);
  assert.equal(kw.match({ q: 'select a from x' }), false);
});

test('trailing backslash and \\\\* (backslash then wildcard)', () => {
  const m = compile(`sel:\n    F|startswith: 'C:\\Windows\\'\ncondition: sel`);
  assert.equal(m.match({ F: 'C:\\Windows\\x' }), true);
  assert.equal(m.match({ F: 'C:\\Windowsx' }), false);
  const n = compile(`sel:\n    F: 'C:\\\\*'\ncondition: sel`);
  assert.equal(n.match({ F: 'C:\\anything' }), true);
});

test('null, empty string, empty list', () => {
  const m = compile(`sel:\n    F: null\ncondition: sel`);
  assert.equal(m.match({}), true);
  assert.equal(m.match({ F: null }), true);
  assert.equal(m.match({ F: '' }), false);
  const e = compile(`sel:\n    F: ''\ncondition: sel`);
  assert.equal(e.match({ F: '' }), true);
  assert.equal(e.match({}), false);
  assert.equal(e.match({ F: 'x' }), false);
  const l = compile(`sel:\n    F: []\ncondition: sel`);
  assert.equal(l.match({}), true);
  assert.equal(l.match({ F: 'x' }), false);
});

test('null and exists on arrays: an empty array is present and not null; a null member is null', () => {
  const isNull = compile(`sel:\n    F: null\ncondition: sel`);
  const exists = compile(`sel:\n    F|exists: true\ncondition: sel`);
  const absent = compile(`sel:\n    F|exists: false\ncondition: sel`);
  const nested = compile(`sel:\n    a.b|exists: true\ncondition: sel`);
  const cases: Array<[object, boolean, boolean]> = [
    // event, null, exists
    [{}, true, false],
    [{ F: null }, true, true],
    [{ F: [] }, false, true],
    [{ F: [[]] }, false, true],
    [{ F: [null, 'x'] }, true, true],
    [{ F: ['x'] }, false, true],
  ];
  for (const [event, n, x] of cases) {
    assert.equal(isNull.match(event), n, `null on ${JSON.stringify(event)}`);
    assert.equal(exists.match(event), x, `exists on ${JSON.stringify(event)}`);
    assert.equal(absent.match(event), !x, `not exists on ${JSON.stringify(event)}`);
  }
  assert.equal(nested.match({ a: { b: [] } }), true);
  assert.equal(nested.match({ 'a.b': [] }), true);
  assert.equal(nested.match({ a: [{ c: 1 }, { b: [] }] }), true);
  assert.equal(nested.match({ a: [] }), false);
});

test('numbers match numerically or as their decimal string; YAML 1.1 keeps 00000429 a string', () => {
  const m = compile(`sel:\n    EventID: 4688\ncondition: sel`);
  assert.equal(m.match({ EventID: 4688 }), true);
  assert.equal(m.match({ EventID: '4688' }), true);
  assert.equal(m.match({ EventID: 46880 }), false);
  const s = compile(`sel:\n    Details|contains: [00000429, 00050429]\ncondition: sel`);
  assert.equal(s.match({ Details: 'x00000429y' }), true);
  assert.equal(s.match({ Details: '429' }), false);
});

test('booleans match JSON booleans and true/false strings', () => {
  const m = compile(`sel:\n    Signed: false\ncondition: sel`);
  assert.equal(m.match({ Signed: false }), true);
  assert.equal(m.match({ Signed: 'FALSE' }), true);
  assert.equal(m.match({ Signed: 'true' }), false);
});

test('maps are AND, lists are OR, list of maps is OR of ANDs', () => {
  const m = compile(`sel:\n    A: 1\n    B: [x, y]\ncondition: sel`);
  assert.equal(m.match({ A: 1, B: 'y' }), true);
  assert.equal(m.match({ A: 1, B: 'z' }), false);
  assert.equal(m.match({ B: 'x' }), false);
  const lm = compile(`sel:\n    - A: 1\n      B: x\n    - C: 2\ncondition: sel`);
  assert.equal(lm.match({ A: 1, B: 'x' }), true);
  assert.equal(lm.match({ C: 2 }), true);
  assert.equal(lm.match({ A: 1 }), false);
});

test('keywords: substring across all values, case-insensitive; numbers as strings; |all', () => {
  const m = compile(`keywords:\n    - 'mimikatz'\n    - 42\ncondition: keywords`);
  assert.equal(m.match({ a: { b: ['x', 'run MIMIKATZ now'] } }), true);
  assert.equal(m.match({ n: 1423 }), true);
  assert.equal(m.match({ a: 'nothing' }), false);
  const all = compile(`keywords:\n    '|all':\n        - 'foo'\n        - 'bar'\ncondition: keywords`);
  assert.equal(all.match({ a: 'foo', b: 'xbarx' }), true);
  assert.equal(all.match({ a: 'foo' }), false);
});

test('fields: flat dotted keys, nested paths, mixed, arrays, spaces stripped', () => {
  const m = compile(`sel:\n    a.b.c: x\ncondition: sel`);
  assert.equal(m.match({ 'a.b.c': 'x' }), true);
  assert.equal(m.match({ a: { b: { c: 'x' } } }), true);
  assert.equal(m.match({ 'a.b': { c: 'x' } }), true);
  assert.equal(m.match({ a: [{ b: { c: 'y' } }, { b: { c: ['z', 'X'] } }] }), true);
  assert.equal(m.match({ a: { b: { c: 'y' } } }), false);
  const d = compile(`sel:\n    ThreatName|contains: eicar\ncondition: sel`);
  assert.equal(d.match({ 'Threat Name': 'Virus:DOS/EICAR_Test_File' }), true);
  const sp = compile(`sel:\n    'Threat Name': x\ncondition: sel`);
  assert.equal(sp.match({ 'Threat Name': 'x' }), true);
  assert.equal(sp.match({ ThreatName: 'x' }), true, 'both sides compare with spaces removed');
});

test('large OR lists of substrings (automaton path) match like small ones, incl. non-ASCII', () => {
  const values = Array.from({ length: 40 }, (_, i) => `'needle${i}x'`).concat(["'\u{1F600}smile'", "'ÄRGER'"]);
  const m = compile(`sel:\n    F|contains:\n${values.map((v) => `        - ${v}`).join('\n')}\ncondition: sel`);
  assert.equal(m.match({ F: 'aaa NEEDLE17X bbb' }), true);
  assert.equal(m.match({ F: 'aaa needle17 bbb' }), false);
  assert.equal(m.match({ F: 'x \u{1F600}SMILE y' }), true);
  assert.equal(m.match({ F: 'großer ärger' }), true);
  assert.equal(m.match({ F: ['no', 'needle39x'] }), true);
  assert.equal(m.match({ F: 12 }), false);
});
