// From YAML to a rule the service can store, deploy or test: the spec's validation order
// (1) YAML syntax → 400, (2) Sigma schema and (3) required fields → 422 (text no column can hold, from a
// "\ud800" or "\0" escape, included), (4) every field mapped by the
// index pattern → 422, then compilation (unsafe regexes; placeholders without values when testing) → 422.
import { compileCorrelations, compileRule, compileSafeRegex, missingPlaceholders, parseRule, unmappedFields as unmappedBy, type CompiledRule, type Pipeline, type SigmaRule } from '../sigma/index.js';
import { badRequest, unprocessable, type FieldError } from '../http/errors.js';
import { unstorableTexts } from '../http/storable-text.js';
import { pipelineOf } from '../index-patterns/pipeline.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import type { RuleContent } from './store.js';

export const MAX_RULE_BYTES = 1024 * 1024;
export type ValidationDetail = 'Validation failed' | 'Rule validation failed';

/** A text of several rules is refused where one is expected; say where several go. */
function withImportHint(error: { field: string; message: string }) {
  return / Sigma documents where one rule is expected$/.test(error.message) ? { ...error, message: `${error.message}; import several rules with POST /api/rules/import` } : error;
}

/** Steps (1)–(3): parses and validates; throws the documented 400/422. */
export function parseSigma(yaml: string, detail: ValidationDetail): SigmaRule {
  if (Buffer.byteLength(yaml, 'utf8') > MAX_RULE_BYTES) throw badRequest('Invalid YAML syntax: the document is larger than 1 MiB');
  const parsed = parseRule(yaml);
  if (!parsed.ok) {
    if (parsed.kind === 'yaml') throw badRequest(`Invalid YAML syntax: ${parsed.message}`);
    throw unprocessable(detail, parsed.errors.map(withImportHint));
  }
  // A "\ud800" or "\0" escape in the YAML loads as text no column can hold: refused where it is.
  const badText = unstorableTexts(parsed.rule.raw);
  if (badText.length > 0) throw unprocessable(detail, badText.map(({ path, message }) => ({ field: yamlPath(path), message })));
  if (parsed.rule.kind === 'filter') {
    throw unprocessable(detail, [{ field: 'filter', message: 'filter rules cannot be stored as rules; use rule exceptions' }]);
  }
  return parsed.rule;
}

/** A place in the rule document as the rule validation names it: `detection.selection.Image`, `tags[0]`. */
function yamlPath(path: string[]): string {
  let out = '';
  for (const segment of path) out += /^\d+$/.test(segment) ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  return out || 'document';
}

/** Where a Sigma field is used in the detection, as a path such as detection.selection.Image|endswith. */
function usagePaths(detection: Record<string, unknown>, field: string): string[] {
  const paths: string[] = [];
  const visit = (node: unknown, path: string) => {
    if (Array.isArray(node)) node.forEach((child) => visit(child, path));
    else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        if (key.split('|')[0] === field) paths.push(`${path}.${key}`);
      }
    }
  };
  for (const [name, search] of Object.entries(detection)) if (name !== 'condition') visit(search, `detection.${name}`);
  return paths.length > 0 ? paths : ['detection'];
}

/** Step (4): fields the pattern does not map, as {field, message} errors. */
export function unmappedFields(rule: SigmaRule, pattern: IndexPatternRow, pipeline: Pipeline = pipelineOf(pattern)): { field: string; errors: FieldError[] }[] {
  return unmappedBy(rule, pipeline).map((field) => ({
    field,
    errors: usagePaths(rule.detection, field).map((path) => ({
      field: path,
      message: `field '${field}' is not mapped in index pattern '${pattern.name}'`,
    })),
  }));
}

/**
 * Steps (4) and compilation for a pattern (or the field names as they are, without one). The pattern's
 * log-source scope and placeholder values are deploy prerequisites (deployment.ts), not conditions of
 * storing a rule: to store one (`purpose: 'store'`, the default for 'Validation failed') a placeholder
 * without values compiles as a wildcard, so a rule can be kept until its pattern gives the values; to
 * test one (the default for 'Rule validation failed') missing values are a 422 naming them, since the
 * test would not answer what the deployed rule will do.
 */
export function compileFor(
  rule: SigmaRule,
  pattern: IndexPatternRow | undefined,
  detail: ValidationDetail,
  purpose: 'store' | 'test' = detail === 'Validation failed' ? 'store' : 'test',
): CompiledRule {
  const pipeline: Pipeline = { ...(pattern ? pipelineOf(pattern) : identityPipeline()), logsourceScope: undefined };
  if (pattern) {
    const unmapped = unmappedFields(rule, pattern, pipeline);
    if (unmapped.length > 0) throw unprocessable(detail, unmapped.flatMap((u) => u.errors));
  }
  if (purpose === 'store') pipeline.unresolvedPlaceholders = 'wildcard';
  else {
    const missing = missingPlaceholders(rule, pattern?.placeholders);
    if (missing.length > 0) throw unprocessable(detail, [{ field: 'detection', message: placeholdersMessage(missing, pattern) }]);
  }
  const compiled = compileRule(rule, pipeline);
  if (!compiled.ok) throw unprocessable(detail, withDetectionPaths(compiled.errors, rule.detection));
  return compiled.matcher;
}

/**
 * The engine reports regexes it refuses by the (mapped) event field, as `detection (<field>)`; the
 * API promises paths into the rule (`detection.selection.CommandLine|re`), so those are located again.
 */
function withDetectionPaths(errors: FieldError[], detection: Record<string, unknown>): FieldError[] {
  if (!errors.some((e) => e.field.startsWith('detection ('))) return errors;
  const located = regexErrors(detection);
  if (located.length === 0) return errors;
  return [...errors.filter((e) => !e.field.startsWith('detection (')), ...located];
}

function regexErrors(detection: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (node: unknown, path: string) => {
    if (Array.isArray(node)) node.forEach((child) => visit(child, path));
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        const modifiers = key.split('|').slice(1);
        if (!modifiers.includes('re')) continue;
        for (const source of Array.isArray(value) ? value : [value]) {
          if (typeof source !== 'string') continue;
          const compiled = compileSafeRegex({ source, i: modifiers.includes('i'), m: modifiers.includes('m'), s: modifiers.includes('s') });
          if (!compiled.ok) errors.push({ field: `${path}.${key}`, message: compiled.message });
        }
      }
    }
  };
  for (const [name, search] of Object.entries(detection)) if (name !== 'condition') visit(search, `detection.${name}`);
  return errors;
}

/** `placeholder(s) %a%, %b% have no values in index pattern 'p'` (or, without a pattern, that one is needed). */
export function placeholdersMessage(missing: string[], pattern: Pick<IndexPatternRow, 'name'> | undefined): string {
  const names = missing.map((n) => `%${n}%`).join(', ');
  return pattern ? `placeholder(s) ${names} have no values in index pattern '${pattern.name}'` : `placeholder(s) ${names} have no values without an index pattern that gives them`;
}

/** Field names as written: how a rule reads events without an index pattern. */
export function identityPipeline(): Pipeline {
  return { name: 'identity', description: 'field names as written', defaultMapping: 'identity', fieldMappings: {}, logsources: [], vars: {}, unresolvedPlaceholders: 'error' };
}

/**
 * A rule's validation after parsing: a detection compiles for the pattern (compileFor); a correlation
 * must be one the engine evaluates (its type, condition, timespan and aliases). Whether the rules it
 * references exist is a question for the database (correlation-refs.ts).
 */
export function checkRule(rule: SigmaRule, pattern: IndexPatternRow | undefined, detail: ValidationDetail, purpose?: 'store' | 'test'): void {
  if (rule.kind === 'correlation') checkCorrelation(rule, detail);
  else compileFor(rule, pattern, detail, purpose);
}

/** 422 when the engine cannot evaluate a correlation rule, with its reason. */
export function checkCorrelation(rule: SigmaRule, detail: ValidationDetail): void {
  const [rejected] = compileCorrelations([rule]).rejected;
  if (rejected) throw unprocessable(detail, [{ field: 'correlation', message: rejected.reason }]);
}

/** The stored columns derived from a parsed rule. */
export function contentOf(rule: SigmaRule, yaml: string, title: string | undefined, indexPatternId: string | null): RuleContent {
  const level = rule.level ?? 'medium';
  const logsource: Record<string, string> = {};
  for (const [k, v] of Object.entries(rule.logsource)) if (typeof v === 'string') logsource[k] = v;
  return {
    title: title ?? rule.title,
    yaml_content: yaml,
    severity: level,
    level,
    tags: rule.tags,
    description: rule.description ?? null,
    author: rule.author ?? null,
    logsource,
    sigma_id: rule.id ?? null,
    index_pattern_id: indexPatternId,
    rule_type: rule.kind === 'correlation' ? 'correlation' : 'detection',
    sigma_name: rule.name ?? null,
    correlation_refs: rule.correlation ? [...new Set(rule.correlation.rules.map((r) => r.toLowerCase()))] : null,
  };
}
