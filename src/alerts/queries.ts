// SQL for reading and triaging alerts: the filtered, sorted list (every order matches an index of
// migration 7, so a page is read from an index, not sorted; only a search sorts its matches, at most
// 10 001), one alert, row locks for status changes, and comments. Alerts themselves are written by
// detection (store.ts).
import type { CorrelationRecord } from '../correlation/correlate.js';
import { parseJson } from '../http/exact-json.js';
import type { Queryable } from '../db/database.js';
import { Conditions, paginate, type ListQuery, type Page } from '../http/lists.js';
import { countAlerts } from './counts.js';
import { linkedEventIds } from './suppression-store.js';
import type { Enrichment } from '../threat-intel/enricher.js';
import { severityRank, type Severity } from './severity.js';
import type { AlertStatus } from './view.js';

export interface AlertRow {
  id: string;
  rule_id: string;
  rule_title: string;
  severity: Severity;
  level: string;
  status: AlertStatus;
  tags: string[];
  index_pattern: string;
  event_time: Date;
  created_at: Date;
  updated_at: Date;
  source_ip: string | null;
  user: string | null;
  host: string | null;
  enrichment: Enrichment | null;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  correlation: CorrelationRecord | null;
  occurrences: number;
  last_seen_at: Date;
  suppression_group: Record<string, unknown> | null;
  assignee: string | null;
  assignee_name: string | null;
  [key: string]: unknown;
}

export interface AlertDetailRow extends AlertRow {
  event_hash: string;
  event: Record<string, unknown>;
  matched_conditions: Record<string, unknown>[];
  comments_count: number;
}

const ALERT_COLUMNS = `id, rule_id, rule_title, severity, level, status, tags, index_pattern, event_time, created_at, updated_at,
  source_ip, "user", host, enrichment, acknowledged_at, acknowledged_by, correlation, occurrences,
  coalesce(last_seen_at, created_at) AS last_seen_at, suppression_group, assignee,
  (SELECT u.username FROM users u WHERE u.id = assignee) AS assignee_name`;

/**
 * The alerts whose search text (rule title, entities and the stored event as JSON text, kept in
 * alert_search with its trigram index, migration 24) satisfies the conditions on `s.text`.
 */
const searched = (condition: string) => `id IN (SELECT s.alert_id FROM alert_search s WHERE ${condition})`;

export const ALERT_SORT_FIELDS = ['created_at', 'updated_at', 'event_time', 'severity', 'status', 'rule_title', 'host', 'user', 'source_ip', 'risk_score'] as const;
export type AlertSortField = (typeof ALERT_SORT_FIELDS)[number];

/** The column each sort field orders by first (then created_at and id); nullable ones put empty values last. */
const SORT_KEYS: Record<AlertSortField, { column: string; nullable: boolean } | null> = {
  created_at: null,
  updated_at: null,
  event_time: { column: 'event_time', nullable: false },
  severity: { column: 'severity_rank', nullable: false },
  status: { column: 'status', nullable: false },
  rule_title: { column: 'rule_title', nullable: false },
  host: { column: 'host', nullable: true },
  user: { column: '"user"', nullable: true },
  source_ip: { column: 'source_ip', nullable: true },
  risk_score: { column: 'risk_score', nullable: true },
};

export interface AlertListQuery extends ListQuery {
  status?: AlertStatus;
  severity?: Severity;
  rule_id?: string;
  index_pattern?: string;
  host?: string;
  user?: string;
  source_ip?: string;
  /** 'none' (unassigned) or a user id ('me' is resolved before). */
  assignee?: string;
  /** The events' own time range (exclusive, like created_after/created_before). */
  event_after?: string;
  event_before?: string;
}

/** The ORDER BY of a list: one direction throughout, so a B-tree index can be read forwards or backwards. */
function orderBy(sortBy: string, direction: 'ASC' | 'DESC'): string {
  if (sortBy === 'updated_at') return `updated_at ${direction}, id ${direction}`;
  const key = SORT_KEYS[sortBy as AlertSortField] ?? null;
  const tail = `created_at ${direction}, id ${direction}`;
  if (!key) return tail;
  return `${key.column} ${direction}${key.nullable ? ' NULLS LAST' : ''}, ${tail}`;
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Adds the search condition: the term as typed, or (when they differ) as it reads inside the event's
 * JSON text, where backslashes, quotes and control characters are escaped. Two patterns would cost two
 * trigram index scans, so the index is asked once, for the looser pattern both satisfy (the term with
 * the characters JSON escapes as wildcards), and the exact patterns are checked on what it finds (on a
 * copy of the text the index does not cover, so the planner cannot split them into more scans).
 */
function addSearch(where: Conditions, search: string): void {
  const inJson = JSON.stringify(search).slice(1, -1);
  if (inJson === search) {
    where.add(searched('s.text ILIKE ?'), likePattern(search));
    return;
  }
  // eslint-disable-next-line no-control-regex
  const loose = `%${search.split(/["\\\u0000-\u001f]+/).map((part) => part.replace(/[\\%_]/g, (c) => `\\${c}`)).join('%')}%`;
  where.add(searched("s.text ILIKE ? AND ((s.text || '') ILIKE ? OR (s.text || '') ILIKE ?)"), loose, likePattern(search), likePattern(inJson));
}

export function alertConditions(q: AlertListQuery): Conditions {
  const where = new Conditions().addCommon(q, 'created_at', []);
  if (q.status) where.add('status = ?', q.status);
  if (q.severity) where.add('severity_rank = ?', severityRank(q.severity));
  if (q.rule_id) where.add('rule_id = ?', q.rule_id);
  if (q.index_pattern) where.add('index_pattern = ?', q.index_pattern);
  if (q.host) where.add('host = ?', q.host);
  if (q.user) where.add('"user" = ?', q.user);
  if (q.source_ip) where.add('source_ip = ?', q.source_ip);
  if (q.event_after) where.add(`event_time >= date_trunc('milliseconds', ?::timestamptz) + interval '1 millisecond'`, q.event_after);
  if (q.event_before) where.add(`event_time < date_trunc('milliseconds', ?::timestamptz + interval '999 microseconds')`, q.event_before);
  if (q.assignee === 'none') where.add('assignee IS NULL');
  else if (q.assignee) where.add('assignee = ?', q.assignee);
  if (q.search) addSearch(where, q.search);
  return where;
}

/** A search counts its matches up to this many (a common word may match every alert; counting a
 * million matches means reading a million events). */
export const SEARCH_COUNT_LIMIT = 10_000;

/** True when alert_counts can give the total: no filter beyond status, severity, rule and index pattern. */
export const countable = (q: AlertListQuery) =>
  !q.created_after && !q.created_before && !q.event_after && !q.event_before && !q.search && !q.host && !q.user && !q.source_ip && !q.assignee;

async function countMatches(db: Queryable, where: Conditions): Promise<number> {
  const [{ total }] = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM alerts ${where.sql}`, where.params);
  return total;
}

/** The query of one page of the list (exported so tests can check every order is read from an index). */
export function alertPageQuery(q: AlertListQuery, where = alertConditions(q)): { sql: string; params: unknown[] } {
  return { sql: `SELECT ${ALERT_COLUMNS} FROM alerts ${where.sql} ${pageTail(q)}`, params: where.params };
}

function pageTail(q: AlertListQuery): string {
  const direction = q.sort_order === 'asc' ? 'ASC' : 'DESC';
  return `ORDER BY ${orderBy(q.sort_by ?? 'created_at', direction)} LIMIT ${q.page_size} OFFSET ${(q.page - 1) * q.page_size}`;
}

export interface AlertPage extends Page<AlertRow> {
  /** False when a search matched more than SEARCH_COUNT_LIMIT alerts: total is that limit. */
  total_exact: boolean;
}

const pageOf = (q: AlertListQuery, items: AlertRow[], total: number, exact: boolean): AlertPage => ({
  items,
  total,
  total_exact: exact,
  page: q.page,
  page_size: q.page_size,
  pages: Math.ceil(total / q.page_size),
});

/**
 * A search page. The matches (up to SEARCH_COUNT_LIMIT + 1) are collected once through the trigram
 * index, counted, and sorted for the page in the same statement: the planner cannot tell how rare a
 * term is and would otherwise walk the sort order's index testing every alert's text. When there are
 * more matches than that, the term is common, and walking the sort order's index finds a page at once.
 */
async function pageSearch(db: Queryable, q: AlertListQuery, where: Conditions, limit: number): Promise<AlertPage> {
  const { matches, rows } = await collectedPage(db, q, where, limit);
  if (matches <= limit) return pageOf(q, rows, matches, true);
  const page = alertPageQuery(q, where);
  return pageOf(q, await db.query<AlertRow>(page.sql, page.params), limit, false);
}

/** The matches (up to limit + 1, found by the filters' own indexes), counted and sorted for the page in one statement. */
async function collectedPage(db: Queryable, q: AlertListQuery, where: Conditions, limit: number): Promise<{ matches: number; rows: AlertRow[] }> {
  const rows = await db.query<AlertRow & { total_matches: number }>(
    `WITH matches AS MATERIALIZED (SELECT ${ALERT_COLUMNS}, severity_rank, risk_score FROM alerts ${where.sql} LIMIT ${limit + 1})
     SELECT c.total_matches, p.* FROM (SELECT count(*)::int AS total_matches FROM matches) c
     LEFT JOIN LATERAL (SELECT * FROM matches ${pageTail(q)}) p ON true
     ${pageTail({ ...q, page: 1 })}`,
    where.params,
  );
  return { matches: rows[0]?.total_matches ?? 0, rows: rows.filter((r) => r.id !== null) };
}

/**
 * At most this many alerts bounded by event time are collected and sorted for a page rather than found
 * by walking the arrival-order index: event time follows arrival, so the alerts an `event_before` keeps
 * (newest first) or an `event_after` keeps (oldest first) sit at the far end of that index, which the
 * planner, expecting them spread evenly, walks. Only their ids and arrival times are collected (the
 * event-time index holds both), and the page's rows are read by id.
 */
const EVENT_RANGE_COLLECT_LIMIT = 50_000;

/** Whether an event-time bound keeps the alerts at the far end of the arrival order the page is read in. */
const farInArrivalOrder = (q: AlertListQuery) =>
  (q.sort_by ?? 'created_at') === 'created_at' && (q.sort_order === 'asc' ? !!q.event_after : !!q.event_before);

/** A page in arrival order of alerts bounded by event time (at most EVENT_RANGE_COLLECT_LIMIT of them). */
async function pageByArrival(db: Queryable, q: AlertListQuery, where: Conditions): Promise<AlertRow[]> {
  const direction = q.sort_order === 'asc' ? 'ASC' : 'DESC';
  return db.query<AlertRow>(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE id IN (
       SELECT m.id FROM (SELECT id, created_at FROM alerts ${where.sql} LIMIT ${EVENT_RANGE_COLLECT_LIMIT + 1}) m
        ORDER BY m.created_at ${direction}, m.id ${direction} LIMIT ${q.page_size} OFFSET ${(q.page - 1) * q.page_size})
     ORDER BY created_at ${direction}, id ${direction}`,
    where.params,
  );
}

/**
 * The number of alerts a (search-free) list matches: from alert_counts when its filters are among
 * those kept there; unassigned alerts as that total less the assigned ones (counted through the
 * partial index on assignee: a count of the unassigned would read every alert); else counted.
 */
async function totalOf(db: Queryable, q: AlertListQuery, where: Conditions): Promise<number> {
  if (countable(q)) return countAlerts(db, where);
  const { assignee, ...rest } = q;
  if (assignee !== 'none' || !countable(rest)) return countMatches(db, where);
  const assigned = alertConditions(rest).add('assignee IS NOT NULL');
  return Math.max(0, (await countAlerts(db, alertConditions(rest))) - (await countMatches(db, assigned)));
}

/** One page of the list; `searchCountLimit` is where a search stops counting. */
export async function pageAlerts(db: Queryable, q: AlertListQuery, searchCountLimit = SEARCH_COUNT_LIMIT): Promise<AlertPage> {
  const where = alertConditions(q);
  if (q.search) return pageSearch(db, q, where, searchCountLimit);
  const total = await totalOf(db, q, where);
  if (farInArrivalOrder(q) && total <= EVENT_RANGE_COLLECT_LIMIT) return pageOf(q, await pageByArrival(db, q, where), total, true);
  const page = alertPageQuery(q, where);
  return pageOf(q, await db.query<AlertRow>(page.sql, page.params), total, true);
}

/** The ids of the alerts matching the conditions (at most `limit`), in id order. */
export async function matchingAlertIds(db: Queryable, where: Conditions, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(`SELECT id FROM alerts ${where.sql} ORDER BY id LIMIT ${Math.floor(limit)}`, where.params);
  return rows.map((r) => r.id);
}

// The event is read as text, so its numbers keep the digits they were sent with (exact-json.ts).
const DETAIL_SELECT = `SELECT ${ALERT_COLUMNS}, event_hash, event::text AS event_text, matched_conditions,
       (SELECT count(*)::int FROM alert_comments c WHERE c.alert_id = a.id) AS comments_count
     FROM alerts a`;

type DetailQueryRow = AlertDetailRow & { event_text: string };

function detailRow(row: DetailQueryRow): AlertDetailRow {
  const { event_text: text, ...rest } = row;
  return { ...rest, event: parseJson(text) as Record<string, unknown> };
}

export async function findAlert(db: Queryable, id: string): Promise<AlertDetailRow | undefined> {
  const [row] = await db.query<DetailQueryRow>(`${DETAIL_SELECT} WHERE id = $1`, [id]);
  return row ? detailRow(row) : undefined;
}

/** Several alerts in one read (those that still exist), by id. */
export async function findAlerts(db: Queryable, ids: string[]): Promise<Map<string, AlertDetailRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<DetailQueryRow>(`${DETAIL_SELECT} WHERE id = ANY($1::uuid[])`, [ids]);
  return new Map(rows.map((row) => [row.id, detailRow(row)]));
}

/** How many events an alert lists. */
export const ALERT_EVENT_IDS = 100;

/** The events an alert stands for (the first ALERT_EVENT_IDS): those a suppressing rule linked to it,
 * a correlation's contributing events, or the one event it was raised for. */
export async function alertEventIds(db: Queryable, row: AlertDetailRow): Promise<string[]> {
  if (row.correlation) return row.correlation.event_ids.slice(0, ALERT_EVENT_IDS);
  if (row.suppression_group) {
    const linked = await linkedEventIds(db, row.id, ALERT_EVENT_IDS);
    if (linked.length > 0) return linked;
  }
  return [row.event_hash];
}

export async function alertExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM alerts WHERE id = $1', [id])).length > 0;
}

/** The triage state of an alert. */
export interface TriageRow {
  id: string;
  status: AlertStatus;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  assignee: string | null;
  [key: string]: unknown;
}

const TRIAGE_COLUMNS = 'id, status, acknowledged_at, acknowledged_by, assignee';

/** Locks the given alerts for a status change (in id order, so concurrent bulk changes never deadlock). */
export async function lockAlerts(tx: Queryable, ids: string[]): Promise<TriageRow[]> {
  if (ids.length === 0) return [];
  return tx.query<TriageRow>(
    `SELECT ${TRIAGE_COLUMNS} FROM alerts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
    [ids],
  );
}

/**
 * Moves alerts to `status`: acknowledging records who and when; moving back to new clears that;
 * resolving or tuning out keeps it. Answers the new triage state of each alert.
 */
export async function setStatus(tx: Queryable, ids: string[], status: AlertStatus, actor: string): Promise<TriageRow[]> {
  if (ids.length === 0) return [];
  return tx.query<TriageRow>(
    `UPDATE alerts SET status = $2,
       acknowledged_at = CASE WHEN $2 = 'acknowledged' THEN now() WHEN $2 = 'new' THEN NULL ELSE acknowledged_at END,
       acknowledged_by = CASE WHEN $2 = 'acknowledged' THEN $3 WHEN $2 = 'new' THEN NULL ELSE acknowledged_by END,
       updated_at = now()
     WHERE id = ANY($1::uuid[])
     RETURNING ${TRIAGE_COLUMNS}`,
    [ids, status, actor],
  );
}

/** Gives alerts to a user (or to no one). Answers the new triage state of each alert. */
export async function setAssignee(tx: Queryable, ids: string[], assignee: string | null): Promise<TriageRow[]> {
  if (ids.length === 0) return [];
  return tx.query<TriageRow>(`UPDATE alerts SET assignee = $2, updated_at = now() WHERE id = ANY($1::uuid[]) RETURNING ${TRIAGE_COLUMNS}`, [ids, assignee]);
}

/** Marks alerts as changed now (a comment was added). */
export async function touchAlerts(tx: Queryable, ids: string[]): Promise<void> {
  if (ids.length > 0) await tx.query('UPDATE alerts SET updated_at = now() WHERE id = ANY($1::uuid[])', [ids]);
}

export interface CommentRow {
  id: string;
  alert_id: string;
  user: string;
  text: string;
  created_at: Date;
  [key: string]: unknown;
}

export async function insertComments(tx: Queryable, comments: { id: string; alertId: string; user: string; text: string }[]): Promise<CommentRow[]> {
  if (comments.length === 0) return [];
  return tx.query<CommentRow>(
    `INSERT INTO alert_comments (id, alert_id, "user", text)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[])
     RETURNING id, alert_id, "user", text, created_at`,
    [comments.map((c) => c.id), comments.map((c) => c.alertId), comments.map((c) => c.user), comments.map((c) => c.text)],
  );
}

export function pageComments(db: Queryable, alertId: string, q: ListQuery): Promise<Page<CommentRow>> {
  return paginate(db, {
    select: 'id, alert_id, "user", text, created_at',
    from: 'alert_comments',
    where: new Conditions().add('alert_id = ?', alertId),
    query: q,
    sortColumns: { created_at: 'created_at' },
    tieBreaker: 'id',
    map: (row: CommentRow) => row,
  });
}
