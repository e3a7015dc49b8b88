// A rule catalogue for scanning: Sigma texts (with the path they came from) → compiled rules in a
// RuleIndex, plus the metadata a match report needs and the reasons rules were rejected. Pure (the caller
// reads the files). Promises: never throws for rule content; every document of every source either ends up
// in the index, or is a Sigma filter (AND-ed into the rules it names, sigma-notes §8), or is outside the
// pipeline's log-source scope (counted in `outOfScope`), or is a correlation rule (in `correlations`, for the
// caller's correlation engine), or is in `rejected` with a reason; a source
// holding no document is rejected as such; `warnings` reports rules sharing an id (both are kept) and the
// rule set's other oddities (catalog-warnings.ts).
import { parseRules } from '../load/parse-rule.js';
import { compileRule } from '../compile-rule.js';
import { RuleIndex } from '../index/rule-index.js';
import { catalogWarnings } from './catalog-warnings.js';
import { scopeAdmits } from '../pipeline/logsource-scope.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { FieldError, Level, SigmaRule } from '../rule.js';

export interface RuleSource {
  path: string;
  text: string;
}

export interface CatalogRule {
  id: string | null;
  /** The rule's `name` (correlations may reference a rule by it). */
  name: string | null;
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
  /** Number of Sigma filter documents applied. */
  filters: number;
  /** Rules left out because their log source is outside the pipeline's log-source scope. */
  outOfScope: number;
  warnings: string[];
  /** Correlation documents, in the order read (not compiled here). */
  correlations: Array<{ path: string; rule: SigmaRule }>;
}

function reasonOf(errors: FieldError[]): string {
  return errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ');
}

/** `work()`, or undefined after reporting what it threw: a defect met on one rule (it would be a bug of
 * the engine) rejects that rule with the reason instead of ending the whole load. */
function guarded<T>(work: () => T, reject: (reason: string) => void): T | undefined {
  try {
    return work();
  } catch (e) {
    reject(`internal error while loading the rule (please report it): ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

export function buildCatalog(sources: Iterable<RuleSource>, pipeline: Pipeline): RuleCatalog {
  const index = new RuleIndex<number>();
  const rules: CatalogRule[] = [];
  const rejected: RejectedRule[] = [];
  const warnings: string[] = [];
  // Filters may come after the rules they name: every document is read before any rule is compiled.
  const filters: SigmaRule[] = [];
  const correlations: RuleCatalog['correlations'] = [];
  const detections: Array<{ path: string; rule: SigmaRule; which: string; doc: number }> = [];
  for (const { path, text } of sources) {
    const documents = guarded(() => [...parseRules(text)], (reason) => rejected.push({ path, reason }));
    if (documents === undefined) continue;
    // In a file of several documents, a reason says which one it is about.
    const which = (i: number): string => (documents.length > 1 ? `rule ${i + 1} of ${documents.length} in the file: ` : '');
    documents.forEach((parsed, i) => {
      if (!parsed.ok) rejected.push({ path, reason: which(i) + (parsed.kind === 'yaml' ? `YAML: ${parsed.message}` : reasonOf(parsed.errors)) });
      else if (parsed.rule.kind === 'filter') filters.push(parsed.rule);
      else if (parsed.rule.kind === 'correlation') correlations.push({ path, rule: parsed.rule });
      else detections.push({ path, rule: parsed.rule, which: which(i), doc: i + 1 });
    });
    if (documents.length === 0) rejected.push({ path, reason: 'no Sigma document in the file' });
  }
  const firstWithId = new Map<string, { path: string; doc: number }>();
  const loaded: SigmaRule[] = [];
  let outOfScope = 0;
  for (const { path, rule, which, doc } of detections) {
    // Rules of log sources the events cannot hold are left out (counted), not rejected one by one.
    if (!scopeAdmits(pipeline.logsourceScope, rule.logsource)) {
      outOfScope++;
      continue;
    }
    const compiled = guarded(() => compileRule(rule, pipeline, { filters }), (reason) => rejected.push({ path, reason: which + reason }));
    if (compiled === undefined) continue;
    if (!compiled.ok) {
      rejected.push({ path, reason: which + reasonOf(compiled.errors) });
      continue;
    }
    if (rule.id !== undefined) {
      // Ids are UUIDs: one in upper case is the same id.
      const id = rule.id.toLowerCase();
      const first = firstWithId.get(id);
      if (first === undefined) firstWithId.set(id, { path, doc });
      else if (first.path !== path) warnings.push(`rule id ${rule.id} is used by ${first.path} and ${path}`);
      else warnings.push(`rule id ${rule.id} is used by documents ${first.doc} and ${doc} of ${path}`);
    }
    index.add(rules.length, compiled.matcher);
    rules.push({ id: rule.id ?? null, name: rule.name ?? null, title: rule.title, level: rule.level ?? null, path });
    loaded.push(rule);
  }
  warnings.push(...catalogWarnings(pipeline, loaded, filters, index, rules.map((r) => r.title)));
  return { index, rules, rejected, filters: filters.length, outOfScope, warnings, correlations };
}
