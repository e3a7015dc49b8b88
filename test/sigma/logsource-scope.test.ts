// Log-source scope: the decision table of "can this rule's log source occur in this stream", the
// messages naming log sources, a pipeline with a scope refusing rules outside it, and the SigmaHQ
// corpus split under `product: windows`.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPipeline, compileRule, describeLogsource, describeScope, parseRules, scopeAdmits, type LogsourceKeys } from '../../src/sigma/index.js';
import { rulesRoot, yamlFiles } from './corpus-helpers.js';
import { ruleText } from './helpers.js';

const WINDOWS = [{ product: 'windows' }];
const SYSMON_OR_PROCESSES = [{ product: 'windows', service: 'sysmon' }, { category: 'process_creation' }];

test('decision table', () => {
  const cases: Array<[LogsourceKeys[] | null, LogsourceKeys, boolean, string]> = [
    [null, { product: 'zeek', service: 'dns' }, true, 'no scope: any'],
    [[], { product: 'zeek' }, true, 'empty scope: any'],
    [WINDOWS, { product: 'windows', category: 'process_creation' }, true, 'same product'],
    [WINDOWS, { product: 'windows', service: 'security' }, true, 'same product, a service'],
    [WINDOWS, { product: 'zeek', service: 'dns' }, false, 'Zeek'],
    [WINDOWS, { product: 'cisco', service: 'aaa' }, false, 'Cisco'],
    [WINDOWS, { product: 'linux', category: 'process_creation' }, false, 'Linux'],
    [WINDOWS, { product: 'macos', category: 'process_creation' }, false, 'macOS'],
    [WINDOWS, { product: 'aws', service: 'cloudtrail' }, false, 'cloud'],
    [WINDOWS, { category: 'process_creation' }, true, 'generic category Windows produces'],
    [WINDOWS, { category: 'antivirus' }, true, 'antivirus: Defender'],
    [WINDOWS, { category: 'webserver' }, false, 'web server logs: no Windows source known'],
    [WINDOWS, { category: 'proxy' }, false, 'proxy'],
    [WINDOWS, { category: 'dns' }, false, 'generic dns (not dns_query)'],
    [WINDOWS, { service: 'apache' }, false, 'a service of no known Windows source'],
    [[{ product: 'windows', service: 'sysmon' }], { product: 'windows', category: 'process_creation' }, true, 'Sysmon 1'],
    [[{ product: 'windows', service: 'sysmon' }], { product: 'windows', category: 'ps_script' }, false, 'PowerShell channel, not Sysmon'],
    [[{ product: 'windows', service: 'sysmon' }], { product: 'windows', service: 'security' }, false, 'other service'],
    [[{ product: 'windows', service: 'sysmon' }], { product: 'windows' }, true, 'product only: Sysmon is Windows'],
    [[{ product: 'windows', service: 'sysmon' }], { product: 'windows', category: 'file_access' }, false, 'no known Sysmon source'],
    [SYSMON_OR_PROCESSES, { product: 'linux', category: 'process_creation' }, true, 'second entry: any process creation'],
    [SYSMON_OR_PROCESSES, { product: 'windows', category: 'registry_set' }, true, 'first entry: Sysmon 13'],
    [SYSMON_OR_PROCESSES, { product: 'windows', service: 'system' }, false, 'neither entry'],
    [[{ category: 'process_creation' }], { product: 'windows', service: 'security' }, true, 'Security 4688 is a process creation'],
    [[{ category: 'process_creation' }], { product: 'windows', service: 'system' }, false, 'System has no process creations'],
    [[{ product: 'linux' }], { category: 'process_creation' }, true, 'Linux produces process creations'],
    [[{ product: 'zeek' }], { category: 'dns' }, false, 'no table says Zeek: add {category: dns} to carry them'],
    [[{ product: 'zeek' }, { category: 'dns' }], { category: 'dns' }, true, 'carried explicitly'],
    [WINDOWS, { product: 'Windows' }, false, 'case-sensitive, as pySigma compares log sources'],
  ];
  for (const [scope, rule, expected, why] of cases) assert.equal(scopeAdmits(scope, rule), expected, `${why}: ${JSON.stringify(scope)} ∋ ${JSON.stringify(rule)}`);
});

test('log sources are described product, category, service; scope entries separated by semicolons', () => {
  assert.equal(describeLogsource({ service: 'dns', product: 'zeek' }), 'product: zeek, service: dns');
  assert.equal(describeLogsource({ category: 'process_creation', product: 'windows' }), 'product: windows, category: process_creation');
  assert.equal(describeScope(SYSMON_OR_PROCESSES), 'product: windows, service: sysmon; category: process_creation');
});

test('a pipeline with a scope refuses rules outside it, naming both', () => {
  const pipeline = buildPipeline({ defaultMapping: 'identity', fieldMappings: [], preset: 'windows-thor', logsourceScope: WINDOWS });
  const [zeek] = parseRules(ruleText('sel:\n    query: x\ncondition: sel', 'product: zeek\n    service: dns'));
  assert.ok(zeek.ok);
  const refused = compileRule(zeek.rule, pipeline);
  assert.ok(!refused.ok);
  assert.deepEqual(refused.errors, [
    { field: 'logsource', message: "rule logsource (product: zeek, service: dns) is outside the log sources of pipeline 'windows-thor+custom' (product: windows)" },
  ]);
  const [win] = parseRules(ruleText('sel:\n    Image: x\ncondition: sel', 'category: process_creation'));
  assert.ok(win.ok);
  assert.ok(compileRule(win.rule, pipeline).ok);
});

test('SigmaHQ rules under product: windows: every rule of rules/windows kept, no rule of another product kept', () => {
  const kept: Record<string, number> = {};
  const refused: Record<string, number> = {};
  for (const dir of ['rules', 'rules-emerging-threats', 'rules-threat-hunting', 'rules-placeholder', 'rules-compliance']) {
    for (const file of yamlFiles(join(rulesRoot, dir))) {
      for (const r of parseRules(readFileSync(file, 'utf8'))) {
        if (!r.ok || r.rule.kind !== 'detection') continue;
        const key = r.rule.logsource.product ?? `(${r.rule.logsource.category ?? r.rule.logsource.service})`;
        const tally = scopeAdmits(WINDOWS, r.rule.logsource) ? kept : refused;
        tally[key] = (tally[key] ?? 0) + 1;
      }
    }
  }
  assert.deepEqual(Object.keys(kept).sort(), ['(antivirus)', 'windows']);
  assert.ok(kept.windows > 2500, JSON.stringify(kept));
  assert.equal(refused.windows, undefined);
  for (const other of ['linux', 'macos', 'zeek', 'cisco', 'aws', 'azure', '(webserver)', '(proxy)']) assert.ok(refused[other] > 0, other);
});
