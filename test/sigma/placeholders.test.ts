// Placeholders (`expand`): the names a rule needs, which of them a set of values leaves open, and how
// values expand: OR-linked, as Sigma strings (wildcards in a value are wildcards, `\*` a literal star).
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPipeline, compileRule, missingPlaceholders, parseRule, parseRules, placeholdersOf } from '../../src/sigma/index.js';
import { rulesRoot, yamlFiles } from './corpus-helpers.js';
import { compile, ruleText } from './helpers.js';

const withValues = (vars: Record<string, string[]>) => buildPipeline({ defaultMapping: 'identity', fieldMappings: [], vars });

test('the names a rule uses, in order of first use, once each; literal %x% without expand is no placeholder', () => {
  const parsed = parseRule(
    ruleText(
      "sel:\n    User|expand: ['%Admins%', 'x%Svc%y']\n    Host|contains|expand: '%Admins%'\n    Plain: '%NotOne%'\nother:\n    - Computer|expand: '%DCs%'\ncondition: sel",
    ),
  );
  assert.ok(parsed.ok, JSON.stringify(parsed));
  assert.deepEqual(placeholdersOf(parsed.rule), ['Admins', 'Svc', 'DCs']);
  assert.deepEqual(missingPlaceholders(parsed.rule, { Admins: ['a'], DCs: [] }), ['Svc', 'DCs']);
  assert.deepEqual(missingPlaceholders(parsed.rule, null), ['Admins', 'Svc', 'DCs']);
});

test('values are OR-linked Sigma strings: a * in a value is a wildcard, \\* a literal star, case-insensitive', () => {
  const m = compile("sel:\n    User|expand: '%Administrators%'\ncondition: sel", withValues({ Administrators: ['Administrator', 'Admin*', 'ops\\*'] }));
  assert.equal(m.match({ User: 'administrator' }), true);
  assert.equal(m.match({ User: 'Admin-backup' }), true, 'Admin* is a prefix');
  assert.equal(m.match({ User: 'ops*' }), true);
  assert.equal(m.match({ User: 'ops-1' }), false, '\\* is a literal star');
  assert.equal(m.match({ User: 'guest' }), false);
});

test('a placeholder inside text and under contains: the value takes its place', () => {
  const m = compile("sel:\n    Computer|expand: 'srv-%site%-dc'\n    CommandLine|contains|expand: '%tool%'\ncondition: sel", withValues({ site: ['ams', 'fra?'], tool: ['psexec'] }));
  assert.equal(m.match({ Computer: 'SRV-AMS-DC', CommandLine: 'c:\\tools\\PsExec.exe -s' }), true);
  assert.equal(m.match({ Computer: 'srv-fra1-dc', CommandLine: 'psexec' }), true, '? is one character');
  assert.equal(m.match({ Computer: 'srv-lon-dc', CommandLine: 'psexec' }), false);
});

test('an empty value list is no values: the rule is refused, not compiled to "never"', () => {
  const parsed = parseRule(ruleText("sel:\n    User|expand: '%Admins%'\ncondition: sel"));
  assert.ok(parsed.ok);
  const c = compileRule(parsed.rule, withValues({ Admins: [] }));
  assert.ok(!c.ok && /placeholder %Admins% has no values/.test(c.errors[0].message));
});

test('every SigmaHQ placeholder rule compiles once its placeholders have values', () => {
  let n = 0;
  for (const dir of ['rules', 'rules-emerging-threats', 'rules-threat-hunting', 'rules-placeholder']) {
    for (const file of yamlFiles(join(rulesRoot, dir))) {
      const text = readFileSync(file, 'utf8');
      if (!text.includes('|expand')) continue;
      for (const r of parseRules(text)) {
        assert.ok(r.ok, file);
        const names = placeholdersOf(r.rule);
        assert.ok(names.length > 0, file);
        const c = compileRule(r.rule, buildPipeline({ defaultMapping: 'identity', fieldMappings: [], preset: 'windows-thor', vars: Object.fromEntries(names.map((x) => [x, ['value-1', 'value-2*']])) }));
        assert.ok(c.ok, `${file}: ${JSON.stringify(!c.ok && c.errors)}`);
        n++;
      }
    }
  }
  assert.equal(n, 25);
});
