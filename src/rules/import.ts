// Bulk import of many rules at once (e.g. a SigmaHQ release): each document is validated like
// POST /api/rules; valid ones are created (and deployed when asked) in batched transactions, each
// rule atomically with its version, stored query and audit entry. Answers per-document results; once
// a rule is committed the answer reports it (a batch the database refuses is retried rule by rule).
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../http/context.js';
import { HttpError, badRequest, type FieldError } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import { BackendUnavailableError, percolatorIndexName } from '../backends/backend.js';
import type { CompiledRule } from '../sigma/index.js';
import { pipelineSpecOf } from '../index-patterns/pipeline.js';
import { findDefaultPattern, findPatternById, findPatternByName, type IndexPatternRow } from '../index-patterns/store.js';
import { compileFor, parseSigma } from './analysis.js';
import { runRuleJob } from './rule-workers.js';
import { importCorrelations, type CorrelationDocument } from './import-correlations.js';
import { lockDeployments, percolatorIdOf, storedQueryOf } from './deployment.js';
import type { ImportDocument } from './import-sources.js';
import { insertRulesWithVersions, type RuleContent } from './store.js';
import type { Actor } from './service.js';

/** Rules written per transaction: small enough that a batch (with deploy) holds the database briefly. */
const BATCH = 100;
const NOT_STORED = 'the rule could not be stored; import it again, or create it alone to see why';
/** Documents checked at once (the rule workers' queue takes a bounded number of jobs). */
const CHECKS_IN_FLIGHT = 4;

class PatternChangedError extends Error {
  constructor() {
    super('The index pattern changed during the import; import these rules again');
  }
}

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
  log?: FastifyBaseLogger,
): Promise<ImportResult> {
  let pattern: IndexPatternRow | undefined;
  if (options.indexPattern !== undefined) {
    pattern = await findPatternByName(ctx.db, options.indexPattern);
    if (!pattern) throw new HttpError(422, 'Validation failed', [{ field: 'index_pattern', message: `index pattern '${options.indexPattern}' does not exist` }]);
  } else pattern = await findDefaultPattern(ctx.db);
  if (options.deploy && !(await ctx.backend.health())) throw new BackendUnavailableError();

  // Each document is checked on a rule worker thread, a few at a time; a backend that can refuse what
  // the checks let through (OpenSearch) has the detection compiled here as well, to ask it.
  const failed: ImportFailure[] = [];
  const checked: ({ index: number; content: RuleContent; compiled?: CompiledRule } | undefined)[] = [];
  const correlations: CorrelationDocument[] = [];
  const refusal = options.deploy && pattern ? ctx.backend.refusal?.bind(ctx.backend) : undefined;
  const checkOne = async (index: number): Promise<void> => {
    const doc = documents[index];
    const where = doc.path === undefined ? {} : { path: doc.path };
    if (doc.error) {
      failed.push({ index, ...where, error: doc.error });
      return;
    }
    try {
      const outcome = await runRuleJob(ctx, { kind: 'import', yaml: doc.yaml, pattern: pattern ?? null, deploy: options.deploy });
      if (outcome.kind === 'correlation') {
        correlations.push({ index, ...where, title: outcome.title, yaml: doc.yaml });
        return;
      }
      let compiled: CompiledRule | undefined;
      if (refusal && pattern) {
        compiled = compileFor(parseSigma(doc.yaml, 'Validation failed'), pattern, 'Validation failed');
        const refused = refusal(storedQueryOf({ id: 'import', version: 1, yaml_content: doc.yaml }, pattern, compiled));
        if (refused) throw badRequest(refused);
      }
      checked[index] = { index, content: outcome.content, compiled };
    } catch (error) {
      // Busy workers fail the import before anything is stored; a document's own failure is reported.
      if (!(error instanceof HttpError) || error.statusCode === 503) throw error;
      const title = /^title:\s*(.+)$/m.exec(doc.yaml)?.[1]?.trim().replace(/^['"]|['"]$/g, '');
      failed.push({ index, ...where, ...(title ? { title } : {}), error: error.detail, ...(error.errors ? { errors: error.errors } : {}) });
    }
  };
  let nextDocument = 0;
  const checker = async () => {
    while (nextDocument < documents.length) await checkOne(nextDocument++);
  };
  await Promise.all(Array.from({ length: CHECKS_IN_FLIGHT }, checker));
  const ready = checked.filter((r) => r !== undefined);
  correlations.sort((a, b) => a.index - b.index);

  const ids: string[] = [];
  const pipeline = pattern ? pipelineSpecOf(pattern) : undefined;
  const failBatch = (batch: { index: number; content: RuleContent }[], error: string) => {
    for (const { index, content } of batch) {
      failed.push({ index, ...(documents[index].path === undefined ? {} : { path: documents[index].path }), title: content.title, error });
    }
  };
  // Set when the database refused every rule of a batch, even one by one: the later batches are not tried.
  let refused: unknown;
  for (let start = 0; start < ready.length; start += BATCH) {
    // Other requests run between batches.
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const batch = ready.slice(start, start + BATCH).map((r) => ({ ...r, id: randomUUID() }));
    if (refused !== undefined) {
      failBatch(batch, NOT_STORED);
      continue;
    }
    try {
      await writeBatch(batch);
    } catch (error) {
      if (error instanceof BackendUnavailableError || error instanceof PatternChangedError) {
        // This batch was rolled back as a whole: report its rules as failed, keep what committed before.
        failBatch(batch, error.message);
        continue;
      }
      // Something the checks let through was refused by the database: the batch was rolled back, so
      // its rules are stored one by one, and only the ones refused again are reported as failed.
      log?.error({ err: error }, 'rule import: a batch was refused; storing its rules one by one');
      let stored = 0;
      for (const one of batch) {
        try {
          await writeBatch([one]);
          ids.push(one.id);
          stored++;
        } catch (single) {
          const why = single instanceof HttpError ? single.detail : single instanceof BackendUnavailableError || single instanceof PatternChangedError ? single.message : NOT_STORED;
          failBatch([one], why);
        }
      }
      if (stored === 0) refused = error;
      continue;
    }
    ids.push(...batch.map((b) => b.id));
  }
  // Nothing was stored: the failure is the service's, and answered as such.
  if (refused !== undefined && ids.length === 0) throw refused;
  const detectionIds = ids.length;
  if (correlations.length > 0) {
    const outcome = await importCorrelations(ctx, actor, correlations, { indexPattern: pattern?.name ?? null, deploy: options.deploy });
    ids.push(...outcome.ids);
    failed.push(...outcome.failed);
  }
  // From here on rules are committed: the answer must report them, whatever fails afterwards.
  try {
    if (options.deploy && detectionIds > 0) await ctx.backend.sync();
    await recordAudit(ctx.db, { actor: actor.username, action: 'rule.import', details: { documents: documents.length, created: ids.length, failed: failed.length, deployed: options.deploy ? ids.length : 0 }, ip: actor.ip });
  } catch (error) {
    if (ids.length === 0) throw error;
    log?.error({ err: error }, 'rule import: rules were stored, but the follow-up (backend sync, import audit entry) failed');
  }
  failed.sort((a, b) => a.index - b.index);
  return { created: ids.length, deployed: options.deploy ? ids.length : 0, failed, rule_ids: ids };

  async function writeBatch(batch: { id: string; content: RuleContent; compiled?: CompiledRule }[]): Promise<void> {
    await ctx.db.transaction(async (tx) => {
      if (options.deploy && pattern) {
        // The rules were checked against these mappings; deploy only if they still hold.
        await lockDeployments(tx);
        const now = await findPatternById(tx, pattern.id);
        if (!now || JSON.stringify(pipelineSpecOf(now)) !== JSON.stringify(pipeline)) throw new PatternChangedError();
      }
      await insertRulesWithVersions(
        tx,
        batch.map(({ id, content }) => ({ id, content, percolatorId: options.deploy ? percolatorIdOf(id) : null })),
        actor.username,
        'Imported',
      );
      if (options.deploy && pattern && pipeline) {
        await ctx.backend.deployMany(
          tx,
          percolatorIndexName(pattern.name),
          batch.map(({ id, content, compiled }) => storedQueryOf({ id, version: 1, yaml_content: content.yaml_content }, pattern, compiled)),
        );
      }
      for (const { id, content } of batch) {
        await recordAudit(tx, { actor: actor.username, action: 'rule.create', targetType: 'rule', targetId: id, details: { title: content.title, deployed: options.deploy, imported: true }, ip: actor.ip });
      }
    });
  }
}
