// Bulk import of many rules at once (e.g. a SigmaHQ release): each document is validated like
// POST /api/rules; valid ones are created (and deployed when asked) in batched transactions, each
// rule atomically with its version, stored query and audit entry. Answers per-document results.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../http/context.js';
import { HttpError, type FieldError } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import { BackendUnavailableError } from '../backends/backend.js';
import { findDefaultPattern, findPatternByName, type IndexPatternRow } from '../index-patterns/store.js';
import { compileFor, contentOf, parseSigma } from './analysis.js';
import { checkDeployable, deployRule } from './deployment.js';
import type { ImportDocument } from './import-sources.js';
import { insertRule, insertVersion, type RuleContent } from './store.js';
import type { Actor } from './service.js';

const BATCH = 200;

export interface ImportFailure {
  index: number;
  path?: string;
  title?: string;
  error: string;
  errors?: FieldError[];
}

export interface ImportResult {
  created: number;
  deployed: number;
  failed: ImportFailure[];
  rule_ids: string[];
}

export async function importRules(
  ctx: AppContext,
  actor: Actor,
  documents: ImportDocument[],
  options: { indexPattern?: string; deploy: boolean },
): Promise<ImportResult> {
  let pattern: IndexPatternRow | undefined;
  if (options.indexPattern !== undefined) {
    pattern = await findPatternByName(ctx.db, options.indexPattern);
    if (!pattern) throw new HttpError(422, 'Validation failed', [{ field: 'index_pattern', message: `index pattern '${options.indexPattern}' does not exist` }]);
  } else pattern = await findDefaultPattern(ctx.db);
  if (options.deploy && !(await ctx.backend.health())) throw new BackendUnavailableError();

  const failed: ImportFailure[] = [];
  const ready: { index: number; content: RuleContent }[] = [];
  documents.forEach((doc, index) => {
    const where = doc.path === undefined ? {} : { path: doc.path };
    if (doc.error) {
      failed.push({ index, ...where, error: doc.error });
      return;
    }
    try {
      const sigma = parseSigma(doc.yaml, 'Validation failed');
      compileFor(sigma, pattern, 'Validation failed');
      if (options.deploy) checkDeployable(doc.yaml, pattern);
      ready.push({ index, content: contentOf(sigma, doc.yaml, undefined, pattern?.id ?? null) });
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const title = /^title:\s*(.+)$/m.exec(doc.yaml)?.[1]?.trim().replace(/^['"]|['"]$/g, '');
      failed.push({ index, ...where, ...(title ? { title } : {}), error: error.detail, ...(error.errors ? { errors: error.errors } : {}) });
    }
  });

  const ids: string[] = [];
  for (let start = 0; start < ready.length; start += BATCH) {
    const batch = ready.slice(start, start + BATCH).map((r) => ({ ...r, id: randomUUID() }));
    await ctx.db.transaction(async (tx) => {
      for (const { id, content } of batch) {
        await insertRule(tx, id, content, actor.username);
        await insertVersion(tx, { ruleId: id, version: 1, title: content.title, yaml: content.yaml_content, indexPatternId: content.index_pattern_id, changedBy: actor.username, reason: 'Imported' });
        if (options.deploy) await deployRule(tx, ctx.backend, { id, version: 1, yaml_content: content.yaml_content, index_pattern_id: content.index_pattern_id });
        await recordAudit(tx, { actor: actor.username, action: 'rule.create', targetType: 'rule', targetId: id, details: { title: content.title, deployed: options.deploy, imported: true }, ip: actor.ip });
      }
    });
    ids.push(...batch.map((b) => b.id));
  }
  if (options.deploy && ids.length > 0) await ctx.backend.sync();
  await recordAudit(ctx.db, { actor: actor.username, action: 'rule.import', details: { documents: documents.length, created: ids.length, failed: failed.length, deployed: options.deploy ? ids.length : 0 }, ip: actor.ip });
  failed.sort((a, b) => a.index - b.index);
  return { created: ids.length, deployed: options.deploy ? ids.length : 0, failed, rule_ids: ids };
}
