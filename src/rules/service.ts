// The rule lifecycle: create (optionally deployed, atomically), update with versioning and redeploy,
// deploy, undeploy, rollback and delete. Every change is one transaction, its audit entry included; the
// backend is synchronised after commit so the change is live at once.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { AppContext } from '../http/context.js';
import { conflict, notFound, unprocessable } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import { findDefaultPattern, findPatternById, findPatternByName, type IndexPatternRow } from '../index-patterns/store.js';
import { parseRule } from '../sigma/index.js';
import { checkRule, compileFor, contentOf, parseSigma } from './analysis.js';
import { checkRuleWithExceptions } from './exceptions/exceptions-limit.js';
import { enabledExceptionSpecs } from './exceptions/store.js';
import { checkNotNeeded, checkReferencesExist, refsOf } from './correlation-refs.js';
import { deployRule, undeployRule } from './deployment.js';
import { runRuleJob } from './rule-workers.js';
import { deleteRuleRow, findRule, findVersion, insertRule, insertVersion, updateRuleContent, type RuleContent, type RuleRow } from './store.js';

export const RULE_NOT_FOUND = 'Rule not found';

export interface Actor {
  username: string;
  ip: string;
}

async function resolvePattern(db: Queryable, name: string | null | undefined): Promise<IndexPatternRow | undefined> {
  if (name === undefined) return findDefaultPattern(db);
  if (name === null) return undefined;
  const pattern = await findPatternByName(db, name);
  if (!pattern) throw unprocessable('Validation failed', [{ field: 'index_pattern', message: `index pattern '${name}' does not exist` }]);
  return pattern;
}

async function loadRule(ctx: AppContext, id: string): Promise<RuleRow> {
  const rule = await findRule(ctx.db, id);
  if (!rule) throw notFound(RULE_NOT_FOUND);
  return rule;
}

/**
 * Reads a rule and locks its row for the rest of `tx`: concurrent changes of one rule run one after
 * the other, so versions are never computed from a stale read and a deploy always ships the latest content.
 */
async function lockRule(tx: Queryable, id: string): Promise<RuleRow> {
  const rule = await findRule(tx, id, true);
  if (!rule) throw notFound(RULE_NOT_FOUND);
  return rule;
}

/**
 * Parses and compiles new YAML on a rule worker first (field names as written): text that is costly to
 * read or over a work limit is refused there, with the same errors, before this thread parses it.
 */
async function checkOffLoop(ctx: AppContext, yaml: string): Promise<void> {
  await runRuleJob(ctx, { kind: 'check', yaml, pattern: null, detail: 'Validation failed' });
}

export async function createRule(
  ctx: AppContext,
  actor: Actor,
  input: { yaml_content: string; title?: string; deploy?: boolean; index_pattern?: string | null },
): Promise<RuleRow> {
  await checkOffLoop(ctx, input.yaml_content);
  const sigma = parseSigma(input.yaml_content, 'Validation failed');
  const pattern = await resolvePattern(ctx.db, input.index_pattern);
  checkRule(sigma, pattern, 'Validation failed');
  await checkReferencesExist(ctx.db, sigma, 'Validation failed');
  const content = contentOf(sigma, input.yaml_content, input.title, pattern?.id ?? null);
  const id = randomUUID();
  await ctx.db.transaction(async (tx) => {
    await insertRule(tx, id, content, actor.username);
    await insertVersion(tx, { ruleId: id, version: 1, title: content.title, yaml: content.yaml_content, indexPatternId: content.index_pattern_id, changedBy: actor.username, reason: 'Created' });
    if (input.deploy) await deployRule(tx, ctx.backend, { ...content, id, version: 1 }, undefined, actor);
    await recordAudit(tx, { actor: actor.username, action: 'rule.create', targetType: 'rule', targetId: id, details: { title: content.title, deployed: Boolean(input.deploy) }, ip: actor.ip });
  });
  if (input.deploy) await ctx.backend.sync();
  return loadRule(ctx, id);
}

/** Applies new content as a new version of the locked `rule`; a deployed rule is redeployed in the same transaction. */
async function writeVersion(
  tx: Queryable,
  ctx: AppContext,
  actor: Actor,
  rule: RuleRow,
  next: { title: string; yaml: string; indexPatternId: string | null },
  reason: string | null,
): Promise<number> {
  const sigma = parseSigma(next.yaml, 'Validation failed');
  const pattern = next.indexPatternId ? await findPatternById(tx, next.indexPatternId) : undefined;
  // The rule's enabled exceptions count in its matching cost.
  if (sigma.kind === 'detection') checkRuleWithExceptions(compileFor(sigma, pattern, 'Validation failed'), await enabledExceptionSpecs(tx, rule.id), 'Validation failed');
  else checkRule(sigma, pattern, 'Validation failed');
  await checkReferencesExist(tx, sigma, 'Validation failed', rule.id);
  const content = contentOf(sigma, next.yaml, next.title, next.indexPatternId);
  if (rule.status === 'deployed' && content.rule_type !== rule.rule_type) {
    throw conflict('A deployed rule cannot change between detection and correlation: undeploy it first');
  }
  if (rule.status === 'deployed') await checkStillAnswers(tx, rule, content);
  const version = rule.version + 1;
  const previousPattern = rule.index_pattern_id ? await findPatternById(tx, rule.index_pattern_id) : undefined;
  await updateRuleContent(tx, rule.id, content, version);
  await insertVersion(tx, { ruleId: rule.id, version, title: content.title, yaml: content.yaml_content, indexPatternId: content.index_pattern_id, changedBy: actor.username, reason });
  if (rule.status === 'deployed') {
    await deployRule(tx, ctx.backend, { ...content, id: rule.id, version }, previousPattern, actor);
  }
  return version;
}

/** 409 when a change would take a rule away from the deployed correlations that reference it. */
async function checkStillAnswers(tx: Queryable, rule: RuleRow, next: RuleContent): Promise<void> {
  if (next.index_pattern_id !== rule.index_pattern_id) return checkNotNeeded(tx, rule, 'moved to another index pattern');
  const kept = new Set(refsOf(next));
  const lost = refsOf(rule).filter((r) => !kept.has(r));
  if (lost.length > 0) await checkNotNeeded(tx, rule, 'renamed', lost);
}

/**
 * The title after a YAML change without a new title: a title chosen at creation (or by an earlier
 * update) stays; a title taken from the YAML follows the new YAML.
 */
function titleAfterYamlChange(rule: RuleRow, yaml: string | undefined): string {
  if (yaml === undefined) return rule.title;
  const next = parseSigma(yaml, 'Validation failed').title;
  const previous = parseRule(rule.yaml_content);
  const wasFromYaml = previous.ok && previous.rule.title === rule.title;
  return wasFromYaml ? next : rule.title;
}

export async function updateRule(
  ctx: AppContext,
  actor: Actor,
  id: string,
  input: { title?: string; yaml_content?: string; index_pattern?: string | null; change_reason?: string },
): Promise<RuleRow> {
  if (input.yaml_content !== undefined) await checkOffLoop(ctx, input.yaml_content);
  const outcome = await ctx.db.transaction(async (tx) => {
    const rule = await lockRule(tx, id);
    let indexPatternId = rule.index_pattern_id;
    if (input.index_pattern !== undefined) indexPatternId = (await resolvePattern(tx, input.index_pattern))?.id ?? null;
    const yaml = input.yaml_content ?? rule.yaml_content;
    const title = input.title ?? titleAfterYamlChange(rule, input.yaml_content);
    if (yaml === rule.yaml_content && title === rule.title && indexPatternId === rule.index_pattern_id) return null;
    const version = await writeVersion(tx, ctx, actor, rule, { title, yaml, indexPatternId }, input.change_reason ?? null);
    await recordAudit(tx, {
      actor: actor.username,
      action: 'rule.update',
      targetType: 'rule',
      targetId: id,
      details: { version, fields: Object.keys(input).filter((k) => k !== 'change_reason'), reason: input.change_reason ?? null },
      ip: actor.ip,
    });
    return { version, deployed: rule.status === 'deployed' };
  });
  if (outcome?.deployed) await ctx.backend.sync();
  return loadRule(ctx, id);
}

export async function rollbackRule(ctx: AppContext, actor: Actor, id: string, version: number): Promise<RuleRow> {
  const outcome = await ctx.db.transaction(async (tx) => {
    const rule = await lockRule(tx, id);
    const target = await findVersion(tx, id, version);
    if (!target) throw notFound('Version not found');
    const stillExists = target.index_pattern_id ? await findPatternById(tx, target.index_pattern_id) : undefined;
    const newVersion = await writeVersion(
      tx,
      ctx,
      actor,
      rule,
      { title: target.title, yaml: target.yaml_content, indexPatternId: stillExists ? target.index_pattern_id : rule.index_pattern_id },
      `Rollback to version ${version}`,
    );
    await recordAudit(tx, { actor: actor.username, action: 'rule.rollback', targetType: 'rule', targetId: id, details: { to_version: version, new_version: newVersion }, ip: actor.ip });
    return { version: newVersion, deployed: rule.status === 'deployed' };
  });
  if (outcome.deployed) await ctx.backend.sync();
  return loadRule(ctx, id);
}

/** Options of the single-rule changes: `sync: false` leaves making the change live to the caller (bulk
 * operations sync once at the end instead of once per rule, e.g. one refresh of a percolator index). */
export interface ChangeOptions {
  sync?: boolean;
}

export async function deployExistingRule(ctx: AppContext, actor: Actor, id: string): Promise<RuleRow> {
  await deployStoredRule(ctx, actor, id);
  await ctx.backend.sync();
  return loadRule(ctx, id);
}

/** Deploys (or redeploys) a rule; live in this process after the caller's `ctx.backend.sync()`. */
export async function deployStoredRule(ctx: AppContext, actor: Actor, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const locked = await lockRule(tx, id);
    await deployRule(tx, ctx.backend, locked, undefined, actor);
    await recordAudit(tx, { actor: actor.username, action: 'rule.deploy', targetType: 'rule', targetId: id, details: { version: locked.version, redeploy: locked.status === 'deployed' }, ip: actor.ip });
  });
}

/** Undeploys; an undeployed rule is left as it is. Answers whether anything changed. */
export async function undeployExistingRule(ctx: AppContext, actor: Actor, id: string, options: ChangeOptions = {}): Promise<boolean> {
  const changed = await ctx.db.transaction(async (tx) => {
    const rule = await lockRule(tx, id);
    if (rule.status !== 'deployed') return false;
    await undeployRule(tx, ctx.backend, rule);
    await recordAudit(tx, { actor: actor.username, action: 'rule.undeploy', targetType: 'rule', targetId: id, ip: actor.ip });
    return true;
  });
  if (!changed) return false;
  if (options.sync !== false) await ctx.backend.sync();
  return true;
}

/** Deletes a rule with its versions, exceptions and stored query; alerts and audit entries stay. */
export async function deleteRule(ctx: AppContext, actor: Actor, id: string, options: ChangeOptions = {}): Promise<void> {
  const rule = await ctx.db.transaction(async (tx) => {
    const locked = await lockRule(tx, id);
    if (locked.status === 'deployed') await undeployRule(tx, ctx.backend, locked, 'deleted');
    if (!(await deleteRuleRow(tx, id))) throw notFound(RULE_NOT_FOUND);
    await recordAudit(tx, { actor: actor.username, action: 'rule.delete', targetType: 'rule', targetId: id, details: { title: locked.title }, ip: actor.ip });
    return locked;
  });
  if (rule.status === 'deployed' && options.sync !== false) await ctx.backend.sync();
}
