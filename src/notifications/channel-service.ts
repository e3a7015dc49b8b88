// Creating and changing notification channels: every setting checked (422 naming the field, nothing
// stored), secret settings sealed to the channel, a changed config whose secret settings read "***"
// keeping the stored secrets, and every change audited in its own transaction.
import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/log.js';
import { SecretBox } from '../auth/secret-box.js';
import type { TokenService } from '../auth/tokens.js';
import { SEVERITIES, severityRank } from '../alerts/severity.js';
import type { Database, Queryable } from '../db/database.js';
import { conflict, notFound, unprocessable, type FieldError } from '../http/errors.js';
import { CHANNEL_KINDS, CHANNEL_TYPES, configProblems, isChannelType, MASK, splitSecrets, type ChannelType } from './channel-types.js';
import { deleteChannel, findChannel, insertChannel, updateChannel, type ChannelRow, type ChannelValues } from './channel-store.js';
import { destinationProblem } from './destinations.js';

export const CHANNEL_NOT_FOUND = 'Notification channel not found';
export const DEFAULT_MAX_PER_RULE = 10;
export const DEFAULT_WINDOW_SECONDS = 300;

/** A channel's settings as a request gives them (create: all required ones; update: any). */
export interface ChannelInput {
  name?: string;
  type?: string;
  config?: Record<string, unknown>;
  enabled?: boolean;
  min_severity?: string;
  index_patterns?: string[] | null;
  rule_tags?: string[] | null;
  max_per_rule?: number;
  window_seconds?: number;
}

export interface Actor {
  username: string;
  ip: string;
}

export interface ChannelContext {
  db: Database;
  box: SecretBox;
  allowPrivate: boolean;
}

/** The box channels' secret settings are sealed in (a key of their own, each bound to its channel). */
export const channelSecretBox = (tokens: TokenService): SecretBox => new SecretBox(tokens.deriveKey('notification-channel-secret'), 'channel');

/** The secret settings of a channel, opened. */
export function openSecrets(box: SecretBox, row: Pick<ChannelRow, 'id' | 'secrets_enc'>): Record<string, unknown> {
  if (!row.secrets_enc) return {};
  const plain = box.open(row.secrets_enc, row.id);
  if (plain === null) throw new Error(`the secret settings of notification channel ${row.id} cannot be opened (was the signing secret changed?)`);
  return JSON.parse(plain) as Record<string, unknown>;
}

/** Where a channel's config makes the service connect, for the internal-address check. */
function hostsOf(type: ChannelType, config: Record<string, unknown>): { field: string; host: string }[] {
  if (CHANNEL_KINDS[type].urls.length === 0) return [{ field: 'body.config.host', host: String(config.host) }];
  return CHANNEL_KINDS[type].urls.map((name) => ({ field: `body.config.${name}`, host: new URL(String(config[name])).hostname }));
}

async function checkedValues(ctx: ChannelContext, db: Queryable, input: ChannelInput, id: string, current?: ChannelRow): Promise<ChannelValues> {
  const problems: FieldError[] = [];
  const type = input.type ?? current?.type;
  if (type === undefined || !isChannelType(type)) {
    throw unprocessable('Validation failed', [{ field: 'body.type', message: `must be one of: ${CHANNEL_TYPES.join(', ')}` }]);
  }
  let config: Record<string, unknown>;
  if (input.config !== undefined) {
    // Secret settings sent back as "***" keep what is stored (an edited channel answered masked).
    const stored = current && current.type === type ? { ...current.config, ...openSecrets(ctx.box, current) } : {};
    config = Object.fromEntries(Object.entries(input.config).map(([k, v]) => [k, v === MASK && k in stored ? stored[k] : v]));
  } else if (current && current.type === type) {
    config = { ...current.config, ...openSecrets(ctx.box, current) };
  } else {
    throw unprocessable('Validation failed', [{ field: 'body.config', message: 'is required' }]);
  }
  problems.push(...configProblems(type, config));
  if (problems.length === 0) {
    for (const { field, host } of hostsOf(type, config)) {
      const problem = await destinationProblem(host, ctx.allowPrivate);
      if (problem) problems.push({ field, message: problem });
    }
  }
  const minSeverity = input.min_severity ?? current?.min_severity ?? 'low';
  if (!(SEVERITIES as readonly string[]).includes(minSeverity)) problems.push({ field: 'body.min_severity', message: `must be one of: ${SEVERITIES.join(', ')}` });
  const indexPatterns = input.index_patterns === undefined ? (current?.index_patterns ?? null) : input.index_patterns;
  if (indexPatterns && indexPatterns.length > 0) {
    const known = new Set((await db.query<{ name: string }>('SELECT name FROM index_patterns WHERE name = ANY($1::text[])', [indexPatterns])).map((r) => r.name));
    const unknown = indexPatterns.filter((name) => !known.has(name));
    if (unknown.length > 0) problems.push({ field: 'body.index_patterns', message: `unknown index pattern: ${unknown.join(', ')}` });
  }
  if (problems.length > 0) throw unprocessable('Validation failed', problems);
  const ruleTags = input.rule_tags === undefined ? (current?.rule_tags ?? null) : input.rule_tags;
  const { plain, secret } = splitSecrets(type, config);
  return {
    name: (input.name ?? current?.name ?? '').trim(),
    type,
    config: plain,
    secretsEnc: Object.keys(secret).length > 0 ? ctx.box.seal(JSON.stringify(secret), id) : null,
    enabled: input.enabled ?? current?.enabled ?? true,
    minSeverity,
    minSeverityRank: severityRank(minSeverity),
    indexPatterns: indexPatterns && indexPatterns.length > 0 ? [...new Set(indexPatterns)] : null,
    ruleTags: ruleTags && ruleTags.length > 0 ? [...new Set(ruleTags.map((t) => t.toLowerCase()))] : null,
    maxPerRule: input.max_per_rule ?? current?.max_per_rule ?? DEFAULT_MAX_PER_RULE,
    windowSeconds: input.window_seconds ?? current?.throttle_window_seconds ?? DEFAULT_WINDOW_SECONDS,
  };
}

const isNameTaken = (error: unknown) => (error as { code?: string }).code === '23505';
const NAME_TAKEN = 'A notification channel with this name already exists';

export async function createChannel(ctx: ChannelContext, actor: Actor, input: ChannelInput): Promise<ChannelRow> {
  const id = randomUUID();
  const values = await checkedValues(ctx, ctx.db, input, id);
  try {
    return await ctx.db.transaction(async (tx) => {
      const row = await insertChannel(tx, id, values, actor.username);
      await recordAudit(tx, { actor: actor.username, action: 'notification_channel.create', targetType: 'notification_channel', targetId: id, details: { name: row.name, type: row.type }, ip: actor.ip });
      return row;
    });
  } catch (error) {
    if (isNameTaken(error)) throw conflict(NAME_TAKEN);
    throw error;
  }
}

export async function changeChannel(ctx: ChannelContext, actor: Actor, id: string, input: ChannelInput): Promise<ChannelRow> {
  const current = await findChannel(ctx.db, id);
  if (!current) throw notFound(CHANNEL_NOT_FOUND);
  const values = await checkedValues(ctx, ctx.db, input, id, current);
  try {
    return await ctx.db.transaction(async (tx) => {
      const row = await updateChannel(tx, id, values);
      if (!row) throw notFound(CHANNEL_NOT_FOUND);
      const changed = Object.keys(input).filter((k) => k !== 'config' || JSON.stringify(input.config) !== JSON.stringify(current.config));
      await recordAudit(tx, { actor: actor.username, action: 'notification_channel.update', targetType: 'notification_channel', targetId: id, details: { name: row.name, changed }, ip: actor.ip });
      return row;
    });
  } catch (error) {
    if (isNameTaken(error)) throw conflict(NAME_TAKEN);
    throw error;
  }
}

export async function removeChannel(ctx: ChannelContext, actor: Actor, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const current = await findChannel(tx, id);
    if (!current || !(await deleteChannel(tx, id))) throw notFound(CHANNEL_NOT_FOUND);
    await recordAudit(tx, { actor: actor.username, action: 'notification_channel.delete', targetType: 'notification_channel', targetId: id, details: { name: current.name, type: current.type }, ip: actor.ip });
  });
}
