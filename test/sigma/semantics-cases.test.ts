// Black-box semantics cases (fixtures/semantics-cases.jsonl): 484 small rules, each with a few events and
// the outcome the Sigma specification (sigma-notes §2–§5, §13) and the reference implementation give them,
// written before the engine was run on them: wildcards and escapes, case folding, null and empty values,
// numbers, arrays and nested fields, keyword searches, every modifier, the condition grammar, and rules
// that must be refused. Each rule is loaded the way `vigil scan` loads it (one catalogue per rule, the
// candidate index included); then all rules share one index, which must give every rule the same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildCatalog, getPreset } from '../../src/sigma/index.js';
import type { Pipeline, RuleCatalog } from '../../src/sigma/index.js';

interface Case {
  case: string;
  note: string;
  rule: string;
  events: string[];
  rejected: boolean;
  matches: boolean[];
}

const cases: Case[] = readFileSync(new URL('./fixtures/semantics-cases.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Case);
const pipeline = getPreset('sigma-native') as Pipeline;

/** An event line as `vigil scan` reads it: a JSON object, or nothing (a skipped line matches no rule). */
function eventOf(line: string): object | null {
  try {
    const e = JSON.parse(line) as unknown;
    return typeof e === 'object' && e !== null && !Array.isArray(e) ? e : null;
  } catch {
    return null;
  }
}

/** Rule numbers (in `catalog.rules`) matching `line`; nothing for a line that is no event or too deep. */
function matching(catalog: RuleCatalog, line: string): number[] {
  const event = eventOf(line);
  if (event === null) return [];
  try {
    return catalog.index.match(event);
  } catch {
    return [];
  }
}

test('the semantics cases: each rule alone is refused, or matches exactly the events it should', () => {
  assert.equal(cases.length, 484);
  const failures: string[] = [];
  for (const c of cases) {
    const catalog = buildCatalog([{ path: c.case, text: c.rule }], pipeline);
    if (c.rejected) {
      if (catalog.rules.length !== 0 || catalog.rejected.length === 0) failures.push(`${c.case} (${c.note}): expected the rule to be refused`);
      continue;
    }
    if (catalog.rules.length !== 1) {
      failures.push(`${c.case} (${c.note}): refused: ${catalog.rejected.map((r) => r.reason).join('; ')}`);
      continue;
    }
    const got = c.events.map((line) => matching(catalog, line).includes(0));
    if (JSON.stringify(got) !== JSON.stringify(c.matches)) failures.push(`${c.case} (${c.note}): expected ${JSON.stringify(c.matches)}, got ${JSON.stringify(got)}`);
  }
  assert.deepEqual(failures, []);
});

test('the semantics cases: all rules in one index answer as each rule alone', () => {
  const loaded = cases.filter((c) => !c.rejected);
  const catalog = buildCatalog(
    loaded.map((c) => ({ path: c.case, text: c.rule })),
    pipeline,
  );
  assert.equal(catalog.rules.length, loaded.length);
  const number = new Map(catalog.rules.map((r, i) => [r.path, i]));
  const failures: string[] = [];
  // Twice over, the second time in reverse: the index's caches and memos must not change an answer.
  const order = [...loaded, ...[...loaded].reverse()];
  for (const c of order) {
    const own = number.get(c.case) as number;
    c.events.forEach((line, i) => {
      if (matching(catalog, line).includes(own) !== c.matches[i]) failures.push(`${c.case} event ${i} (${c.note})`);
    });
  }
  assert.deepEqual(failures, []);
});
