// Sigma filters: applied when logsource and rule reference match; `(rule) and (filter condition)`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalog, compileRule, getPreset, parseRule } from '../../src/sigma/index.js';
import type { SigmaRule } from '../../src/sigma/index.js';

function parse(text: string): SigmaRule {
  const r = parseRule(text);
  assert.ok(r.ok, JSON.stringify(r));
  return r.rule;
}

const rule = parse(`title: R\nid: 5638f7c0-ac70-491d-8465-2a65075e0d86\nname: failed_logon\nlogsource:\n    product: windows\n    service: security\nlevel: low\ndetection:\n    selection:\n        EventID: 4625\n    condition: selection\n`);
const filter = (rules: string, logsource = 'product: windows') =>
  parse(`title: F\nlogsource:\n    ${logsource}\nfilter:\n    rules: ${rules}\n    selection:\n        User: admin\n    condition: not selection\n`);

test('a filter referencing the rule by id, by name or any removes its matches', () => {
  for (const refs of ['[5638f7c0-ac70-491d-8465-2a65075e0d86]', '[5638F7C0-AC70-491D-8465-2A65075E0D86]', '[failed_logon]', 'any']) {
    const c = compileRule(rule, undefined, { filters: [filter(refs)] });
    assert.ok(c.ok);
    if (!c.ok) return;
    assert.equal(c.matcher.match({ EventID: 4625, User: 'bob' }), true, refs);
    assert.equal(c.matcher.match({ EventID: 4625, User: 'ADMIN' }), false, refs);
  }
});

test('a filter for another rule or another logsource does not apply', () => {
  for (const f of [filter('[other_rule]'), filter('any', 'product: linux')]) {
    const c = compileRule(rule, undefined, { filters: [f] });
    assert.ok(c.ok && c.matcher.match({ EventID: 4625, User: 'admin' }));
  }
});

test('explain names filter selections with a prefix', () => {
  const f = parse(`title: F\nlogsource:\n    product: windows\nfilter:\n    rules: any\n    selection:\n        User: bob\n    condition: selection\n`);
  const c = compileRule(rule, undefined, { filters: [f] });
  assert.ok(c.ok);
  if (c.ok) {
    assert.deepEqual(c.matcher.explain({ EventID: 4625, User: 'bob' }).matchedConditions, [
      { selection: { EventID: 4625 } },
      { 'filter1:selection': { User: 'bob' } },
    ]);
  }
});

test('catalogue warnings: filter references naming no loaded rule, rules the pipeline has no conditions for', () => {
  const sources = [
    { path: 'r.yml', text: `title: R\nid: 5638f7c0-ac70-491d-8465-2a65075e0d86\nlogsource:\n    product: windows\n    service: security\nlevel: low\ndetection:\n    selection:\n        EventID: 4625\n    condition: selection\n` },
    { path: 'z.yml', text: `title: Z\nlogsource:\n    product: zeek\n    service: rdp\nlevel: low\ndetection:\n    selection:\n        x: 1\n    condition: selection\n` },
    { path: 'f.yml', text: `title: F\nlogsource:\n    product: windows\nfilter:\n    rules: [5638F7C0-AC70-491D-8465-2A65075E0D86, gone_rule]\n    selection:\n        User: admin\n    condition: not selection\n` },
  ];
  const notOnly = { path: 'n.yml', text: `title: Public RDP\nlogsource:\n    product: zeek\n    service: rdp\nlevel: low\ndetection:\n    selection:\n        id.orig_h|cidr: 10.0.0.0/8\n    condition: not selection\n` };
  assert.deepEqual(buildCatalog([sources[0], notOnly], getPreset('sigma-native')!).warnings, [
    "1 rules match an event that holds none of their fields ('Public RDP'): they match every event without those fields",
  ]);
  const thor = buildCatalog(sources, getPreset('windows-thor')!);
  assert.deepEqual(thor.warnings, [
    "filter 'F' names 'gone_rule', which is no loaded rule",
    "1 rules have a log source the pipeline 'windows-thor' has no conditions for (not Windows, or a Windows source it does not know): they run on every event",
  ]);
  assert.equal(thor.filters, 1);
  // sigma-native has no log source conditions at all: nothing to warn about.
  assert.deepEqual(buildCatalog(sources, getPreset('sigma-native')!).warnings, ["filter 'F' names 'gone_rule', which is no loaded rule"]);
  // An id written in upper case is the same id.
  const twice = buildCatalog([sources[0], { path: 'r2.yml', text: sources[0].text.replace('5638f7c0-ac70-491d-8465-2a65075e0d86', '5638F7C0-AC70-491D-8465-2A65075E0D86') }], getPreset('sigma-native')!);
  assert.deepEqual(twice.warnings, ['rule id 5638F7C0-AC70-491D-8465-2A65075E0D86 is used by r.yml and r2.yml']);
  // Documents of one collection sharing an id are named by their place in the file.
  const collection = buildCatalog([{ path: 'c.yml', text: `${sources[0].text}\n---\n${sources[0].text}` }], getPreset('sigma-native')!);
  assert.deepEqual(collection.warnings, ['rule id 5638f7c0-ac70-491d-8465-2a65075e0d86 is used by documents 1 and 2 of c.yml']);
});

test('a defect met while loading one rule rejects that rule with the reason; the others load', () => {
  const native = getPreset('sigma-native')!;
  // A pipeline that fails once, while the rule is compiled, stands in for a bug of the engine.
  let reads = 0;
  const faulty = {
    ...native,
    get logsources() {
      if (reads++ === 0) throw new Error('boom');
      return native.logsources;
    },
  };
  const good = { path: 'good.yml', text: 'title: Good\nlogsource: {product: windows}\nlevel: low\ndetection:\n  sel:\n    A: 1\n  condition: sel\n' };
  const catalog = buildCatalog([good], faulty);
  assert.deepEqual(catalog.rules, []);
  assert.deepEqual(catalog.rejected, [{ path: 'good.yml', reason: 'internal error while loading the rule (please report it): boom' }]);
  assert.equal(buildCatalog([good], native).rules.length, 1);
});
