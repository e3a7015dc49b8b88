// A rule catalogue for scanning: Sigma texts (with the path they came from) → compiled rules in a
// RuleIndex, plus the metadata a match report needs and the reasons rules were rejected. Pure (the caller
// reads the files). Promises: never throws for rule content; every document of every source either ends up
// in the index or in `rejected` with a reason; correlation and filter documents are rejected (scan matches
// single events only).
import { parseRules } from '../load/parse-rule.js';
import { compileRule } from '../compile-rule.js';
import { RuleIndex } from '../index/rule-index.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { Level } from '../rule.js';

export interface RuleSource {
  path: string;
  text: string;
}

export interface CatalogRule {
  id: string | null;
  title: string;
  level: Level | null;
  path: string;
}

export interface RejectedRule {
  path: string;
  reason: string;
}

export interface RuleCatalog {
  index: RuleIndex<number>;
  rules: CatalogRule[];
  rejected: RejectedRule[];
}

export function buildCatalog(sources: Iterable<RuleSource>, pipeline: Pipeline): RuleCatalog {
  const index = new RuleIndex<number>();
  const rules: CatalogRule[] = [];
  const rejected: RejectedRule[] = [];
  for (const { path, text } of sources) {
    for (const parsed of parseRules(text)) {
      if (!parsed.ok) {
        const reason =
          parsed.kind === 'yaml' ? `YAML: ${parsed.message}` : parsed.errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ');
        rejected.push({ path, reason });
        continue;
      }
      const rule = parsed.rule;
      if (rule.kind !== 'detection') {
        rejected.push({ path, reason: `${rule.kind} rules are not evaluated by scan (single events only)` });
        continue;
      }
      const compiled = compileRule(rule, pipeline);
      if (!compiled.ok) {
        rejected.push({ path, reason: compiled.errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ') });
        continue;
      }
      index.add(rules.length, compiled.matcher);
      rules.push({ id: rule.id ?? null, title: rule.title, level: rule.level ?? null, path });
    }
  }
  return { index, rules, rejected };
}
