// Locating the shared corpus from the test tree (repo root is two levels up from this file).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const corpus = resolve(repoRoot, '../shared/corpus');
export const rulesRoot = join(corpus, 'sigma-rules');

/** One SigmaHQ regression case (see ../shared/corpus/regression/README.md). */
export interface RegressionCase {
  rule_path: string;
  rule_id: string;
  events: Record<string, unknown>[];
  raw_events: unknown[];
  min_match_count: number | null;
}

/** Every case of regression/cases.jsonl, in file order. */
export function regressionCases(): RegressionCase[] {
  return readFileSync(join(corpus, 'regression/cases.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RegressionCase);
}

export function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? yamlFiles(p) : p.endsWith('.yml') || p.endsWith('.yaml') ? [p] : [];
  });
}
