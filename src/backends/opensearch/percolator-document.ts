// A stored query as a percolator document: its detection compiled to the OpenSearch DSL for the layout of
// document.ts, with the fields it reads; or the reason the DSL cannot express it exactly.
import { compileDsl } from '../../sigma/index.js';
import type { StoredQuery } from '../backend.js';
import { compileStoredQuery } from '../embedded/stored-query-compiler.js';
import { DSL_OPTIONS, fieldsOf, noFieldUse, type FieldUse } from './document.js';
import type { PercolatorDocument } from './percolator-index.js';

/** The percolator document of a stored query with the fields it reads (added to `use`), or why the DSL cannot express it. */
export function percolatorDocumentOf(query: StoredQuery, use: FieldUse = noFieldUse()): { ok: true; doc: PercolatorDocument; use: FieldUse } | { ok: false; reason: string } {
  const compiled = query.compiled ? { ok: true as const, rule: query.compiled } : compileStoredQuery(query);
  if (!compiled.ok) return { ok: false, reason: compiled.reason };
  const dsl = compileDsl(compiled.rule.ir, DSL_OPTIONS);
  if (!dsl.ok) return { ok: false, reason: dsl.errors.join('; ') };
  return { ok: true, doc: { id: query.id, ruleId: query.ruleId, ruleVersion: query.ruleVersion, query: dsl.query }, use: fieldsOf(compiled.rule.ir, use) };
}

/** The 400 for a rule the OpenSearch DSL cannot express exactly. */
export const inexpressible = (reason: string) => `Validation failed: the rule cannot be expressed as an OpenSearch query: ${reason}`;

/** Longest reason a stand-in document carries. */
const REASON_CHARS = 500;

/** The stand-in document of a rule the cluster cannot percolate: matches nothing there, names the reason. */
export function locallyMatchedDocument(query: Pick<StoredQuery, 'id' | 'ruleId' | 'ruleVersion'>, reason: string): PercolatorDocument {
  const named = `matched by Vigil, not on the cluster: ${reason}`.slice(0, REASON_CHARS);
  return { id: query.id, ruleId: query.ruleId, ruleVersion: query.ruleVersion, query: { match_none: { _name: named } } };
}

/**
 * The document to write for a stored query: its DSL, or, when the DSL cannot express it and matching is
 * local, the stand-in; with matching on the cluster such a query is refused (`reason`).
 */
export function documentToWrite(query: StoredQuery, use: FieldUse, matching: 'local' | 'cluster'): { doc: PercolatorDocument; reason?: undefined } | { doc?: undefined; reason: string } {
  const built = percolatorDocumentOf(query, use);
  if (built.ok) return { doc: built.doc };
  if (matching === 'local') return { doc: locallyMatchedDocument(query, built.reason) };
  return { reason: built.reason };
}
