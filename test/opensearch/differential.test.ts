// Proof of equivalence on a real node: every SigmaHQ rule under rules/ is compiled for the embedded
// matcher and, where the DSL can express it, written as a percolator document exactly as the OpenSearch
// backend writes it (and percolated as it does: the node evaluates the candidate index's candidates); the regression events, case and suffix variants of them, and events generated from
// each rule's own values are matched by both. The (rule, event) pairs must be identical; the rules the
// DSL refuses are counted with their reasons (deploy refuses them with 400). Prints the counts.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { Client } from '@opensearch-project/opensearch';
import { compileRule, getPreset, parseRules, RuleIndex, type CompiledRule, type IRNode } from '../../src/sigma/index.js';
import { ANY, ONE } from '../../src/sigma/detection/sigma-string.js';
import { percolatorDocumentOf } from '../../src/backends/opensearch/percolator-document.js';
import { PercolatorIndices, type PercolatorDocument } from '../../src/backends/opensearch/percolator-index.js';
import { EventProjection, noFieldUse } from '../../src/backends/opensearch/document.js';
import { openSearchMissing, OPENSEARCH_TEST_URL, testIndices } from '../helpers/opensearch.js';
import { regressionCases, rulesRoot, yamlFiles } from '../sigma/corpus-helpers.js';

const missing = await openSearchMissing();
const INDEX = 'svc-percolator-differential';
const PERCOLATE_BATCH = 100;

interface Loaded {
  id: string;
  path: string;
  rule: CompiledRule;
}

/** An event that satisfies each exact or wildcard string test of the rule with one value (a likely hit). */
function eventFromRule(ir: IRNode, event: Record<string, unknown> = {}): Record<string, unknown> {
  switch (ir.t) {
    case 'and':
    case 'or':
      for (const c of ir.of) eventFromRule(c, event);
      break;
    case 'sel':
      eventFromRule(ir.of, event);
      break;
    case 'match':
      if (ir.fields && ir.fields.length > 0 && ir.test.op === 'str' && !(ir.fields[0] in event)) {
        event[ir.fields[0]] = ir.test.parts.map((p) => (p === ANY ? 'xX' : p === ONE ? 'y' : p)).join('');
      } else if (ir.fields && ir.fields.length > 0 && ir.test.op === 'num' && !(ir.fields[0] in event)) {
        event[ir.fields[0]] = ir.test.n;
      }
      break;
    default:
      break;
  }
  return event;
}

const mapStrings = (e: object, f: (s: string) => string) =>
  Object.fromEntries(Object.entries(e).map(([k, v]) => [k, typeof v === 'string' ? f(v) : v]));

test('the OpenSearch backend and the embedded matcher report the same (rule, event) pairs on the SigmaHQ corpus', { skip: missing ?? false, timeout: 30 * 60_000 }, async (t) => {
  const indices = testIndices();
  const client = new Client({ node: OPENSEARCH_TEST_URL, requestTimeout: 600_000 });
  const percolator = new PercolatorIndices(client, indices.prefix);
  t.after(async () => {
    await indices.deleteAll();
    await client.close();
  });

  const pipeline = getPreset('sigma-native')!;
  const loaded: Loaded[] = [];
  const refused: Array<{ path: string; reason: string }> = [];
  const docs: PercolatorDocument[] = [];
  const use = noFieldUse();
  for (const file of yamlFiles(`${rulesRoot}/rules`)) {
    for (const parsed of parseRules(readFileSync(file, 'utf8'))) {
      if (!parsed.ok || parsed.rule.kind !== 'detection') continue;
      const compiled = compileRule(parsed.rule, pipeline);
      if (!compiled.ok) continue;
      const id = `r${loaded.length}`;
      const path = relative(rulesRoot, file);
      const built = percolatorDocumentOf({ id, ruleId: id, ruleVersion: 1, yaml: '', pipeline: {} as never, compiled: compiled.matcher }, use);
      if (!built.ok) {
        refused.push({ path, reason: built.reason });
        continue;
      }
      loaded.push({ id, path, rule: compiled.matcher });
      docs.push(built.doc);
    }
  }
  await percolator.ensureFields(INDEX, use);
  const started = performance.now();
  const refusedByNode = new Set<string>();
  for (const r of await percolator.put(INDEX, docs)) {
    refusedByNode.add(r.id);
    refused.push({ path: loaded.find((l) => l.id === r.id)!.path, reason: `OpenSearch refused it: ${r.reason}` });
  }
  await percolator.refresh([INDEX]);
  const deploySeconds = (performance.now() - started) / 1000;
  loaded.splice(0, loaded.length, ...loaded.filter((l) => !refusedByNode.has(l.id)));

  const base = regressionCases().flatMap((c) => c.events);
  const events: object[] = [
    ...base,
    ...base.map((e) => mapStrings(e, (s) => s.toUpperCase())),
    ...base.map((e) => mapStrings(e, (s) => s.toLowerCase())),
    ...base.map((e) => mapStrings(e, (s) => `${s} `)),
    ...loaded.map((l) => eventFromRule(l.rule.ir)),
  ];
  const projection = new EventProjection(use);
  // As the backend does: the node evaluates the candidate index's candidates for the batch.
  const candidateIndex = new RuleIndex<string>();
  for (const l of loaded) candidateIndex.add(l.id, l.rule);
  const percolateStarted = performance.now();
  const differences: string[] = [];
  let pairs = 0;
  for (let start = 0; start < events.length; start += PERCOLATE_BATCH) {
    const batch = events.slice(start, start + PERCOLATE_BATCH);
    const candidates = new Set(batch.flatMap((e) => candidateIndex.candidates(e)));
    const matches = candidates.size === 0 ? batch.map(() => []) : await percolator.percolate(INDEX, batch.map((e) => projection.project(e)), [...candidates]);
    for (const [i, event] of batch.entries()) {
      const fromCluster = new Set(matches[i]);
      for (const l of loaded) {
        const js = l.rule.match(event);
        if (js) pairs++;
        if (js !== fromCluster.has(l.id)) differences.push(`${l.path}: embedded ${js}, OpenSearch ${!js} on ${JSON.stringify(event).slice(0, 300)}`);
      }
    }
  }
  const percolateSeconds = (performance.now() - percolateStarted) / 1000;
  const reasons = new Map<string, number>();
  for (const r of refused) {
    const key = r.reason.replace(/^[^:]*: /, '').replace(/\/.*\//, '/…/').slice(0, 80);
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  console.log(
    `differential: ${loaded.length} rules on the node, ${refused.length} refused at deploy; ${events.length} events; ` +
      `${pairs} matching (rule, event) pairs; ${differences.length} differences; ` +
      `${docs.length} documents written in ${deploySeconds.toFixed(1)} s; percolation ${(events.length / percolateSeconds).toFixed(0)} events/s`,
  );
  console.log(`refusal reasons: ${JSON.stringify([...reasons].sort((a, b) => b[1] - a[1]).slice(0, 12))}`);
  assert.deepEqual(differences.slice(0, 20), []);
  assert.ok(loaded.length > 2500, `${loaded.length} rules expressed`);
  assert.ok(pairs > 1000, `${pairs} pairs`);
});

